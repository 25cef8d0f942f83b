//! A WebSocket a render answered with (a `Response` of status 101 with a
//! `webSocket`, one end of a `WebSocketPair`): the render's side. The
//! connection's side, the protocol on the client's socket, is
//! `http/websocket.rs`; between them two channels of [`Message`]s, made
//! per request by [`offer`] when the client asked to upgrade.
//!
//! The client side (`new WebSocket(url)`, `fetch` with `Upgrade:
//! websocket`) is `websocket_client.rs`, over this file's [`Channel`].
//!
//! Lifetime: the [`Offer`] goes with the request's body channel
//! (`stream.rs`'s `Sink`) into the render, where `Imports` keeps it as a
//! [`Socket`] for that render. It becomes a live socket when the render
//! sends its 101 head ([`Socket::upgrade`]), and ends with the render: the
//! driver (`wit/prelude/33_driver.js`) reads messages until the close.
//!
//! Invariants:
//! - A socket's render is not held to a page's limits once upgraded: it
//!   may live as long as messages come or go, each time for the idle time
//!   more ([`Renewal`]), and each message from the client gives it the
//!   tenant's CPU time for a render again (the event that Cloudflare bills
//!   as a request). Waiting costs nothing.
//! - What the render sends waits in the server's `--max-unsent-mib` count
//!   and the socket's own bound ([`Limits::max_buffered`]) until the
//!   connection writes it: a send past either is refused, so a client that
//!   never reads costs a bounded amount.
//! - What the client sends waits in a channel of [`INCOMING`] messages: the
//!   connection reads no more while it is full, so a renderer that is slow
//!   to take them slows its client.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use contract::Reply;
use tokio::sync::mpsc;

use crate::unsent::{Paced, Unsent, Window};

/// Messages from the client that may wait for the render to take them.
pub const INCOMING: usize = 16;

/// How long past its idle time a socket's render may run to end after the
/// connection closed it (its `close` handler).
pub const GRACE: Duration = Duration::from_secs(5);

/// A message, either way.
#[derive(Debug)]
pub enum Message {
    Text(String),
    Binary(Bytes),
    /// The closing handshake: a code (1005: none given), its reason, and
    /// whether the connection closed cleanly (a close frame, not a cut).
    Close {
        code: u16,
        reason: String,
        clean: bool,
    },
}

impl Message {
    /// A message as the protocol read it from a peer; none for a ping or
    /// a pong (the protocol answers those itself).
    pub fn received(ws: tokio_tungstenite::tungstenite::Message) -> Option<Message> {
        use tokio_tungstenite::tungstenite::Message as Ws;
        Some(match ws {
            Ws::Text(t) => Message::Text(t.as_str().to_string()),
            Ws::Binary(b) => Message::Binary(b),
            Ws::Close(f) => {
                let (code, reason) = f.map_or((1005, String::new()), |f| {
                    (f.code.into(), f.reason.as_str().to_string())
                });
                Message::Close {
                    code,
                    reason,
                    clean: true,
                }
            }
            _ => return None,
        })
    }

    /// The close of a connection that ended without one (1006), or that
    /// the host ended itself (`code`, `reason`).
    pub fn cut(code: u16, reason: &str) -> Message {
        Message::Close {
            code,
            reason: reason.to_string(),
            clean: false,
        }
    }
}

/// A message the render sent, counted until the connection writes it.
#[derive(Debug)]
pub enum Out {
    Text(Paced),
    Binary(Paced),
    Close { code: u16, reason: String },
}

/// A socket's limits (`config.rs`: `--websocket-*`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// With no message either way this long, the connection closes it.
    pub idle: Duration,
    /// The largest message either way.
    pub max_message: usize,
    /// Messages the client may send per second; the connection reads no
    /// faster.
    pub per_second: u32,
}

impl Limits {
    /// Bytes the render may have sent and the client not yet read.
    pub fn max_buffered(&self) -> usize {
        (2 * self.max_message).max(16 << 20)
    }
}

/// The render's half of a socket offered to it.
pub struct Offer {
    incoming: mpsc::Receiver<Message>,
    pub(super) outgoing: mpsc::UnboundedSender<Out>,
    pub(super) window: Arc<Window>,
    pub(super) unsent: Arc<Unsent>,
    limits: Limits,
    /// The render's time to answer the upgrade (a page's).
    pub answer_within: Duration,
    /// Run once the render upgrades: its tenant's concurrency permit goes
    /// back (`pool`), since a socket that waits holds no core.
    on_upgrade: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl std::fmt::Debug for Offer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offer")
            .field("limits", &self.limits)
            .finish()
    }
}

impl Offer {
    /// `release` runs once the render upgrades.
    pub fn on_upgrade(&mut self, release: impl FnOnce() + Send + Sync + 'static) {
        self.on_upgrade = Some(Box::new(release));
    }
}

/// The connection's half.
pub struct Ends {
    pub incoming: mpsc::Sender<Message>,
    pub outgoing: mpsc::UnboundedReceiver<Out>,
    pub limits: Limits,
}

/// A socket's two halves, for a render that is to answer within
/// `answer_within`, its messages counted in `unsent`.
pub fn offer(limits: Limits, answer_within: Duration, unsent: &Arc<Unsent>) -> (Offer, Ends) {
    let (in_tx, in_rx) = mpsc::channel(INCOMING);
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let offer = Offer {
        incoming: in_rx,
        outgoing: out_tx,
        window: Arc::default(),
        unsent: unsent.clone(),
        limits,
        answer_within,
        on_upgrade: None,
    };
    let ends = Ends {
        incoming: in_tx,
        outgoing: out_rx,
        limits,
    };
    (offer, ends)
}

/// New limits for a render in progress: its wall-clock deadline, and
/// whether its CPU time is whole again. The engines apply it after each
/// host call (`Imports::take_renewal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renewal {
    pub deadline: Instant,
    pub cpu: bool,
}

/// One socket's two directions as the render sees them: what it sends,
/// counted until the connection writes it, and what it reads.
pub(super) struct Channel {
    pub(super) incoming: Arc<tokio::sync::Mutex<mpsc::Receiver<Message>>>,
    pub(super) outgoing: mpsc::UnboundedSender<Out>,
    pub(super) window: Arc<Window>,
    pub(super) unsent: Arc<Unsent>,
    pub(super) max_message: usize,
    pub(super) max_buffered: usize,
    /// A message from the peer reached the render since the last
    /// renewal (set by a read's answer, on the fetch runtime).
    pub(super) arrived: Arc<AtomicBool>,
}

/// A read's answer, to come by `fetch-wait`.
pub(super) type Answer =
    std::pin::Pin<Box<dyn Future<Output = Result<(String, Vec<u8>), String>> + Send>>;

impl Channel {
    /// One message out; `text`: UTF-8 text.
    pub(super) fn send(&self, text: bool, data: &[u8]) -> Result<(), String> {
        if data.len() > self.max_message {
            return Err(format!(
                "WebSocket send(): the message is {} bytes, over the limit of {} KiB (--max-websocket-message-kib)",
                data.len(),
                self.max_message >> 10
            ));
        }
        if self.window.bytes() + data.len() > self.max_buffered {
            return Err(format!(
                "WebSocket send(): the peer has not read the last {} MiB sent; wait for it (a client that reads nothing is closed at the idle time)",
                self.max_buffered >> 20
            ));
        }
        if text && std::str::from_utf8(data).is_err() {
            return Err(format!(
                "{}: a text message that is not UTF-8",
                contract::calls::WEBSOCKET
            ));
        }
        let paced = Paced::hold(Bytes::copy_from_slice(data), &self.unsent)
            .map_err(|_| {
                format!(
                    "WebSocket send(): the server holds its limit of {} MiB for peers that read slowly (--max-unsent-mib)",
                    self.unsent.limit() >> 20
                )
            })?
            .in_window(&self.window);
        let out = if text {
            Out::Text(paced)
        } else {
            Out::Binary(paced)
        };
        self.outgoing
            .send(out)
            .map_err(|_| "WebSocket send(): the connection is closed".to_string())
    }

    pub(super) fn close(&self, code: u16, reason: String) {
        let _ = self.outgoing.send(Out::Close { code, reason });
    }

    /// The peer's next message: `{text}` with its bytes, or `{close, code,
    /// reason, clean}`.
    pub(super) fn read(&self) -> Answer {
        let (incoming, arrived) = (self.incoming.clone(), self.arrived.clone());
        Box::pin(async move {
            let message = incoming.lock().await.recv().await;
            arrived.store(true, Ordering::Relaxed);
            Ok(match message {
                Some(Message::Text(text)) => ("{\"text\":true}".into(), text.into_bytes()),
                Some(Message::Binary(bytes)) => ("{\"text\":false}".into(), bytes.into()),
                Some(Message::Close {
                    code,
                    reason,
                    clean,
                }) => (close_json(code, &reason, clean), Vec::new()),
                // The connection ended without a word.
                None => (close_json(1006, "", false), Vec::new()),
            })
        })
    }
}

/// A socket offered to the render in progress, as `Imports` keeps it.
pub struct Socket {
    pub(super) channel: Channel,
    /// The id of the render's read in flight, answered by the wait
    /// itself ([`Socket::next_read`]): no task between the client and
    /// the render.
    pub(super) reading: Option<u64>,
    limits: Limits,
    on_upgrade: Option<Box<dyn FnOnce() + Send + Sync>>,
    pub(super) upgraded: bool,
}

impl From<Offer> for Socket {
    fn from(o: Offer) -> Socket {
        Socket {
            channel: Channel {
                incoming: Arc::new(tokio::sync::Mutex::new(o.incoming)),
                outgoing: o.outgoing,
                window: o.window,
                unsent: o.unsent,
                max_message: o.limits.max_message,
                max_buffered: o.limits.max_buffered(),
                arrived: Arc::default(),
            },
            reading: None,
            limits: o.limits,
            on_upgrade: o.on_upgrade,
            upgraded: false,
        }
    }
}

impl Socket {
    /// The render sent its 101 head: the socket is live. What it may now
    /// take ([`Renewal`]).
    pub fn upgrade(&mut self) -> Renewal {
        self.upgraded = true;
        if let Some(release) = self.on_upgrade.take() {
            release();
        }
        self.renewal(true)
    }

    /// The render may run for the idle time more (and the grace after),
    /// with its CPU time whole again if `cpu`.
    pub(super) fn renewal(&self, cpu: bool) -> Renewal {
        Renewal {
            deadline: Instant::now() + self.limits.idle + GRACE,
            cpu,
        }
    }

    /// The answer of the read in flight, once the client's next message
    /// (or its close) is here, as `fetch-wait` gives a request's: `{id,
    /// answer}` with the message's bytes. Pending while none is in flight.
    pub async fn next_read(&mut self) -> Result<Reply, String> {
        let Some(id) = self.reading else {
            return std::future::pending().await;
        };
        let (answer, data) = self.channel.read().await?;
        self.reading = None;
        Ok(Reply {
            value: format!("{{\"id\":{id},\"answer\":{answer}}}"),
            data,
        })
    }

    /// What a message that reached the render since the last call renews.
    pub fn arrived(&self) -> Option<Renewal> {
        self.channel
            .arrived
            .swap(false, Ordering::Relaxed)
            .then(|| self.renewal(true))
    }
}

/// Why a 101 or a socket's call is refused where the client asked for no
/// WebSocket.
pub fn not_asked(name: &str) -> String {
    format!(
        "{name}: a Response of status 101 answers only a request that asked to upgrade to a WebSocket (`Upgrade: websocket`)"
    )
}

impl Out {
    /// As the protocol's message: none for text that is not UTF-8 (its
    /// sender refused it already).
    pub fn message(&self) -> Option<tokio_tungstenite::tungstenite::Message> {
        use tokio_tungstenite::tungstenite::Message as Ws;
        Some(match self {
            Out::Text(p) => Ws::Text(
                tokio_tungstenite::tungstenite::Utf8Bytes::try_from(p.bytes().clone()).ok()?,
            ),
            Out::Binary(p) => Ws::Binary(p.bytes().clone()),
            Out::Close { code, reason } => Ws::Close(close_frame(*code, reason)),
        })
    }
}

/// A close frame: none for 1005 (no code), as the protocol has it.
pub fn close_frame(
    code: u16,
    reason: &str,
) -> Option<tokio_tungstenite::tungstenite::protocol::CloseFrame> {
    (code != 1005).then(|| tokio_tungstenite::tungstenite::protocol::CloseFrame {
        code: code.into(),
        reason: reason.to_string().into(),
    })
}

fn close_json(code: u16, reason: &str, clean: bool) -> String {
    serde_json::json!({ "close": true, "code": code, "reason": reason, "clean": clean }).to_string()
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            idle: Duration::from_secs(60),
            max_message: 1024,
            per_second: 10,
        }
    }

    fn call(socket: &mut Socket, args: &str, data: &[u8]) -> Result<Option<Renewal>, String> {
        let tenant: Arc<str> = Arc::from("t");
        let reach = super::super::websocket_client::Reach {
            socket: Some(socket),
            clients: &mut Default::default(),
            subrequests: &mut super::super::fetch::Subrequests::new(&tenant),
            grant: &Default::default(),
        };
        super::super::websocket_client::call(reach, args, data).map(|(_, renewal)| renewal)
    }

    fn a_socket_opens_once_upgraded_and_sends_within_its_bounds() {
        let unsent = Unsent::new(64 << 20);
        let (mut offer, mut ends) = offer(limits(), Duration::from_secs(1), &unsent);
        let released = Arc::new(AtomicBool::new(false));
        let flag = released.clone();
        offer.on_upgrade(move || flag.store(true, Ordering::Relaxed));
        let mut socket = Socket::from(offer);
        let send = r#"{"op":"send","text":true}"#;
        let err = call(&mut socket, send, b"hi").unwrap_err();
        assert!(err.contains("not open"), "{err}");
        let renewal = socket.upgrade();
        assert!(renewal.cpu && released.load(Ordering::Relaxed));
        let renewed = call(&mut socket, send, b"hi").unwrap().unwrap();
        assert!(!renewed.cpu && renewed.deadline >= renewal.deadline);
        assert!(matches!(ends.outgoing.try_recv(), Ok(Out::Text(p)) if &p.bytes()[..] == b"hi"));
        let err = call(&mut socket, send, &[b'x'; 1025]).unwrap_err();
        assert!(err.contains("--max-websocket-message-kib"), "{err}");
        let err = call(&mut socket, send, &[0xff]).unwrap_err();
        assert!(err.contains("not UTF-8"), "{err}");
        // Unread by the client: counted until the bound refuses more.
        let binary = r#"{"op":"send","text":false}"#;
        let mut sent = 0;
        while call(&mut socket, binary, &[0; 1024]).is_ok() {
            sent += 1024;
        }
        assert_eq!(sent, limits().max_buffered());
        assert_eq!(unsent.bytes(), sent);
        while ends.outgoing.try_recv().is_ok() {}
        assert_eq!(
            unsent.bytes(),
            0,
            "what the connection took is no longer counted"
        );
        assert!(call(&mut socket, binary, &[0; 1024]).is_ok());
        call(
            &mut socket,
            r#"{"op":"close","code":1000,"reason":"done"}"#,
            b"",
        )
        .unwrap();
        assert!(matches!(ends.outgoing.try_recv(), Ok(Out::Binary(_))));
        assert!(
            matches!(ends.outgoing.try_recv(), Ok(Out::Close { code: 1000, reason }) if reason == "done")
        );
        let err = call(&mut socket, r#"{"op":"listen"}"#, b"").unwrap_err();
        assert!(err.starts_with("websocket: bad arguments"), "{err}");
    }

    crate::unit_tests!(a_socket_opens_once_upgraded_and_sends_within_its_bounds);
}
