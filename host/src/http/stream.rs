//! A streamed response's body ([`Streamed`]): the chunks a render sends
//! (`web::stream`), passed to hyper as they come, chunked and flushed,
//! while the render goes on on its worker.
//!
//! Lifetime: one request. It owns the render's future (which owns the
//! tenant's concurrency permit): when the client goes away hyper drops the
//! body, the render's next write is refused, and the render ends.
//!
//! Invariants:
//! - The body ends cleanly only when the render ended well and every chunk
//!   it sent went out. A render that fails after its head (an exception, a
//!   stream that errors or gives non-bytes, the deadline, the server's
//!   `--max-unsent-mib`) is logged and counted as any failed render, and the body ends
//!   with an error: hyper closes the connection without the last chunk, so
//!   the client sees a cut response, never a complete-looking one.
//! - What is kept in the cache is the whole body, once complete, and only
//!   when the cache could keep it (its policy, its entry limit), keyed on
//!   every request header the render read, those it read after the head
//!   went out included (the render's final result lists them all).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::HeaderMap;
use bytes::Bytes;

use super::AppState;
use super::error::{counted, failed_render};
use crate::cache::{CacheKey, Encoding};
use crate::pool::{PoolError, Rendered};
use crate::tenant::Tenant;
use crate::unsent::{Paced, SLICE};
use crate::web::stream::{Frame, Frames};

/// How long a failed stream's last chunks get to leave before the
/// connection is cut.
const FLUSH_GRACE: std::time::Duration = std::time::Duration::from_millis(20);

/// A render on the pool, until it ends.
pub type Render = Pin<Box<dyn Future<Output = Result<Rendered, PoolError>> + Send>>;

/// Where a complete streamed body is kept: the request's cache key and
/// headers, and the head it was rendered with.
pub struct Store {
    pub state: Arc<AppState>,
    pub key: CacheKey,
    pub headers: HeaderMap,
    pub wanted: Encoding,
    pub head: contract::Response,
}

pub struct Streamed {
    tenant: Arc<Tenant>,
    frames: Frames,
    /// What is left of the chunk being given out in slices.
    pending: Option<Paced>,
    render: Render,
    /// How the render ended, once it has: sent after what is left in
    /// `frames`.
    end: Option<Result<(), super::error::ApiError>>,
    /// The body has ended.
    done: bool,
    /// Started when the render failed; the error goes once it is over.
    grace: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The body so far, for the cache, while it fits its entry limit.
    copy: Option<(Store, Vec<u8>)>,
}

/// `rendered` with the body its render streamed into `frames`, if it
/// streamed one (a render that ended before its head was read).
pub fn gathered(mut rendered: Rendered, frames: &mut Frames) -> Rendered {
    let mut body = Vec::new();
    let mut head = None;
    while let Ok(frame) = frames.try_recv() {
        match frame {
            Frame::Head(h) => head = Some(h),
            Frame::Chunk(chunk) => body.extend_from_slice(chunk.bytes()),
            Frame::End(mut vary, _) => rendered.response.vary.append(&mut vary),
        }
    }
    if let Some(mut head) = head {
        head.body = body;
        // The headers read after the head went out count too.
        head.vary.append(&mut rendered.response.vary);
        rendered.response = head;
    }
    rendered
}

/// The response a render completed (its head, its body and its end) before
/// it failed in its `ctx.waitUntil()` work, if it did: the client gets it,
/// and the failure is logged as any.
pub fn completed(frames: &mut Frames) -> Option<contract::Response> {
    let (mut head, mut body) = (None, Vec::new());
    while let Ok(frame) = frames.try_recv() {
        match frame {
            Frame::Head(h) => head = Some(h),
            Frame::Chunk(chunk) => body.extend_from_slice(chunk.bytes()),
            Frame::End(mut vary, bound) => {
                let mut head = crate::web::stored_as_bound(head.take()?, bound);
                head.body = body;
                head.vary.append(&mut vary);
                return Some(head);
            }
        }
    }
    None
}

impl Streamed {
    pub fn new(
        tenant: Arc<Tenant>,
        frames: Frames,
        render: Render,
        store: Option<Store>,
    ) -> Streamed {
        Streamed {
            tenant,
            frames,
            pending: None,
            render,
            end: None,
            done: false,
            grace: None,
            copy: store.map(|s| (s, Vec::new())),
        }
    }

    /// The body is complete: keep it, if it may be kept.
    fn keep(&mut self) {
        let Some((store, body)) = self.copy.take() else {
            return;
        };
        let Store {
            state,
            key,
            headers,
            wanted,
            mut head,
        } = store;
        head.body = body;
        let tenant = self.tenant.id.clone();
        tokio::spawn(async move {
            match state
                .cache
                .entry(&tenant, head, &headers, wanted, true)
                .await
            {
                Ok(entry) => state.cache.insert(key, &entry, &headers),
                Err(e) => tracing::error!(%tenant, "making a cache entry failed: {e}"),
            }
        });
    }
}

impl Streamed {
    /// A render that called a binding after its head went out: its body
    /// is not kept unless its head set a TTL of its own
    /// ([`crate::web::stored_as_bound`]).
    fn unless_bound(&mut self, bound: bool) {
        let default =
            |(s, _): &(Store, Vec<u8>)| s.head.cache == contract::CachePolicy::HostDefault;
        if bound && self.copy.as_ref().is_some_and(default) {
            self.copy = None;
        }
    }

    /// The body ended before the render: it is kept if it may be, and the
    /// render goes on by itself (its `ctx.waitUntil()` work), holding its
    /// worker and permit until it ends, its failure logged and counted.
    fn finish_early(&mut self, vary: Vec<String>, bound: bool) {
        if let Some((store, _)) = &mut self.copy {
            store.head.vary.extend(vary);
        }
        self.unless_bound(bound);
        self.keep();
        self.done = true;
        let render = std::mem::replace(&mut self.render, Box::pin(std::future::pending()));
        let tenant = self.tenant.clone();
        tokio::spawn(async move {
            match render.await {
                Ok(r) => counted(&tenant, &r),
                Err(e) => {
                    failed_render(&tenant, e);
                }
            }
        });
    }

    /// A chunk taken from the render: its copy kept for the cache while it
    /// fits, and its first slice to send.
    fn chunk(&mut self, chunk: Paced) -> http_body::Frame<Bytes> {
        if let Some((store, copy)) = &mut self.copy {
            let bytes = chunk.bytes();
            if copy.len() + bytes.len() <= store.state.cache.entry_limit() {
                copy.extend_from_slice(bytes);
            } else {
                self.copy = None;
            }
        }
        self.slice(chunk)
    }

    /// The next slice of `chunk`; the rest is kept for the next poll.
    fn slice(&mut self, mut chunk: Paced) -> http_body::Frame<Bytes> {
        let slice = chunk.take(SLICE);
        if !chunk.is_empty() {
            self.pending = Some(chunk);
        }
        http_body::Frame::data(slice)
    }
}

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = super::error::ApiError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Some(chunk) = this.pending.take() {
            return Poll::Ready(Some(Ok(this.slice(chunk))));
        }
        loop {
            // What is buffered goes first. `try_recv` is not held back by
            // tokio's cooperative budget as `poll_recv` may be, so the
            // chunks a render sent before it ended always go out before
            // the end (or the error) does.
            match this.frames.try_recv() {
                Ok(Frame::Chunk(bytes)) => return Poll::Ready(Some(Ok(this.chunk(bytes)))),
                Ok(Frame::Head(_)) => continue,
                Ok(Frame::End(vary, bound)) => {
                    this.finish_early(vary, bound);
                    return Poll::Ready(None);
                }
                Err(_) => {}
            }
            match this.end.take() {
                Some(Ok(())) => {
                    this.keep();
                    this.done = true;
                    return Poll::Ready(None);
                }
                // hyper drops what it has not flushed when a body fails:
                // the chunks before the failure get a moment to go out.
                Some(Err(e)) => {
                    let grace = this
                        .grace
                        .get_or_insert_with(|| Box::pin(tokio::time::sleep(FLUSH_GRACE)));
                    if grace.as_mut().poll(cx).is_pending() {
                        this.end = Some(Err(e));
                        return Poll::Pending;
                    }
                    this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
                None if this.done => return Poll::Ready(None),
                None => {}
            }
            if let Poll::Ready(Some(frame)) = this.frames.poll_recv(cx) {
                match frame {
                    Frame::Chunk(bytes) => return Poll::Ready(Some(Ok(this.chunk(bytes)))),
                    Frame::End(vary, bound) => {
                        this.finish_early(vary, bound);
                        return Poll::Ready(None);
                    }
                    Frame::Head(_) => continue,
                }
            }
            match this.render.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(r)) => {
                    counted(&this.tenant, &r);
                    // The headers read after the head went out count too,
                    // and the bindings called.
                    if let Some((store, _)) = &mut this.copy {
                        store.head.vary.extend(r.response.vary);
                    }
                    this.unless_bound(r.response.cache == contract::CachePolicy::NoStore);
                    this.end = Some(Ok(()));
                }
                Poll::Ready(Err(e)) => {
                    this.copy = None;
                    this.end = Some(Err(failed_render(&this.tenant, e)));
                }
            }
        }
    }
}
