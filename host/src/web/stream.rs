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
//! - A stream has no length limit (as on Workers): the render's deadline
//!   ends one that never ends. What the host holds of it is bounded
//!   instead: past [`WINDOW`](crate::unsent::WINDOW) bytes waiting for the
//!   client, a write says so, and the renderer waits for the client to
//!   catch up (`response-write`'s `"drained"`) before its next write, so a
//!   slow client slows its renderer rather than growing what the host
//!   holds.
//! - A write after the client went away (the receiver dropped) is refused,
//!   so the renderer stops instead of rendering for no one; a render that
//!   waits for `fetch` is told at once ([`Sink::closed`]).
//! - A chunk is counted in the server's [`Unsent`] from its write until the
//!   HTTP side takes it (`http::stream`) or drops it ([`Paced`]); a write
//!   that would pass that count's limit is refused, and the stream is cut
//!   there.
//! - The request's body still arriving ([`Upload`]), if any, goes with the
//!   sink: a request whose body streams in is one whose response may
//!   stream out, and the render takes both at its start.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::upload::Upload;
use crate::unsent::{Paced, Unsent, Window};

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
pub struct Sink {
    tx: mpsc::UnboundedSender<Frame>,
    headed: bool,
    unsent: Arc<Unsent>,
    window: Arc<Window>,
    upload: Option<Upload>,
    /// The WebSocket the client offered to open, if it asked to upgrade
    /// (`websocket.rs`).
    socket: Option<super::websocket::Offer>,
    /// The events of the Durable Object the render runs, if it is one's
    /// (`bindings/objects/`'s `Inbox`), which the sink carries unseen.
    object: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("headed", &self.headed)
            .field("behind", &self.window.behind())
            .field("upload", &self.upload.is_some())
            .field("socket", &self.socket)
            .field("object", &self.object.is_some())
            .finish()
    }
}

/// A new channel for a body, its chunks counted in `unsent` until taken.
pub fn channel(unsent: &Arc<Unsent>) -> (Sink, Frames) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = Sink {
        tx,
        headed: false,
        unsent: unsent.clone(),
        window: Arc::default(),
        upload: None,
        socket: None,
        object: None,
    };
    (sink, rx)
}

impl Sink {
    /// The sink of a request whose body goes on arriving as `upload`.
    pub fn with_upload(mut self, upload: Option<Upload>) -> Sink {
        self.upload = upload;
        self
    }

    /// The request's body still arriving, for the render to read.
    pub fn take_upload(&mut self) -> Option<Upload> {
        self.upload.take()
    }

    /// The sink of a request that asked to upgrade to a WebSocket.
    pub fn with_socket(mut self, socket: super::websocket::Offer) -> Sink {
        self.socket = Some(socket);
        self
    }

    /// The WebSocket offered, for the render (or the pool) to take.
    pub fn socket_mut(&mut self) -> Option<&mut super::websocket::Offer> {
        self.socket.as_mut()
    }

    /// The WebSocket offered, taken for the render.
    pub fn take_socket(&mut self) -> Option<super::websocket::Offer> {
        self.socket.take()
    }

    /// The sink of a Durable Object's render, which takes its events from
    /// `inbox`.
    pub fn with_object(mut self, inbox: Box<dyn std::any::Any + Send + Sync>) -> Sink {
        self.object = Some(inbox);
        self
    }

    /// The object's events, taken for the render.
    pub fn take_object(&mut self) -> Option<Box<dyn std::any::Any + Send + Sync>> {
        self.object.take()
    }

    /// Whether the render lives past its answer: a WebSocket's, or a
    /// Durable Object's.
    pub fn lives(&self) -> bool {
        self.socket.is_some() || self.object.is_some()
    }

    /// Whether it is a Durable Object's render.
    pub fn is_object(&self) -> bool {
        self.object.is_some()
    }

    /// How long the render has to answer, when that is not its request's
    /// deadline: a WebSocket's render may live long after it answered.
    pub fn answer_within(&self) -> Option<std::time::Duration> {
        self.socket.as_ref().map(|s| s.answer_within)
    }

    /// Sends the head; the body follows through [`Sink::write`].
    pub fn head(&mut self, head: contract::Response) -> Result<(), String> {
        if self.headed {
            return Err("the response has started already".into());
        }
        self.headed = true;
        self.tx.send(Frame::Head(head)).map_err(|_| gone())
    }

    /// Sends one chunk of the body; answers whether the client is now
    /// more than [`WINDOW`](crate::unsent::WINDOW) bytes behind, when the renderer should wait
    /// for [`Sink::caught_up`] before its next write.
    pub fn write(&mut self, bytes: &[u8]) -> Result<bool, String> {
        if !self.headed {
            return Err("a body chunk came before the response's head".into());
        }
        if bytes.is_empty() {
            return Ok(self.window.behind());
        }
        let chunk = Paced::hold(Bytes::copy_from_slice(bytes), &self.unsent).map_err(|_| {
            format!(
                "the server holds its limit of {} MiB of pages for clients that read slowly (--max-unsent-mib); the response is cut",
                self.unsent.limit() >> 20
            )
        })?;
        let chunk = chunk.in_window(&self.window);
        self.tx.send(Frame::Chunk(chunk)).map_err(|_| gone())?;
        Ok(self.window.behind())
    }

    /// Resolves once the client is at most [`WINDOW`](crate::unsent::WINDOW) bytes behind, or
    /// went away (what it left unread is dropped with its half).
    pub fn caught_up(&self) -> impl Future<Output = ()> + Send + 'static {
        let window = self.window.clone();
        async move { window.caught_up().await }
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
    use crate::unsent::WINDOW;

    fn head() -> contract::Response {
        contract::Response {
            status: 200,
            headers: Vec::new(),
            cache: contract::CachePolicy::NoStore,
            vary: Vec::new(),
            body: Vec::new(),
        }
    }

    fn frames_come_in_order_and_a_client_behind_is_said() {
        let (mut sink, mut frames) = channel(&Unsent::new(8 << 20));
        assert!(sink.write(b"early").is_err());
        sink.head(head()).unwrap();
        assert!(sink.head(head()).is_err());
        assert_eq!(sink.write(b"12345"), Ok(false));
        assert_eq!(sink.write(&vec![b'x'; WINDOW]), Ok(true));
        assert!(matches!(frames.try_recv(), Ok(Frame::Head(_))));
        assert!(matches!(frames.try_recv(), Ok(Frame::Chunk(b)) if &b.bytes()[..] == b"12345"));
        // Taken: within the window again.
        drop(frames.try_recv());
        assert_eq!(sink.write(b"67890"), Ok(false));
        assert!(matches!(frames.try_recv(), Ok(Frame::Chunk(b)) if &b.bytes()[..] == b"67890"));
        assert!(frames.try_recv().is_err());
    }

    fn a_write_past_the_servers_unsent_bound_cuts_the_stream() {
        let unsent = Unsent::new(8);
        let (mut sink, mut frames) = channel(&unsent);
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
        let (mut sink, frames) = channel(&unsent);
        sink.head(head()).unwrap();
        drop(frames);
        assert!(sink.write(b"x").unwrap_err().contains("went away"));
        assert_eq!(unsent.bytes(), 0);
    }

    crate::unit_tests!(
        frames_come_in_order_and_a_client_behind_is_said,
        a_write_past_the_servers_unsent_bound_cuts_the_stream,
        a_write_after_the_client_left_is_refused
    );
}
