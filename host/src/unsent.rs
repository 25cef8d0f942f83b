//! Rendered response bytes waiting for their clients to read them
//! ([`Unsent`]), over every connection of the process, so that clients
//! that never read cannot make the host hold more than `--max-unsent-mib`
//! of pages they asked for.
//!
//! What counts: a whole rendered body from when it is handed to its
//! connection until the connection takes its last slice, and each chunk of
//! a streamed body from the render's write until the connection takes it
//! (`web::stream`, `http::stream`). Both are a [`Paced`], which holds
//! its count and gives it back as it is taken or dropped, whatever path
//! drops it. Bodies go to hyper in
//! slices of at most [`SLICE`] bytes, and hyper queues at most 16 of them
//! per connection, so what the count misses is bounded per connection.
//! Cache hits and assets are not counted: their bytes are the cache's (under
//! its own budget) and the plugins', shared by every response made of them.
//!
//! Invariants:
//! - The count never passes the limit: a body is held ([`Paced::hold`])
//!   only if it fits, atomically, so responses finishing at once cannot
//!   overshoot together. One that does not fit is refused: a whole page
//!   is answered 503, a streamed one is cut (`web::stream`). A
//!   response of `--max-response-kib` always fits an empty count
//!   (`Config::validate`).
//! - Every byte added is subtracted once, when its holder gives it to the
//!   connection or is dropped.
//!
//! A streamed body's chunks count in its own [`Window`] too: past
//! [`WINDOW`] bytes waiting, its renderer is told to wait until its client
//! catches up (`web::stream`), so a stream of any length to a slow client
//! holds about a window, not the stream.
//!
//! Lifetime: one per server ([`crate::http::AppState`]); a window per
//! streamed response.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;

/// The most bytes a body gives its connection at once.
pub const SLICE: usize = 64 << 10;

/// The count, and its limit.
#[derive(Debug)]
pub struct Unsent {
    bytes: AtomicUsize,
    limit: usize,
}

impl Unsent {
    pub fn new(limit: usize) -> Arc<Unsent> {
        Arc::new(Unsent {
            bytes: AtomicUsize::new(0),
            limit,
        })
    }

    /// Adds `n` bytes if the count stays within the limit.
    fn add(&self, n: usize) -> bool {
        self.bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                held.checked_add(n).filter(|&total| total <= self.limit)
            })
            .is_ok()
    }

    fn sub(&self, n: usize) {
        self.bytes.fetch_sub(n, Ordering::Relaxed);
    }

    /// Bytes waiting now.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Whether the limit is reached: new renders wait for clients to read.
    pub fn full(&self) -> bool {
        self.bytes() >= self.limit
    }

    /// The limit, bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// The bytes of one streamed body waiting for its client past which its
/// renderer waits.
pub const WINDOW: usize = 1 << 20;

/// One streamed body's bytes waiting for its client, and a wake for its
/// renderer when they fall back within [`WINDOW`].
#[derive(Debug, Default)]
pub struct Window {
    bytes: AtomicUsize,
    drained: tokio::sync::Notify,
}

impl Window {
    fn add(&self, n: usize) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }

    fn sub(&self, n: usize) {
        let was = self.bytes.fetch_sub(n, Ordering::Relaxed);
        if was > WINDOW && was - n <= WINDOW {
            self.drained.notify_waiters();
        }
    }

    /// The bytes that wait.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Whether more than [`WINDOW`] bytes wait.
    pub fn behind(&self) -> bool {
        self.bytes.load(Ordering::Relaxed) > WINDOW
    }

    /// Resolves once at most [`WINDOW`] bytes wait.
    pub async fn caught_up(&self) {
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            if !self.behind() {
                return;
            }
            drained.await;
        }
    }
}

/// A whole body, counted in [`Unsent`] (and a stream's chunk in its
/// [`Window`]) until its connection takes it, and given in slices of at
/// most [`SLICE`] bytes (copying nothing).
#[derive(Debug)]
pub struct Paced {
    rest: Bytes,
    unsent: Arc<Unsent>,
    window: Option<Arc<Window>>,
}

impl Paced {
    /// `body`, counted in `unsent`, if it fits there; else `body` back.
    pub fn hold(body: Bytes, unsent: &Arc<Unsent>) -> Result<Paced, Bytes> {
        if !unsent.add(body.len()) {
            return Err(body);
        }
        Ok(Paced {
            rest: body,
            unsent: unsent.clone(),
            window: None,
        })
    }

    /// Counted in `window` too, until taken.
    pub fn in_window(mut self, window: &Arc<Window>) -> Paced {
        window.add(self.rest.len());
        self.window = Some(window.clone());
        self
    }

    /// Up to `max` bytes from the front, no longer counted.
    pub fn take(&mut self, max: usize) -> Bytes {
        let n = self.rest.len().min(max);
        self.uncount(n);
        self.rest.split_to(n)
    }

    /// `n` bytes no longer counted, in [`Unsent`] and its window.
    fn uncount(&self, n: usize) {
        self.unsent.sub(n);
        if let Some(w) = &self.window {
            w.sub(n);
        }
    }

    /// What is left.
    pub fn bytes(&self) -> &Bytes {
        &self.rest
    }

    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
}

impl Drop for Paced {
    fn drop(&mut self) {
        self.uncount(self.rest.len());
    }
}

impl http_body::Body for Paced {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        if self.rest.is_empty() {
            return Poll::Ready(None);
        }
        Poll::Ready(Some(Ok(http_body::Frame::data(self.take(SLICE)))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.rest.len() as u64)
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn a_paced_body_is_counted_until_taken_or_dropped() {
        let unsent = Unsent::new(1 << 20);
        let body = Paced::hold(Bytes::from(vec![7u8; 3 * SLICE + 5]), &unsent).unwrap();
        assert_eq!(unsent.bytes(), 3 * SLICE + 5);
        let mut body = Box::pin(body);
        let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(first.len(), SLICE);
        assert_eq!(unsent.bytes(), 2 * SLICE + 5);
        drop(body);
        assert_eq!(unsent.bytes(), 0);
        let all = Paced::hold(Bytes::from(vec![1u8; SLICE + 1]), &unsent)
            .unwrap()
            .collect()
            .await
            .unwrap()
            .to_bytes();
        assert_eq!((all.len(), unsent.bytes()), (SLICE + 1, 0));
        assert!(!unsent.full());
    }

    fn a_body_that_would_pass_the_limit_is_not_held() {
        let unsent = Unsent::new(100);
        let first = Paced::hold(Bytes::from(vec![0u8; 60]), &unsent).unwrap();
        let refused = Paced::hold(Bytes::from(vec![0u8; 41]), &unsent).unwrap_err();
        assert_eq!((refused.len(), unsent.bytes()), (41, 60));
        let fits = Paced::hold(Bytes::from(vec![0u8; 40]), &unsent).unwrap();
        assert!(unsent.full());
        drop((first, fits));
        assert_eq!(unsent.bytes(), 0);
    }

    async fn a_window_behind_wakes_its_waiter_once_taken_within_it() {
        let unsent = Unsent::new(8 << 20);
        let window = Arc::new(Window::default());
        let hold = |n: usize| {
            Paced::hold(Bytes::from(vec![0u8; n]), &unsent)
                .unwrap()
                .in_window(&window)
        };
        let mut a = hold(WINDOW);
        assert!(!window.behind());
        let b = hold(1);
        assert!(window.behind());
        let waiter = {
            let window = window.clone();
            tokio::spawn(async move { window.caught_up().await })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        a.take(1);
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("woken once within the window")
            .unwrap();
        drop((a, b));
        assert_eq!(
            (unsent.bytes(), window.bytes.load(Ordering::Relaxed)),
            (0, 0)
        );
        window.caught_up().await;
    }

    crate::unit_tests!(a_body_that_would_pass_the_limit_is_not_held; async a_paced_body_is_counted_until_taken_or_dropped, a_window_behind_wakes_its_waiter_once_taken_within_it);
}
