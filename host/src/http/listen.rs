//! Accepting connections (request step 1): HTTP/1.1 over hyper, with the
//! limits that protect the server from slow or greedy clients.
//!
//! `axum::serve` has no place for these, so this is its accept loop with
//! them added:
//! - **a connection limit**: at `max_connections` open connections the loop
//!   stops accepting, and new clients wait in the kernel's backlog until
//!   one closes;
//! - **a header timeout** (slowloris): a client must send a request's whole
//!   head within `header_timeout`, counted from when the connection starts
//!   waiting for it, so an idle keep-alive connection is closed after the
//!   same time;
//! - **a header size limit**: a longer head is answered 431 and the
//!   connection closed. Bodies are limited by the router
//!   (`DefaultBodyLimit`) and, for pages, in `routes::read_body`, which
//!   also bounds their time (`--body-timeout`) and how many one client
//!   address may be sending at once (`gate.rs`); each request carries
//!   its [`Client`] address for that;
//! - **connections per client address** (`--max-connections-per-client`):
//!   past it, a new connection from that address is closed at once, so
//!   one client cannot hold the listener's places;
//! - **a reserve** of [`RESERVED_CONNECTIONS`] past `--max-connections`,
//!   taken once every place has been held for [`RESERVE_AFTER`], whose
//!   requests are answered for the host's own endpoints alone, so that
//!   health checks and the admin API get in when clients hold every other
//!   place;
//! - **a send timeout**: a write that makes no progress for
//!   `send_timeout` (a client that stopped reading) fails, and the
//!   connection closes ([`SendTimeout`]), which frees what its response
//!   held.
//!
//! Shutdown: when `stop` fires the loop stops accepting, every connection
//! finishes its request in flight and closes, up to `grace`.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

/// What one listener allows its clients.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionPolicy {
    pub max_connections: usize,
    pub max_connections_per_client: usize,
    pub header_timeout: Duration,
    pub max_header_bytes: usize,
    /// How long a write may make no progress.
    pub send_timeout: Duration,
    /// How long shutdown waits for requests in flight.
    pub grace: Duration,
}

impl From<&crate::config::Config> for ConnectionPolicy {
    fn from(c: &crate::config::Config) -> Self {
        ConnectionPolicy {
            max_connections: c.max_connections,
            max_connections_per_client: c.max_connections_per_client,
            header_timeout: c.header_timeout.duration(),
            max_header_bytes: c.max_header_kib.bytes(),
            send_timeout: c.send_timeout.duration(),
            grace: crate::config::SHUTDOWN_GRACE,
        }
    }
}

/// Connections a listener accepts past `--max-connections`, for the host's
/// own endpoints alone (`/_ssr/healthz`, the admin API): when clients hold
/// every other place, the operator and the load balancer still get in.
pub const RESERVED_CONNECTIONS: usize = 16;

/// How long the listener must have been full before a connection takes a
/// place of the reserve: a moment's fullness (a connection closing as
/// another arrives) is waited out, as without a reserve.
pub const RESERVE_AFTER: Duration = Duration::from_secs(1);

/// A request that came on one of the [`RESERVED_CONNECTIONS`] (a request
/// extension): it is answered only for the host's own endpoints.
#[derive(Clone, Copy, Debug)]
pub struct Reserved;

/// The connection's places (`--max-connections` and per client), which a
/// request to upgrade to a WebSocket keeps for the socket's life (a
/// request extension): an upgraded connection counts as one until it
/// closes, though hyper is done with it.
#[derive(Clone)]
pub struct Places {
    _held: Arc<dyn Send + Sync>,
}

/// The address of the client a request came from (a request extension).
#[derive(Clone, Copy, Debug)]
pub struct Client(pub IpAddr);

/// The connection a request came on, for a handler that tunes it
/// ([`Connection::limit_send_buffer`]).
#[derive(Clone, Copy, Debug)]
pub struct Connection(std::os::fd::RawFd);

impl Connection {
    /// Holds the kernel's send buffer of this connection to `bytes`, instead
    /// of the megabytes Linux grows it to: for a long response a client may
    /// stop reading (a log follower), so that it is behind after that much
    /// and what it holds of the server's memory stays small.
    #[allow(unsafe_code)]
    pub fn limit_send_buffer(self, bytes: usize) {
        // SAFETY: a handler runs inside its connection's task, which owns
        // the socket until the handler's future is dropped: the descriptor
        // is this connection's for as long as this call lasts.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(self.0) };
        if let Err(e) = rustix::net::sockopt::set_socket_send_buffer_size(fd, bytes) {
            tracing::debug!("limiting a connection's send buffer failed: {e}");
        }
    }
}

/// A connection whose writes fail once one has made no progress for
/// `timeout`: the clock starts when a write cannot go on (the client's
/// window and the kernel's buffer are full) and stops at the next one
/// that does.
pub struct SendTimeout<T> {
    io: T,
    timeout: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> SendTimeout<T> {
    pub fn new(io: T, timeout: Duration) -> SendTimeout<T> {
        SendTimeout {
            io,
            timeout,
            stalled: None,
        }
    }

    /// `poll` made no progress or some: the clock runs or stops.
    fn paced<R>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let timeout = self.timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {timeout:?}"),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for SendTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SendTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write(cx, buf);
        self.paced(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.paced(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.io).poll_flush(cx);
        self.paced(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// A request as hyper reads it.
pub type Request = hyper::Request<hyper::body::Incoming>;

/// What a listener serves: every request of every connection.
pub type Service =
    Arc<dyn Fn(Request) -> Pin<Box<dyn Future<Output = Response> + Send>> + Send + Sync>;

/// Serves `service` on `listener` until `stop` changes, then drains.
pub async fn serve(
    listener: TcpListener,
    service: Service,
    limits: ConnectionPolicy,
    mut stop: watch::Receiver<()>,
) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let reserve = Arc::new(Semaphore::new(RESERVED_CONNECTIONS));
    // Since when every place has been taken, while it is.
    let mut full_since: Option<Instant> = None;
    let per_client = super::gate::Gate::new(limits.max_connections_per_client);
    // Closed once every connection has ended.
    let (live_tx, mut live_rx) = tokio::sync::mpsc::channel::<()>(1);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(limits.max_header_bytes);
    loop {
        // A place of the listener's; one of the reserve once every one has
        // been taken for `RESERVE_AFTER`.
        let (permit, reserved) = match open.clone().try_acquire_owned() {
            Ok(p) => {
                full_since = None;
                (Ok(p), false)
            }
            Err(_) => {
                let since = *full_since.get_or_insert_with(Instant::now);
                let reserved = async {
                    tokio::time::sleep_until((since + RESERVE_AFTER).into()).await;
                    reserve.clone().acquire_owned().await
                };
                tokio::select! {
                    biased;
                    p = open.clone().acquire_owned() => {
                        full_since = None;
                        (p, false)
                    }
                    p = reserved => (p, true),
                    _ = stop.changed() => break,
                }
            }
        };
        let permit = permit.expect("the semaphores are never closed");
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, or the peer left before we
                    // accepted: wait a little instead of spinning.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stop.changed() => break,
        };
        let Some(held) = per_client.enter(peer.ip()) else {
            tracing::debug!(client = %peer.ip(), "connection closed: --max-connections-per-client");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let client = Client(peer.ip());
        let connection = Connection(std::os::fd::AsRawFd::as_raw_fd(&stream));
        let places = Places {
            _held: Arc::new((permit, held)),
        };
        let held = places.clone();
        let service = hyper::service::service_fn(move |mut req: Request| {
            req.extensions_mut().insert(client);
            req.extensions_mut().insert(held.clone());
            req.extensions_mut().insert(connection);
            if reserved {
                req.extensions_mut().insert(Reserved);
            }
            let answer = service(req);
            async move { Ok::<_, Infallible>(answer.await) }
        });
        let io = TokioIo::new(SendTimeout::new(stream, limits.send_timeout));
        // With upgrades (a WebSocket, `websocket.rs`): hyper-util's
        // graceful watch takes no upgradeable connection, so the drain is
        // this loop's own: each connection holds a sender of `live`.
        let conn = http.serve_connection(io, service).with_upgrades();
        let (mut stopping, live) = (stop.clone(), live_tx.clone());
        tokio::spawn(async move {
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stopping.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            drop((places, live));
        });
    }
    drop(listener);
    drop(live_tx);
    if tokio::time::timeout(limits.grace, live_rx.recv())
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still in flight after {:?}; closing their connections",
            limits.grace
        );
    }
}
