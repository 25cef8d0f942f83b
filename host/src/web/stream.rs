//! A response body sent while its render runs: the render's half, a
//! [`Sink`] that the instance's `Imports` holds for one render (the
//! prelude's `response-head` and `response-write` calls reach it), and the
//! HTTP side's half, [`Frames`].
//!
//! Lifetime: one channel per request that may stream, made by the HTTP side
//! before the render is submitted.
//!
//! Invariants:
//! - The head comes first and once; chunks only after it.
//! - The bytes written are at most `limit` (the tenant's response limit) in
//!   all; a write past it is refused. So a client that reads slowly makes
//!   the host hold no more of a streamed body than of a whole one, and a
//!   stream that never ends is cut by the limit or the render's deadline.
//! - A write after the client went away (the receiver dropped) is refused,
//!   so the renderer stops instead of rendering for no one; a render that
//!   waits for `fetch` is told at once ([`Sink::closed`]).
//! - A chunk is counted in the server's [`Unsent`] from its write until the
//!   HTTP side takes it (`http::stream`) or drops it ([`Paced`]); a write
//!   that would pass that count's limit is refused, and the stream is cut
//!   as at the response limit.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::unsent::{Paced, Unsent};

/// What a streaming render sends.
#[derive(Debug)]
pub enum Frame {
    /// Status, headers, cache policy and vary; the body is empty.
    Head(contract::Response),
    /// Bytes of the body, counted as unsent until taken or dropped.
    Chunk(Paced),
    /// The body is complete, though the render goes on (its
    /// `ctx.waitUntil()` work); with the request headers it read so far,
    /// and whether it called a binding ([`crate::web::stored_as_bound`]).
    End(Vec<String>, bool),
}

/// The HTTP side's half: frames in the order the render sent them.
pub type Frames = mpsc::UnboundedReceiver<Frame>;

/// The render's half.
#[derive(Debug)]
pub struct Sink {
    tx: mpsc::UnboundedSender<Frame>,
    headed: bool,
    sent: usize,
    limit: usize,
    unsent: Arc<Unsent>,
}

/// A new channel for a body of at most `limit` bytes, its chunks counted
/// in `unsent` until taken.
pub fn channel(limit: usize, unsent: &Arc<Unsent>) -> (Sink, Frames) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = Sink {
        tx,
        headed: false,
        sent: 0,
        limit,
        unsent: unsent.clone(),
    };
    (sink, rx)
}

impl Sink {
    /// Sends the head; the body follows through [`Sink::write`].
    pub fn head(&mut self, head: contract::Response) -> Result<(), String> {
        if self.headed {
            return Err("the response has started already".into());
        }
        self.headed = true;
        self.tx.send(Frame::Head(head)).map_err(|_| gone())
    }

    /// Sends one chunk of the body.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        if !self.headed {
            return Err("a body chunk came before the response's head".into());
        }
        self.sent += bytes.len();
        if self.sent > self.limit {
            return Err(format!(
                "the streamed body passed this site's response limit of {} KiB; the response is cut there",
                self.limit >> 10
            ));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let chunk = Paced::hold(Bytes::copy_from_slice(bytes), &self.unsent).map_err(|_| {
            format!(
                "the server holds its limit of {} MiB of pages for clients that read slowly (--max-unsent-mib); the response is cut",
                self.unsent.limit() >> 20
            )
        })?;
        self.tx.send(Frame::Chunk(chunk)).map_err(|_| gone())
    }
}

impl Sink {
    /// Resolves when the HTTP side dropped its half: the client went away
    /// before the response was complete (`fetch-wait` then tells the render,
    /// whose `request.signal` aborts).
    pub async fn closed(&self) {
        self.tx.closed().await;
    }

    /// The body is complete: nothing more is written, and the client gets
    /// its end now; `vary` lists the request headers the page read, and
    /// `bound` says whether it called a binding.
    pub fn end(self, vary: Vec<String>, bound: bool) -> Result<(), String> {
        if !self.headed {
            return Err("the response ended before its head".into());
        }
        self.tx.send(Frame::End(vary, bound)).map_err(|_| gone())
    }
}

fn gone() -> String {
    "the client went away; the response is abandoned".into()
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn head() -> contract::Response {
        contract::Response {
            status: 200,
            headers: Vec::new(),
            cache: contract::CachePolicy::NoStore,
            vary: Vec::new(),
            body: Vec::new(),
        }
    }

    fn frames_come_in_order_up_to_the_limit() {
        let (mut sink, mut frames) = channel(10, &Unsent::new(1 << 20));
        assert!(sink.write(b"early").is_err());
        sink.head(head()).unwrap();
        assert!(sink.head(head()).is_err());
        sink.write(b"12345").unwrap();
        sink.write(b"67890").unwrap();
        let err = sink.write(b"x").unwrap_err();
        assert!(err.contains("response limit of 0 KiB"), "{err}");
        assert!(matches!(frames.try_recv(), Ok(Frame::Head(_))));
        assert!(matches!(frames.try_recv(), Ok(Frame::Chunk(b)) if &b.bytes()[..] == b"12345"));
        assert!(matches!(frames.try_recv(), Ok(Frame::Chunk(b)) if &b.bytes()[..] == b"67890"));
        assert!(frames.try_recv().is_err());
    }

    fn a_write_past_the_servers_unsent_bound_cuts_the_stream() {
        let unsent = Unsent::new(8);
        let (mut sink, mut frames) = channel(1 << 20, &unsent);
        sink.head(head()).unwrap();
        sink.write(b"12345").unwrap();
        let err = sink.write(b"6789").unwrap_err();
        assert!(
            err.contains("(--max-unsent-mib); the response is cut"),
            "{err}"
        );
        assert_eq!(unsent.bytes(), 5);
        // Taken by the connection: room again.
        let _ = frames.try_recv();
        drop(frames.try_recv());
        assert_eq!(unsent.bytes(), 0);
        assert!(sink.write(b"6789").is_ok());
    }

    fn a_write_after_the_client_left_is_refused() {
        let unsent = Unsent::new(1 << 20);
        let (mut sink, frames) = channel(1 << 20, &unsent);
        sink.head(head()).unwrap();
        drop(frames);
        assert!(sink.write(b"x").unwrap_err().contains("went away"));
        assert_eq!(unsent.bytes(), 0);
    }

    crate::unit_tests!(
        frames_come_in_order_up_to_the_limit,
        a_write_past_the_servers_unsent_bound_cuts_the_stream,
        a_write_after_the_client_left_is_refused
    );
}
