//! Outbound TCP sockets for renderers: Workers' `connect()` (the module
//! `cloudflare:sockets`), and `node:net` and `node:tls` over it. The host
//! opens and drives each connection; the guest only says what to do and
//! hears what happened, through the render's wait (`fetch-wait`).
//!
//! Invariants:
//! - Deny by default: a connection opens only to an address the tenant was
//!   granted as `tcp://HOST:PORT` (among its fetch grants, [`Origin`]), and
//!   a granted name reaches only public addresses, as `fetch`'s do
//!   ([`super::fetch::is_public`]); a private address is reached only by
//!   granting it as an IP literal.
//! - A connection counts as one of the render's subrequests, and every byte
//!   it reads is taken from the render's response budget (`fetch.rs`'s
//!   [`Budget`]), as `fetch`'s are.
//! - Nothing is read from the network before the guest asks (`read`), and
//!   a socket has at most one chunk read and one write outstanding: a slow
//!   reader holds the peer back by TCP's own flow control, never the host's
//!   memory.
//! - No connection outlives its render: [`Sockets::end_render`] drops every
//!   task, which closes its connection; opening and TLS handshakes end at
//!   the render's deadline.
//! - TLS (`secureTransport: "on"`, or `startTls()` on a `"starttls"`
//!   socket) is rustls with the Mozilla roots (`webpki-roots`), verifying
//!   the name the guest connected to (or the one it expects).
//!
//! Lifetimes: the tasks run on the outbound runtime of `fetch.rs` ([`net`]);
//! [`Sockets`] belongs to one instance.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use contract::Reply;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf, WriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::fetch::{Budget, FetchGrant, Origin, net, public_only};

/// The most bytes one `read` brings.
const CHUNK: usize = 64 << 10;

/// The most sockets connected at once in one render: as on Workers, six;
/// one opened past them waits, unconnected, until another closes.
pub const MAX_OPEN: usize = 6;

/// What the guest asks of its sockets (`contract::calls::SOCKET`).
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Op {
    /// Connects to `hostname:port`, with TLS at once when `tls`.
    Open {
        hostname: String,
        port: u16,
        tls: bool,
    },
    /// Reads the next chunk; its bytes come as a `data` event.
    Read { id: u64 },
    /// Writes the call's bytes; a `wrote` event says they went out.
    Write { id: u64 },
    /// Ends the writing side (a FIN); reading goes on.
    Shutdown { id: u64 },
    /// Starts TLS on the connection, verifying `hostname`; `opened` again
    /// when the handshake is done.
    Tls { id: u64, hostname: String },
    /// Closes the connection at once.
    Close { id: u64 },
}

/// One thing that happened to a socket, as the wait reports it.
#[derive(Serialize, Debug, Default)]
pub struct Event {
    pub socket: u64,
    /// `opened`, `data` (its bytes as the reply's; none at the end of the
    /// stream), `wrote`, `error`.
    pub event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub end: bool,
    /// How long the wait that brought it waited, in milliseconds, as
    /// `fetch-wait` says of every answer.
    pub waited: u64,
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl Event {
    fn new(socket: u64, event: &'static str) -> Event {
        Event {
            socket,
            event,
            ..Event::default()
        }
    }

    fn error(socket: u64, error: String) -> Event {
        Event {
            error: Some(error),
            ..Event::new(socket, "error")
        }
    }
}

/// What a socket's task is told to do.
enum Command {
    Read,
    Write(Vec<u8>),
    Shutdown,
    Tls(String),
}

/// One instance's sockets: those open in the render in progress.
pub struct Sockets {
    next_id: u64,
    open: HashMap<u64, Open>,
    /// The render's places for connections ([`MAX_OPEN`]): a socket's task
    /// holds one from before it connects until it ends.
    places: Arc<tokio::sync::Semaphore>,
    events_tx: mpsc::UnboundedSender<Event>,
    events_rx: mpsc::UnboundedReceiver<Event>,
}

/// A socket's task and the way to tell it what to do.
struct Open {
    commands: mpsc::UnboundedSender<Command>,
    task: tokio::task::AbortHandle,
}

impl Drop for Sockets {
    fn drop(&mut self) {
        self.end_render();
    }
}

impl Default for Sockets {
    fn default() -> Self {
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        Sockets {
            next_id: 1,
            open: HashMap::new(),
            places: Arc::new(tokio::sync::Semaphore::new(MAX_OPEN)),
            events_tx,
            events_rx,
        }
    }
}

/// What one render lends its sockets: its grant, byte budget and deadline.
pub struct Lent<'a> {
    pub grant: &'a FetchGrant,
    pub budget: Arc<Budget>,
    pub deadline: Instant,
    pub tenant: &'a str,
}

impl Sockets {
    /// The render ended: every connection closes, and what came for it
    /// and was never heard is dropped.
    pub fn end_render(&mut self) {
        for (_, open) in self.open.drain() {
            open.task.abort();
        }
        while self.events_rx.try_recv().is_ok() {}
        self.places = Arc::new(tokio::sync::Semaphore::new(MAX_OPEN));
    }

    /// The next event of any socket; pending for ever while none comes.
    async fn next(&mut self) -> Event {
        match self.events_rx.recv().await {
            Some(event) => {
                if event.event == "error" {
                    // Its task ended, and this was its last word.
                    self.open.remove(&event.socket);
                }
                event
            }
            // Never: `self` holds a sender.
            None => std::future::pending().await,
        }
    }

    /// The next event of any socket as `fetch-wait`'s answer, its bytes as
    /// the reply's, for a wait that started at `started`.
    pub async fn next_reply(&mut self, started: Instant) -> Result<Reply, String> {
        let mut event = self.next().await;
        event.waited = started.elapsed().as_millis() as u64;
        let data = std::mem::take(&mut event.data);
        let value = serde_json::to_string(&event).map_err(|e| e.to_string())?;
        Ok(Reply { value, data })
    }

    /// `contract::calls::SOCKET`: answers `{id}` for `open`, and nothing
    /// for the others, whose outcome comes as events. `lent` is asked for
    /// only when a socket opens (it counts as a subrequest).
    pub fn call<'a>(
        &mut self,
        args: &str,
        data: &[u8],
        lend: impl FnOnce() -> Result<Lent<'a>, String>,
    ) -> Result<Reply, String> {
        let name = contract::calls::SOCKET;
        let op: Op = serde_json::from_str(args)
            .map_err(|e| format!("{name}: bad arguments {args:?}: {e}"))?;
        let (id, command) = match op {
            Op::Open {
                hostname,
                port,
                tls,
            } => return self.open(&hostname, port, tls, lend()?),
            Op::Read { id } => (id, Command::Read),
            Op::Write { id } => (id, Command::Write(data.to_vec())),
            Op::Shutdown { id } => (id, Command::Shutdown),
            Op::Tls { id, hostname } => (id, Command::Tls(hostname)),
            Op::Close { id } => {
                if let Some(open) = self.open.remove(&id) {
                    open.task.abort();
                }
                return Ok(Reply::default());
            }
        };
        let open = self
            .open
            .get(&id)
            .ok_or_else(|| "the socket is closed".to_string())?;
        open.commands
            .send(command)
            .map_err(|_| "the socket is closed".to_string())?;
        Ok(Reply::default())
    }

    fn open(&mut self, hostname: &str, port: u16, tls: bool, lent: Lent) -> Result<Reply, String> {
        let host = hostname
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(hostname)
            .to_ascii_lowercase();
        let origin: Origin = format!("tcp://{}:{port}", bracketed(&host))
            .parse()
            .map_err(|_| format!("connect to {hostname}:{port}: not a host name"))?;
        if !lent.grant.allowed.contains(&origin) {
            return Err(format!(
                "connect to {hostname}:{port}: the address is not allowed for this site; grant it with `ssr tenant add ... --allow-fetch {origin}`"
            ));
        }
        let left = lent.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "connect to {hostname}:{port}: the render's deadline has passed"
            ));
        }
        let net = net().map_err(|e| e.to_string())?;
        let id = self.next_id;
        self.next_id += 1;
        let (commands, rx) = mpsc::unbounded_channel();
        let events = self.events_tx.clone();
        let budget = lent.budget;
        let tenant = lent.tenant.to_string();
        let places = self.places.clone();
        let task = net.runtime.spawn(async move {
            let run = Run { id, events, budget };
            let until = tokio::time::Instant::now() + left;
            // Held until the task ends (the connection closes).
            let Ok(_place) = places.acquire_owned().await else {
                return;
            };
            let opened = tokio::time::timeout_at(until, connect(&host, port))
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "connect to {host}:{port}: the render's deadline passed while connecting"
                    ))
                });
            let stream = match opened {
                Ok(s) => s,
                Err(e) => {
                    tracing::info!(tenant, "connect failed: {e}");
                    return run.send(Event::error(id, e));
                }
            };
            metrics::counter!("ssr_sockets_opened_total", "tenant" => tenant).increment(1);
            run.drive(stream, tls.then_some(host), rx).await;
        });
        self.open.insert(
            id,
            Open {
                commands,
                task: task.abort_handle(),
            },
        );
        Ok(Reply {
            value: serde_json::json!({ "id": id }).to_string(),
            data: Vec::new(),
        })
    }
}

/// `host` as a URL writes it: an IPv6 address in brackets.
fn bracketed(host: &str) -> String {
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V6(_)) => format!("[{host}]"),
        _ => host.to_string(),
    }
}

/// Connects to `host:port`: an IP literal as it is (it was granted as
/// such), a name to the first of its public addresses that answers.
pub(super) async fn connect(host: &str, port: u16) -> Result<TcpStream, String> {
    let at = |e: std::io::Error| format!("connect to {host}:{port} failed: {e}");
    if let Ok(ip) = host.parse::<IpAddr>() {
        return TcpStream::connect(SocketAddr::new(ip, port))
            .await
            .map_err(at);
    }
    let all = tokio::net::lookup_host((host, port)).await.map_err(at)?;
    let public = public_only(host, all).map_err(|e| format!("connect to {host}:{port}: {e}"))?;
    let mut last = None;
    for addr in public {
        match TcpStream::connect(addr).await {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(at(last.expect("one address was tried")))
}

/// A connection, in clear or in TLS: one stream either way, split into
/// its reading and writing halves while it is driven.
pub(super) enum Conn {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl Conn {
    fn tcp(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(s) => s.get_ref().0,
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// A write (or the writing side's end) in progress: it holds the writing
/// half, and gives it back with the outcome.
type Writing = Pin<Box<dyn Future<Output = (WriteHalf<Conn>, std::io::Result<()>)> + Send>>;

fn writing(mut half: WriteHalf<Conn>, bytes: Option<Vec<u8>>) -> Writing {
    Box::pin(async move {
        let done = match bytes {
            Some(bytes) => match half.write_all(&bytes).await {
                Ok(()) => half.flush().await,
                Err(e) => Err(e),
            },
            None => half.shutdown().await,
        };
        (half, done)
    })
}

/// The client configuration of every TLS connection: the Mozilla roots.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("ring supports TLS 1.2 and 1.3")
                .with_root_certificates(roots)
                .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

/// One socket's task: what it reports to and reads against.
struct Run {
    id: u64,
    events: mpsc::UnboundedSender<Event>,
    budget: Arc<Budget>,
}

impl Run {
    fn send(&self, event: Event) {
        let _ = self.events.send(event);
    }

    fn opened(&self, conn: &Conn) {
        // The peer's address only: the host's own stays the host's.
        self.send(Event {
            remote: conn.tcp().peer_addr().ok().map(|a| a.to_string()),
            ..Event::new(self.id, "opened")
        });
    }

    /// Drives the connection by the guest's commands until it ends or the
    /// render drops the task. Reading and writing go on at once (a large
    /// write never waits for the peer's answer to be read, nor the other
    /// way round); writes, the writing side's end and a TLS upgrade take
    /// their turns in the order they came.
    async fn drive(
        self,
        stream: TcpStream,
        tls: Option<String>,
        mut commands: mpsc::UnboundedReceiver<Command>,
    ) {
        let mut conn = Conn::Plain(stream);
        if let Some(name) = tls {
            conn = match self.handshake(conn, &name).await {
                Ok(c) => c,
                Err(e) => return self.send(Event::error(self.id, e)),
            };
        }
        let mut buf = vec![0; CHUNK];
        loop {
            self.opened(&conn);
            let (mut reader, half) = tokio::io::split(conn);
            let mut idle = Some(half);
            let mut busy: Option<(Writing, bool)> = None;
            let mut later = std::collections::VecDeque::new();
            let mut reading = false;
            let upgrade = loop {
                if busy.is_none() {
                    let mut half = || idle.take().expect("the writing half is idle");
                    match later.pop_front() {
                        Some(Command::Write(bytes)) => {
                            busy = Some((writing(half(), Some(bytes)), false))
                        }
                        Some(Command::Shutdown) => busy = Some((writing(half(), None), true)),
                        Some(Command::Tls(name)) => break name,
                        Some(Command::Read) | None => {}
                    }
                }
                tokio::select! {
                    command = commands.recv() => match command {
                        None => return,
                        Some(Command::Read) => reading = true,
                        Some(other) => later.push_back(other),
                    },
                    (half, done) = async { busy.as_mut().expect("a write is busy").0.as_mut().await }, if busy.is_some() => {
                        let (_, shutdown) = busy.take().expect("a write was busy");
                        idle = Some(half);
                        match (done, shutdown) {
                            (Ok(()), false) => self.send(Event::new(self.id, "wrote")),
                            (Ok(()), true) => {}
                            // A peer gone before the end is said: the read side says so.
                            (Err(_), true) => {}
                            (Err(e), false) => {
                                return self.send(Event::error(self.id, format!("writing to the socket failed: {e}")));
                            }
                        }
                    }
                    read = reader.read(&mut buf), if reading => {
                        reading = false;
                        match read {
                            Ok(0) => self.send(Event { end: true, ..Event::new(self.id, "data") }),
                            Ok(n) => match self.budget.take(n) {
                                Ok(()) => self.send(Event { data: buf[..n].to_vec(), ..Event::new(self.id, "data") }),
                                Err(e) => return self.send(Event::error(self.id, e.to_string())),
                            },
                            Err(e) => return self.send(Event::error(self.id, format!("reading the socket failed: {e}"))),
                        }
                    }
                }
            };
            let half = idle.take().expect("no write is busy at an upgrade");
            conn = match self.handshake(reader.unsplit(half), &upgrade).await {
                Ok(c) => c,
                Err(e) => return self.send(Event::error(self.id, e)),
            };
        }
    }

    async fn handshake(&self, conn: Conn, name: &str) -> Result<Conn, String> {
        let Conn::Plain(tcp) = conn else {
            return Err("startTls: the socket already speaks TLS".into());
        };
        secure(tcp, name).await
    }
}

/// TLS over `tcp`, verifying `name` (Mozilla's roots).
pub(super) async fn secure(tcp: TcpStream, name: &str) -> Result<Conn, String> {
    let server = rustls::pki_types::ServerName::try_from(name.to_string())
        .map_err(|_| format!("TLS: `{name}` is not a server name"))?;
    let tls = tokio_rustls::TlsConnector::from(tls_config())
        .connect(server, tcp)
        .await
        .map_err(|e| format!("TLS handshake with {name} failed: {e}"))?;
    Ok(Conn::Tls(Box::new(tls)))
}
