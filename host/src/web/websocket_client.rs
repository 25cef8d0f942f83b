//! WebSockets a render opens as a client (`new WebSocket(url)`, and
//! `fetch` with `Upgrade: websocket`), and `calls::WEBSOCKET`, which
//! reaches them and the socket offered to the render (`websocket.rs`).
//!
//! Invariants:
//! - Deny by default: a connection opens only to an origin the tenant was
//!   granted as its HTTP origin (`ws://h` as `http://h`), to public
//!   addresses unless granted as an IP literal (`socket.rs`'s `connect`),
//!   and counts as one of the render's subrequests.
//! - No connection outlives its render: [`Clients::clear`] aborts each
//!   task, which closes its connection; opening ends at the render's
//!   deadline.
//! - A message either way is at most [`CLIENT_MAX_MESSAGE`]; the render's
//!   sends wait (counted) at most 16 of them for the peer to read.

use std::sync::Arc;

use contract::Reply;
use tokio::sync::mpsc;

use super::fetch::{FetchGrant, Subrequests};
use super::websocket::{Answer, Channel, Ends, INCOMING, Message, Out, Renewal, Socket, not_asked};
use crate::unsent::Unsent;

/// The arguments of `calls::WEBSOCKET`. Without an `id`, an op is the
/// offered socket's; with one, a client connection's.
#[derive(serde::Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Op {
    /// A message, its bytes the call's; `text`: UTF-8 text.
    Send {
        text: bool,
        #[serde(default)]
        id: Option<u64>,
    },
    Close {
        code: u16,
        reason: String,
        #[serde(default)]
        id: Option<u64>,
    },
    /// The peer's next message.
    Read {
        #[serde(default)]
        id: Option<u64>,
    },
    /// Opens a client connection to `url` (`ws:` or `wss:`) asking for
    /// `protocols`, with `headers`; answered once open.
    Connect {
        url: String,
        #[serde(default)]
        protocols: Vec<String>,
        #[serde(default)]
        headers: Vec<(String, String)>,
    },
}

/// What a render needs of the rest of its imports for `calls::WEBSOCKET`.
pub struct Reach<'a> {
    pub socket: Option<&'a mut Socket>,
    pub clients: &'a mut Clients,
    pub subrequests: &'a mut Subrequests,
    pub grant: &'a FetchGrant,
}

/// `calls::WEBSOCKET`: a send or close answers at once (the offered
/// socket's with the renewal a message out gives); a read or a connect
/// by `fetch-wait`, as a request's answer.
pub fn call(reach: Reach<'_>, args: &str, data: &[u8]) -> Result<(Reply, Option<Renewal>), String> {
    let name = contract::calls::WEBSOCKET;
    let op: Op =
        serde_json::from_str(args).map_err(|e| format!("{name}: bad arguments {args:?}: {e}"))?;
    let Reach {
        socket,
        clients,
        subrequests,
        grant,
    } = reach;
    let id = match &op {
        Op::Send { id, .. } | Op::Close { id, .. } | Op::Read { id } => *id,
        Op::Connect {
            url,
            protocols,
            headers,
        } => {
            let answer = clients.connect(url, protocols, headers, subrequests, grant)?;
            return Ok((subrequests.answer(answer)?, None));
        }
    };
    let (channel, renewal, reading) = match id {
        Some(id) => {
            let client = clients
                .open
                .get(&id)
                .ok_or_else(|| format!("{name}: no WebSocket {id} is open in this request"))?;
            (&client.channel, None, None)
        }
        None => {
            let socket = socket.ok_or_else(|| not_asked(name))?;
            if !socket.upgraded {
                return Err(format!(
                    "{name}: the WebSocket is not open: return it in a Response of status 101 first"
                ));
            }
            let renewal = socket.renewal(false);
            let Socket {
                channel, reading, ..
            } = socket;
            (&*channel, Some(renewal), Some(reading))
        }
    };
    match op {
        Op::Send { text, .. } => {
            channel.send(text, data)?;
            Ok((Reply::default(), renewal))
        }
        Op::Close { code, reason, .. } => {
            channel.close(code, reason);
            Ok((Reply::default(), None))
        }
        // The offered socket's is answered by the wait itself
        // (`Socket::next_read`).
        Op::Read { id: None } => {
            let id = subrequests.take_id();
            if let Some(s) = reading {
                *s = Some(id);
            }
            Ok((super::fetch::id_reply(id), None))
        }
        Op::Read { .. } => Ok((subrequests.answer(channel.read())?, None)),
        Op::Connect { .. } => unreachable!("answered above"),
    }
}

/// The largest message a client connection takes either way, as
/// Cloudflare's.
pub const CLIENT_MAX_MESSAGE: usize = 1 << 20;

/// The WebSockets a render opened as a client (`new WebSocket(url)`, and
/// `fetch` with `Upgrade: websocket`), by id: each one of its
/// subrequests, to an origin it was granted, closed when the render ends.
#[derive(Default)]
pub struct Clients {
    open: std::collections::HashMap<u64, Client>,
    next: u64,
}

struct Client {
    channel: Channel,
    /// What carries its messages, ended with it; none for a Durable
    /// Object's socket, whose directory carries them.
    task: Option<tokio::task::AbortHandle>,
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl Clients {
    /// The render ended: every connection closes.
    pub fn clear(&mut self) {
        self.open.clear();
    }

    /// A connection of the render's whose other side is in the host (a
    /// Durable Object's socket, `bindings/objects/`): its id, and the other
    /// side's ends, what reaches the render and what the render sends.
    pub fn attach(&mut self) -> (u64, Ends) {
        let (in_tx, in_rx) = mpsc::channel(INCOMING);
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        self.next += 1;
        let id = self.next;
        let channel = Channel {
            incoming: Arc::new(tokio::sync::Mutex::new(in_rx)),
            outgoing: out_tx,
            window: Arc::default(),
            unsent: Unsent::new(CLIENT_MAX_MESSAGE * 16),
            max_message: CLIENT_MAX_MESSAGE,
            max_buffered: CLIENT_MAX_MESSAGE * 16,
            arrived: Arc::default(),
        };
        self.open.insert(
            id,
            Client {
                channel,
                task: None,
            },
        );
        let ends = Ends {
            incoming: in_tx,
            outgoing: out_rx,
            limits: super::websocket::Limits {
                idle: std::time::Duration::MAX,
                max_message: CLIENT_MAX_MESSAGE,
                per_second: u32::MAX,
            },
        };
        (id, ends)
    }

    fn connect(
        &mut self,
        url: &str,
        protocols: &[String],
        headers: &[(String, String)],
        subrequests: &mut Subrequests,
        grant: &FetchGrant,
    ) -> Result<Answer, String> {
        let mut target =
            reqwest::Url::parse(url).map_err(|_| format!("WebSocket: `{url}` is not a URL"))?;
        let tls = match target.scheme() {
            "ws" | "http" => false,
            "wss" | "https" => true,
            other => {
                return Err(format!(
                    "WebSocket: a URL of scheme {other}: is not a WebSocket's; use ws: or wss:"
                ));
            }
        };
        // Granted as its HTTP origin, as `fetch` of it would be.
        let mut http = target.clone();
        let _ = http.set_scheme(if tls { "https" } else { "http" });
        subrequests.granted(grant, &http)?;
        subrequests.admit(grant, "new WebSocket()")?;
        let _ = target.set_scheme(if tls { "wss" } else { "ws" });
        let mut request =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                target.as_str(),
            )
            .map_err(|e| format!("WebSocket: {e}"))?;
        let skip = |n: &str| {
            let n = n.to_ascii_lowercase();
            n.starts_with("sec-websocket-")
                || ["host", "upgrade", "connection", "content-length"].contains(&n.as_str())
        };
        for (name, value) in headers.iter().filter(|(n, _)| !skip(n)) {
            if let (Ok(n), Ok(v)) = (
                tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes()),
                tokio_tungstenite::tungstenite::http::HeaderValue::from_str(value),
            ) {
                request.headers_mut().append(n, v);
            }
        }
        if !protocols.is_empty()
            && let Ok(v) =
                tokio_tungstenite::tungstenite::http::HeaderValue::from_str(&protocols.join(", "))
        {
            request.headers_mut().insert("sec-websocket-protocol", v);
        }
        let (id, ends) = self.attach();
        let (in_tx, out_rx) = (ends.incoming, ends.outgoing);
        let (opened_tx, opened_rx) = tokio::sync::oneshot::channel();
        let host = target
            .host_str()
            .unwrap_or("")
            .trim_matches(['[', ']'])
            .to_string();
        let port = target
            .port_or_known_default()
            .unwrap_or(if tls { 443 } else { 80 });
        let deadline = subrequests.deadline();
        let net = super::fetch::net().map_err(|e| e.to_string())?;
        let task = net.runtime.spawn(async move {
            let opening = async {
                let tcp = super::socket::connect(&host, port).await?;
                let conn = match tls {
                    true => super::socket::secure(tcp, &host).await?,
                    false => super::socket::Conn::Plain(tcp),
                };
                let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
                    .max_message_size(Some(CLIENT_MAX_MESSAGE))
                    .max_frame_size(Some(CLIENT_MAX_MESSAGE));
                tokio_tungstenite::client_async_with_config(request, conn, Some(config))
                    .await
                    .map_err(|e| match e {
                        // The server answered, but not 101: that answer.
                        tokio_tungstenite::tungstenite::Error::Http(r) => Refusal::Answered(*r),
                        e => Refusal::Failed(format!(
                            "WebSocket connection to {host}:{port} failed: {e}"
                        )),
                    })
            };
            let opened = tokio::time::timeout_at(deadline.into(), opening).await;
            let (socket, response) = match opened {
                Ok(Ok(open)) => open,
                Ok(Err(e)) => return drop(opened_tx.send(Err(e))),
                Err(_) => {
                    let e = "WebSocket: the request's deadline passed while connecting".to_string();
                    return drop(opened_tx.send(Err(Refusal::Failed(e))));
                }
            };
            let protocol = response
                .headers()
                .get("sec-websocket-protocol")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            if opened_tx.send(Ok(protocol)).is_ok() {
                carry(socket, in_tx, out_rx).await;
            }
        });
        if let Some(client) = self.open.get_mut(&id) {
            client.task = Some(task.abort_handle());
        }
        Ok(Box::pin(async move {
            match opened_rx.await {
                Ok(Ok(protocol)) => Ok((
                    serde_json::json!({ "id": id, "protocol": protocol }).to_string(),
                    Vec::new(),
                )),
                // What `fetch` answers (its status, headers and body);
                // `new WebSocket` fails on it.
                Ok(Err(Refusal::Answered(r))) => {
                    let headers: Vec<(&str, &str)> = r
                        .headers()
                        .iter()
                        .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)))
                        .collect();
                    let answer =
                        serde_json::json!({ "status": r.status().as_u16(), "headers": headers });
                    Ok((answer.to_string(), r.body().clone().unwrap_or_default()))
                }
                Ok(Err(Refusal::Failed(e))) => Err(e),
                Err(_) => Err("WebSocket: the connection was dropped".into()),
            }
        }))
    }
}

/// Why a client connection did not open.
enum Refusal {
    /// The server answered this instead of 101.
    Answered(tokio_tungstenite::tungstenite::http::Response<Option<Vec<u8>>>),
    Failed(String),
}

impl From<String> for Refusal {
    fn from(why: String) -> Refusal {
        Refusal::Failed(why)
    }
}

/// A client connection's messages both ways, until either side closes or
/// the render drops it.
async fn carry<S>(
    socket: tokio_tungstenite::WebSocketStream<S>,
    incoming: mpsc::Sender<Message>,
    mut outgoing: mpsc::UnboundedReceiver<Out>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use futures_util::{SinkExt, StreamExt};
    let (mut tx, mut rx) = socket.split();
    loop {
        tokio::select! {
            out = outgoing.recv() => {
                let Some(out) = out else { break };
                let Some(message) = out.message() else { continue };
                let written = tx.send(message).await;
                drop(out);
                if written.is_err() {
                    let _ = incoming.send(Message::cut(1006, "")).await;
                    break;
                }
            }
            message = rx.next() => {
                let message = match message {
                    Some(Ok(ws)) => match Message::received(ws) {
                        Some(message) => message,
                        None => continue,
                    },
                    Some(Err(_)) | None => Message::cut(1006, ""),
                };
                let close = matches!(message, Message::Close { .. });
                if incoming.send(message).await.is_err() || close {
                    // The protocol's answer to the peer's close goes out.
                    let _ = tx.flush().await;
                    break;
                }
            }
        }
    }
}
