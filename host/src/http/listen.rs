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
//!   (`DefaultBodyLimit`); page requests never read theirs.
//!
//! Shutdown: when `stop` fires the loop stops accepting, every connection
//! finishes its request in flight and closes, up to `grace`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

/// What one listener allows its clients.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionPolicy {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub max_header_bytes: usize,
    /// How long shutdown waits for requests in flight.
    pub grace: Duration,
}

impl From<&crate::config::Config> for ConnectionPolicy {
    fn from(c: &crate::config::Config) -> Self {
        ConnectionPolicy {
            max_connections: c.max_connections,
            header_timeout: c.header_timeout.duration(),
            max_header_bytes: c.max_header_kib.bytes(),
            grace: crate::config::SHUTDOWN_GRACE,
        }
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
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(limits.max_header_bytes);
    loop {
        let permit = tokio::select! {
            p = open.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            _ = stop.changed() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
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
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let service = hyper::service::service_fn(move |req| {
            let answer = service(req);
            async move { Ok::<_, Infallible>(answer.await) }
        });
        let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still in flight after {:?}; closing their connections",
            limits.grace
        );
    }
}
