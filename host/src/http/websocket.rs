//! WebSockets on the HTTP side: a request that asks to upgrade
//! ([`asked`]) renders as any other, with a socket offered to its render
//! (`web::websocket`); a render that answers 101 gets the connection
//! switched ([`Upgrade::switch`]), and one task per socket ([`pump`]) then
//! carries messages between the client (`tokio-tungstenite`, the protocol
//! on hyper's upgraded connection) and the render, until either closes.
//! A render that answers anything else is an ordinary response.
//!
//! Lifetime: the [`Place`] (`--max-websockets`, and per tenant) is taken
//! before the render and held until the socket's task ends, and so are
//! the connection's (`--max-connections`, and per client), though hyper
//! is done with an upgraded connection.
//!
//! Invariants:
//! - No message waits unbounded: the client's wait in a channel of
//!   `web::websocket::INCOMING` (the socket is not read while it is full),
//!   the render's in the server's `--max-unsent-mib` and the socket's own
//!   bound; a message over `--max-websocket-message-kib` closes the
//!   socket (1009); a client reads at most `--websocket-messages-per-sec`.
//! - A socket with no message either way for `--websocket-idle` is closed
//!   (1001), and one whose client does not read is cut by the
//!   connection's `--send-timeout`: either way its render hears the close
//!   and ends.
//! - The render's end ends the socket: what it sent goes first, then a
//!   close (1011 when it failed).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message as Ws;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use super::error::{ApiError, counted, failed_render};
use super::gate::{Gate, Pass};
use super::stream::Render;
use crate::config::Config;
use crate::tenant::Tenant;
use crate::unsent::Unsent;
use crate::web::stream::Frames;
use crate::web::websocket::{self as ws, Ends, Message, Offer, Out, close_frame};

/// A socket's render may live this long at most: in practice until its
/// socket closes (an idle one is closed at `--websocket-idle`).
pub const LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);

/// Whether the client asks to upgrade to a WebSocket (`Upgrade:
/// websocket`): such a request is never answered from the cache or the
/// assets.
pub fn asks(headers: &HeaderMap) -> bool {
    has_token(headers, header::UPGRADE, "websocket")
}

fn has_token(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

/// The WebSockets open, in all and per tenant.
pub struct Places {
    all: Arc<Gate<()>>,
    tenants: Arc<Gate<Arc<str>>>,
}

/// One socket's place, given back when its task ends.
pub struct Place {
    _all: Pass<()>,
    _tenant: Pass<Arc<str>>,
}

impl Places {
    pub fn new(config: &Config) -> Places {
        Places {
            all: Gate::new(config.max_websockets),
            tenants: Gate::new(config.max_websockets_per_tenant),
        }
    }

    fn enter(&self, tenant: &Arc<str>) -> Result<Place, ApiError> {
        let all = self.all.enter(()).ok_or_else(|| {
            metrics::counter!("ssr_rejections_total", "tenant" => tenant.to_string(), "reason" => "websockets")
                .increment(1);
            ApiError::TryAgain(format!(
                "this server has its limit of {} WebSockets open (--max-websockets); try again later",
                self.all.max()
            ))
        })?;
        let tenant = self.tenants.enter(tenant.clone()).ok_or_else(|| {
            ApiError::TooMany(format!(
                "this site has its limit of {} WebSockets open (--max-websockets-per-tenant); close one first",
                self.tenants.max()
            ))
        })?;
        Ok(Place {
            _all: all,
            _tenant: tenant,
        })
    }
}

/// A request that asked for a WebSocket, while its render decides.
pub struct Upgrade {
    key: String,
    on_upgrade: OnUpgrade,
    ends: Ends,
    place: Place,
    /// Its connection's places, held while the socket is open.
    connection: Option<super::listen::Places>,
}

/// The socket a request asks for, if it asks (`Upgrade: websocket`), with
/// the render's half of it; a request that asks wrongly is refused with
/// what to fix, and one past the limits with which.
pub fn asked(
    parts: &mut Parts,
    tenant: &Arc<str>,
    places: &Places,
    config: &Config,
    unsent: &Arc<Unsent>,
) -> Result<Option<(Upgrade, Offer)>, ApiError> {
    let headers = &parts.headers;
    if !asks(headers) {
        return Ok(None);
    }
    let bad = |what: &str| Err(ApiError::BadRequest(format!("a WebSocket upgrade {what}")));
    if parts.method != Method::GET {
        return bad("must be a GET request");
    }
    if !has_token(headers, header::CONNECTION, "upgrade") {
        return bad("needs `Connection: Upgrade`");
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .map(HeaderValue::as_bytes)
        != Some(b"13")
    {
        return bad("needs `Sec-WebSocket-Version: 13`");
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .and_then(|v| v.to_str().ok())
        .filter(|k| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(k.trim())
                .is_ok_and(|b| b.len() == 16)
        });
    let Some(key) = key.map(|k| k.trim().to_string()) else {
        return bad("needs a `Sec-WebSocket-Key` of 16 bytes in base64");
    };
    let Some(on_upgrade) = parts.extensions.remove::<OnUpgrade>() else {
        return bad("needs HTTP/1.1");
    };
    let place = places.enter(tenant)?;
    let (offer, ends) = ws::offer(limits(config), config.request_timeout.duration(), unsent);
    let upgrade = Upgrade {
        key,
        on_upgrade,
        ends,
        place,
        connection: parts.extensions.remove::<super::listen::Places>(),
    };
    Ok(Some((upgrade, offer)))
}

fn limits(config: &Config) -> ws::Limits {
    ws::Limits {
        idle: config.websocket_idle.duration(),
        max_message: config.max_websocket_message_kib.bytes(),
        per_second: config.websocket_messages_per_sec,
    }
}

impl Upgrade {
    /// The response to a render that answered 101 with `head`: the switch,
    /// the render's headers with the handshake's, and the socket's task,
    /// which owns the render from now on.
    pub fn switch(
        self,
        tenant: &Arc<Tenant>,
        head: &contract::Response,
        frames: Frames,
        render: Render,
    ) -> Response {
        let mut resp = Response::new(Body::empty());
        *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        let h = resp.headers_mut();
        for (name, value) in &head.headers {
            let hop = [
                "connection",
                "upgrade",
                "content-length",
                "transfer-encoding",
            ];
            if hop.contains(&name.as_str()) || name.starts_with("sec-websocket-accept") {
                continue;
            }
            if let (Ok(n), Ok(v)) = (
                header::HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                h.append(n, v);
            }
        }
        let accept =
            tokio_tungstenite::tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
        if let Ok(v) = HeaderValue::from_str(&accept) {
            h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
        }
        tokio::spawn(pump(self, tenant.clone(), frames, render));
        resp
    }
}

/// How the client's side of a socket stands.
#[derive(PartialEq)]
enum Client {
    Open,
    /// The render sent a close, at this time: the client's answer is
    /// awaited for [`ws::GRACE`].
    Closing(Instant),
    /// Closed, or cut: nothing more is read or written.
    Gone,
}

/// One socket, from the switch until the client and the render have
/// both ended.
/// `frames`, the render's body channel, stays open meanwhile: its closing
/// would tell the render its client went away.
async fn pump(upgrade: Upgrade, tenant: Arc<Tenant>, frames: Frames, mut render: Render) {
    let Upgrade {
        on_upgrade,
        ends,
        place,
        connection,
        ..
    } = upgrade;
    let Ends {
        incoming,
        mut outgoing,
        limits,
    } = ends;
    let mut incoming = Some(incoming);
    let gauge = metrics::gauge!("ssr_websockets_open");
    gauge.increment(1.0);
    let socket = match on_upgrade.await {
        Ok(upgraded) => {
            let config = WebSocketConfig::default()
                .max_message_size(Some(limits.max_message))
                .max_frame_size(Some(limits.max_message));
            Some(
                WebSocketStream::from_raw_socket(
                    TokioIo::new(upgraded),
                    Role::Server,
                    Some(config),
                )
                .await,
            )
        }
        Err(e) => {
            tracing::debug!(tenant = %tenant.id, "a WebSocket upgrade failed: {e}");
            None
        }
    };
    let (mut tx, mut rx) = match socket {
        Some(socket) => {
            let (tx, rx) = socket.split();
            (Some(tx), Some(rx))
        }
        None => (None, None),
    };
    let mut client = if tx.is_some() {
        Client::Open
    } else {
        Client::Gone
    };
    if client == Client::Gone {
        tell(&mut incoming, Message::cut(1006, "")).await;
    }
    let mut last = Instant::now();
    let mut second = (Instant::now(), 0u32);
    let received = metrics::counter!("ssr_websocket_messages_total", "tenant" => tenant.id.to_string(), "from" => "client");
    let sent = metrics::counter!("ssr_websocket_messages_total", "tenant" => tenant.id.to_string(), "from" => "render");
    let ended = loop {
        let now = Instant::now();
        if now >= second.0 + Duration::from_secs(1) {
            second = (now, 0);
        }
        let reading = client == Client::Open && incoming.is_some() && second.1 < limits.per_second;
        let wake = match &client {
            Client::Closing(at) => *at + ws::GRACE,
            _ if !reading && client == Client::Open => second.0 + Duration::from_secs(1),
            _ => last + limits.idle,
        };
        tokio::select! {
            biased;
            out = &mut render => break out,
            out = outgoing.recv() => {
                let Some(out) = out else { continue };
                last = Instant::now();
                let Some(sink) = tx.as_mut().filter(|_| client != Client::Gone) else { continue };
                // Counted (`out`) until written.
                let Some(message) = out.message() else { continue };
                let close = matches!(out, Out::Close { .. });
                sent.increment(1);
                let written = sink.send(message).await;
                drop(out);
                if written.is_err() {
                    client = Client::Gone;
                    tell(&mut incoming, Message::cut(1006, "")).await;
                } else if close && client == Client::Open {
                    client = Client::Closing(Instant::now());
                }
            }
            message = next(&mut rx), if reading || matches!(client, Client::Closing(_)) => {
                last = Instant::now();
                second.1 += 1;
                match message {
                    Some(Ok(ws)) => match Message::received(ws) {
                        Some(close @ Message::Close { .. }) => {
                            client = Client::Gone;
                            tell(&mut incoming, close).await;
                        }
                        Some(message) => {
                            received.increment(1);
                            send(&mut incoming, message).await;
                        }
                        None => {}
                    },
                    Some(Err(tokio_tungstenite::tungstenite::Error::Capacity(e))) => {
                        let reason = format!("the message is over the server's limit: {e}");
                        let reason = reason.chars().take(120).collect::<String>();
                        if let Some(sink) = tx.as_mut() {
                            let _ = sink.send(Ws::Close(close_frame(1009, &reason))).await;
                        }
                        client = Client::Gone;
                        tell(&mut incoming, Message::cut(1009, &reason)).await;
                    }
                    Some(Err(_)) | None => {
                        client = Client::Gone;
                        tell(&mut incoming, Message::cut(1006, "")).await;
                    }
                }
            }
            () = tokio::time::sleep_until(wake.into()), if client != Client::Gone => {
                let now = Instant::now();
                if let Client::Closing(at) = client && now >= at + ws::GRACE {
                    client = Client::Gone;
                    tell(&mut incoming, Message::cut(1006, "")).await;
                } else if client == Client::Open && now >= last + limits.idle {
                    let reason = "the WebSocket was idle";
                    if let Some(sink) = tx.as_mut() {
                        let _ = sink.send(Ws::Close(close_frame(1001, reason))).await;
                    }
                    client = Client::Gone;
                    tell(&mut incoming, Message::cut(1001, reason)).await;
                }
            }
        }
    };
    // The render ended: what it sent goes out, then the close.
    let failed = ended.is_err();
    if let Some(sink) = tx.as_mut().filter(|_| client != Client::Gone) {
        while let Ok(out) = outgoing.try_recv() {
            let Some(message) = out.message() else {
                continue;
            };
            if sink.send(message).await.is_err() {
                break;
            }
        }
        let (code, reason) = match failed {
            true => (1011, "the server's handler failed"),
            false => (1000, ""),
        };
        let _ = sink.send(Ws::Close(close_frame(code, reason))).await;
    }
    if let Some(sink) = tx.as_mut() {
        let _ = tokio::time::timeout(ws::GRACE, sink.close()).await;
    }
    match ended {
        Ok(r) => counted(&tenant, &r),
        Err(e) => {
            failed_render(&tenant, e);
        }
    }
    gauge.decrement(1.0);
    drop((place, connection, frames));
}

type Reader = futures_util::stream::SplitStream<WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>>;

async fn next(
    rx: &mut Option<Reader>,
) -> Option<Result<Ws, tokio_tungstenite::tungstenite::Error>> {
    match rx {
        Some(rx) => rx.next().await,
        None => std::future::pending().await,
    }
}

/// A message from the client to the render; waits while the render has
/// [`ws::INCOMING`] not yet taken.
async fn send(incoming: &mut Option<tokio::sync::mpsc::Sender<Message>>, message: Message) {
    if let Some(tx) = incoming
        && tx.send(message).await.is_err()
    {
        *incoming = None;
    }
}

/// The close, told to the render; nothing follows it.
async fn tell(incoming: &mut Option<tokio::sync::mpsc::Sender<Message>>, close: Message) {
    send(incoming, close).await;
    *incoming = None;
}
