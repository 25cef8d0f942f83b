//! The incoming request's body past what came whole with the request: the
//! host holds the client's connection ([`Upload`]) and reads it a piece at
//! a time as the renderer asks (`contract::calls::REQUEST_BODY`, its
//! stream in `wit/prelude/30_request_in.js`).
//!
//! Lifetime: made by the HTTP side when a body goes on past its tenant's
//! `max_request_kib` (`http::routes::read_body`), handed to the render
//! with its response's [`Sink`](super::stream::Sink), and dropped with the
//! render: what the renderer did not read is never read.
//!
//! Invariants:
//! - Read only as the renderer asks, at most [`PIECE`] bytes (and one
//!   frame) at a time: a body the renderer does not read costs no memory,
//!   and a client that sends faster than the renderer reads waits (TCP's
//!   flow control).
//! - At most `limit` bytes in all (the tenant's `max_upload_mib`); the
//!   read that passes it fails, naming the limit.
//! - A piece that does not start arriving within `--body-timeout` fails
//!   the read; the render's deadline bounds the whole.
//! - The client's place among the bodies arriving
//!   (`--max-uploads-per-client`) is held until the upload is dropped.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use futures_util::FutureExt;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;

/// A read gathers what has arrived up to about this many bytes: one call
/// and one wake of the render per piece.
pub const PIECE: usize = 256 << 10;

/// A body's error, as hyper's and a test's bodies give it.
pub type BodyError = Box<dyn std::error::Error + Send + Sync>;

/// A request body arriving.
pub struct Upload {
    body: BoxBody<Bytes, BodyError>,
    /// Bytes of the body so far, what came with the request included.
    read: u64,
    limit: u64,
    timeout: Duration,
    ended: bool,
    /// Why the body was refused, once it was: over its limit.
    over: Arc<OnceLock<String>>,
    _place: Box<dyn Send + Sync>,
}

impl Upload {
    /// The rest of a body of which `read` bytes came already; at most
    /// `limit` in all, each piece within `timeout`; `place` is held while
    /// it is.
    pub fn new<B>(
        body: B,
        read: u64,
        limit: u64,
        timeout: Duration,
        place: Box<dyn Send + Sync>,
    ) -> Upload
    where
        B: http_body::Body<Data = Bytes> + Send + Sync + 'static,
        B::Error: Into<BodyError>,
    {
        Upload {
            body: body.map_err(Into::into).boxed(),
            read,
            limit,
            timeout,
            ended: false,
            over: Arc::default(),
            _place: place,
        }
    }

    /// Says why, once the body was refused for passing its limit: the
    /// HTTP side answers 413 with it when the render failed.
    pub fn over(&self) -> Arc<OnceLock<String>> {
        self.over.clone()
    }

    /// The next piece: what has arrived, up to about [`PIECE`] bytes (at
    /// least one byte unless it ended), and whether the body ended.
    pub async fn next(&mut self) -> Result<(Vec<u8>, bool), String> {
        let mut piece = Vec::new();
        while !self.ended && piece.len() < PIECE {
            let frame = if piece.is_empty() {
                tokio::time::timeout(self.timeout, self.body.frame())
                    .await
                    .map_err(|_| {
                        format!(
                            "the request body stopped arriving for {} ms (--body-timeout)",
                            self.timeout.as_millis()
                        )
                    })?
            } else {
                // Past the first frame, only what is here already.
                match self.body.frame().now_or_never() {
                    Some(frame) => frame,
                    None => break,
                }
            };
            let data = match frame {
                None => {
                    self.ended = true;
                    break;
                }
                Some(Err(e)) => return Err(format!("reading the request body failed: {e}")),
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => data,
                    // Trailers: not part of the body.
                    Err(_) => continue,
                },
            };
            self.read += data.len() as u64;
            if self.read > self.limit {
                self.ended = true;
                let said = format!(
                    "the request body is over this site's limit of {} MiB (max_upload_mib); send a smaller one",
                    self.limit >> 20
                );
                let _ = self.over.set(said.clone());
                return Err(said);
            }
            piece.extend_from_slice(&data);
        }
        Ok((piece, self.ended))
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use http_body_util::StreamBody;
    use hyper::body::Frame;

    type Sent = Result<Frame<Bytes>, BodyError>;

    fn upload(limit: u64, timeout: Duration) -> (tokio::sync::mpsc::Sender<Sent>, Upload) {
        let (tx, rx) = tokio::sync::mpsc::channel::<Sent>(64);
        let stream = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| (item, rx))
        });
        let up = Upload::new(StreamBody::new(stream), 10, limit, timeout, Box::new(()));
        (tx, up)
    }

    fn data(n: usize) -> Sent {
        Ok(Frame::data(Bytes::from(vec![7u8; n])))
    }

    async fn pieces_gather_what_arrived_and_end_with_the_body() {
        let (tx, mut up) = upload(1 << 20, Duration::from_secs(5));
        for _ in 0..3 {
            tx.send(data(1000)).await.unwrap();
        }
        tx.send(Ok(Frame::trailers(Default::default())))
            .await
            .unwrap();
        let (piece, ended) = up.next().await.unwrap();
        assert_eq!((piece.len(), ended), (3000, false));
        // Past PIECE, a read stops and the rest waits for the next.
        tx.send(data(PIECE)).await.unwrap();
        tx.send(data(5)).await.unwrap();
        assert_eq!(up.next().await.unwrap().0.len(), PIECE);
        drop(tx);
        let (piece, ended) = up.next().await.unwrap();
        assert_eq!((piece.len(), ended), (5, true));
        assert_eq!(up.next().await.unwrap(), (Vec::new(), true));
    }

    async fn a_body_past_its_limit_or_too_slow_fails_the_read() {
        // 10 came with the request: 2 MiB + 1 in all is one past.
        let (tx, mut up) = upload(2 << 20, Duration::from_secs(5));
        tx.send(data((2 << 20) - 10)).await.unwrap();
        assert!(up.next().await.is_ok());
        tx.send(data(1)).await.unwrap();
        let err = up.next().await.unwrap_err();
        assert!(err.contains("limit of 2 MiB (max_upload_mib)"), "{err}");
        let (_tx, mut slow) = upload(1 << 20, Duration::from_millis(20));
        let err = slow.next().await.unwrap_err();
        assert!(err.contains("stopped arriving for 20 ms"), "{err}");
    }

    crate::unit_tests!(;
        async pieces_gather_what_arrived_and_end_with_the_body,
        a_body_past_its_limit_or_too_slow_fails_the_read
    );
}
