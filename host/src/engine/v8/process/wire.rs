//! The channel between the server and a V8 worker process: the messages,
//! and how each travels (a little-endian `u32` length, then the message in
//! `postcard`, the compact serde format Wasmtime already brings). Bodies and
//! other bytes travel as bytes (`serde_bytes`): as serde's sequence of
//! `u8`, postcard decoded them one byte at a time.
//!
//! One exchange on a lane: the server sends [`ToWorker::New`],
//! [`ToWorker::Render`] or [`ToWorker::Resume`]; the worker answers with any
//! number of [`FromWorker::Log`], [`FromWorker::Call`] (each call
//! answered by one [`ToWorker::Reply`]) and [`FromWorker::Tell`] (not
//! answered), then one [`FromWorker::Done`]. Or the server sends
//! [`ToWorker::Intl`] (`web/intl.rs`), answered by one [`FromWorker::Done`].
//! [`ToWorker::Free`] travels on the control socket and has no answer.
//!
//! Invariant: a reader never allocates more than the frame limit it was
//! given, nor more than the bytes that actually arrived: a length of 4 GiB
//! from a worker is an error before any allocation, and a frame is read
//! as it comes, not allocated up front.

use std::io::{self, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use contract::Reply;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::engine::v8::Params;

/// How a call into an isolate ended.
#[derive(Debug, Serialize, Deserialize)]
pub enum Outcome {
    /// The body, and the rest of the response as JSON (the contract's
    /// `Response` in its serde form, without its body).
    Ok {
        #[serde(with = "serde_bytes")]
        body: Vec<u8>,
        meta: String,
    },
    /// The prelude's `describe()` of the failure, as JSON.
    JsError(String),
    Timeout,
    OutOfMemory,
    /// The render waits for requests in flight, at most this many
    /// milliseconds (`None`: as long as its deadline allows); go on with
    /// [`ToWorker::Resume`].
    Waiting(Option<u64>),
}

/// The most lanes a worker takes (one `SCM_RIGHTS` message).
pub const MAX_LANES: usize = 250;

/// What the server asks of a worker process.
#[derive(Debug, Serialize, Deserialize)]
pub enum ToWorker {
    /// Make isolate `id` of `params`, and evaluate the prelude and
    /// `bundle` in it (the worker's `load`, `host/v8-worker/src/worker.rs`).
    New {
        id: u64,
        params: Params,
        bundle: String,
    },
    /// Render on isolate `id` (the worker's `ffi::Isolate::render`); `streams`: the
    /// server sends a streamed body as it comes (`response-head`'s answer);
    /// `others`: other V8 renders were in flight when it began, so a long
    /// one may lower its thread (`crate::sched`).
    Render {
        id: u64,
        request: String,
        #[serde(with = "serde_bytes")]
        body: Vec<u8>,
        cpu_ms: u32,
        deadline_ms: u32,
        streams: bool,
        others: bool,
    },
    /// Go on with a render that is waiting (the worker's `ffi::Isolate::resume`).
    Resume {
        id: u64,
        value: String,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
        cpu_ms: u32,
        deadline_ms: u32,
        streams: bool,
        others: bool,
    },
    /// The answer to a [`FromWorker::Call`]: the reply, or the refusal's
    /// message.
    Reply(Result<Reply, String>),
    /// Isolate `id` is no longer needed.
    Free { id: u64 },
    /// One `Intl` call of the Wasm engine (`web/intl.rs`), answered by the
    /// lane's service isolate: `Done`'s outcome is `Ok` with the answer as
    /// its body, or the failure.
    Intl { args: String },
}

/// What a worker process says.
#[derive(Debug, Serialize, Deserialize)]
pub enum FromWorker {
    /// One `console.*` line (the level's code, `LogLevel::from_code`).
    Log { level: i32, message: String },
    /// A capability the worker cannot answer itself.
    Call {
        name: String,
        args: String,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    /// A streamed body's head, chunk or end ([`TOLD`]), whose answer the
    /// worker knows (`streams`): no reply comes. A refusal is kept by the
    /// server; it fails the next [`FromWorker::Call`] of the same kind, or
    /// the render when it ends.
    Tell {
        name: String,
        args: String,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    /// The exchange's end: how the call into the isolate ended, the
    /// isolate's heap in use, the CPU time the call used, the core offers
    /// the process made since its last `Done`, and whether the call lowered
    /// its lane's thread (`sched`).
    Done {
        outcome: Outcome,
        heap_used: u64,
        cpu_us: u64,
        offers: u64,
        lowered: bool,
    },
}

/// The calls a worker may send as [`FromWorker::Tell`].
pub const TOLD: [&str; 3] = [
    contract::calls::RESPONSE_HEAD,
    contract::calls::RESPONSE_WRITE,
    contract::calls::RESPONSE_END,
];

/// Whether a call of `name` with `args` may be told: a streamed body's
/// head, end, or chunk (`response-write` with a chunk; its `"drained"`
/// waits for an answer, so it is always a call).
pub fn may_tell(name: &str, args: &str) -> bool {
    TOLD.contains(&name) && (name != contract::calls::RESPONSE_WRITE || args == "null")
}

/// A socket of frames, read through a buffer: a message of a few hundred
/// bytes comes in one `recv`, not one for its length and more for the
/// rest (the trivial page's exchange made five).
pub struct Lane {
    stream: BufReader<UnixStream>,
}

impl Lane {
    pub fn new(stream: UnixStream) -> Lane {
        Lane {
            stream: BufReader::with_capacity(64 << 10, stream),
        }
    }

    pub fn send(&mut self, message: &impl Serialize) -> io::Result<()> {
        send(&mut self.stream.get_ref(), message)
    }

    pub fn receive<T: DeserializeOwned>(&mut self, limit: usize) -> io::Result<T> {
        receive(&mut self.stream, limit)
    }

    /// How long a read or a write may wait (none: for ever).
    pub fn patience(&self, wait: Option<Duration>) -> io::Result<()> {
        let stream = self.stream.get_ref();
        stream.set_read_timeout(wait)?;
        stream.set_write_timeout(wait)
    }

    /// Writes `bytes` as they are (tests only: a broken worker's channel,
    /// when the worker's `ssr::TEST_HOOKS` lets a test ask for one).
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.get_ref().write_all(bytes)
    }
}

/// Writes one frame.
pub fn send(to: &mut impl Write, message: &impl Serialize) -> io::Result<()> {
    to.write_all(&frame(message)?)
}

/// Reads one frame of at most `limit` bytes. A longer length, a frame cut
/// short, or bytes that are not a message are errors naming the problem.
pub fn receive<T: DeserializeOwned>(from: &mut impl Read, limit: usize) -> io::Result<T> {
    let mut len = [0; 4];
    from.read_exact(&mut len)?;
    let len = length(len, limit)?;
    // Room for what a message usually is, never for what a length claims.
    let mut bytes = Vec::with_capacity(len.min(64 << 10));
    from.take(len as u64).read_to_end(&mut bytes)?;
    decode(&bytes, len)
}

/// A lane the server's async runtime drives: the same frames, read and
/// written by a request's task without a thread of its own.
pub struct AsyncLane {
    stream: tokio::io::BufReader<tokio::net::UnixStream>,
}

impl AsyncLane {
    /// Registers `stream` with the runtime of the calling thread.
    pub fn new(stream: UnixStream) -> io::Result<AsyncLane> {
        stream.set_nonblocking(true)?;
        let stream = tokio::net::UnixStream::from_std(stream)?;
        Ok(AsyncLane {
            stream: tokio::io::BufReader::with_capacity(64 << 10, stream),
        })
    }

    pub async fn send(&mut self, message: &impl Serialize) -> io::Result<()> {
        use tokio::io::AsyncWriteExt;
        self.stream.get_mut().write_all(&frame(message)?).await
    }

    /// As [`receive`].
    pub async fn receive<T: DeserializeOwned>(&mut self, limit: usize) -> io::Result<T> {
        use tokio::io::AsyncReadExt;
        let mut len = [0; 4];
        self.stream.read_exact(&mut len).await?;
        let len = length(len, limit)?;
        let mut bytes = Vec::with_capacity(len.min(64 << 10));
        (&mut self.stream)
            .take(len as u64)
            .read_to_end(&mut bytes)
            .await?;
        decode(&bytes, len)
    }
}

/// A message as a frame: its length, then itself.
fn frame(message: &impl Serialize) -> io::Result<Vec<u8>> {
    let bytes = postcard::to_allocvec(message).map_err(io::Error::other)?;
    let len = u32::try_from(bytes.len())
        .map_err(|_| io::Error::other(format!("a message of {} bytes", bytes.len())))?;
    let mut frame = Vec::with_capacity(4 + bytes.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(&bytes);
    Ok(frame)
}

/// A frame's length, if it is within `limit`.
fn length(len: [u8; 4], limit: usize) -> io::Result<usize> {
    let len = u32::from_le_bytes(len) as usize;
    if len > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes, over the limit of {limit}"),
        ));
    }
    Ok(len)
}

/// The message in a frame's `len` bytes, of which `bytes` arrived.
fn decode<T: DeserializeOwned>(bytes: &[u8], len: usize) -> io::Result<T> {
    if bytes.len() < len {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    postcard::from_bytes(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame that is not a message: {e}"),
        )
    })
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn a_message_goes_through_and_a_long_or_bad_frame_is_refused() {
        let mut buf = Vec::new();
        let done = FromWorker::Done {
            outcome: Outcome::Ok {
                body: b"<p>hi</p>".to_vec(),
                meta: "{}".into(),
            },
            heap_used: 7,
            cpu_us: 9,
            offers: 1,
            lowered: true,
        };
        send(&mut buf, &done).unwrap();
        let back: FromWorker = receive(&mut buf.as_slice(), 1 << 20).unwrap();
        assert_eq!(format!("{back:?}"), format!("{done:?}"));

        let mut huge = u32::MAX.to_le_bytes().to_vec();
        huge.extend_from_slice(b"garbage");
        let err = receive::<FromWorker>(&mut huge.as_slice(), 1 << 20).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a frame of 4294967295 bytes, over the limit of 1048576"
        );

        let mut garbage = 3u32.to_le_bytes().to_vec();
        garbage.extend_from_slice(&[0xff, 0xff, 0xff]);
        let err = receive::<FromWorker>(&mut garbage.as_slice(), 1 << 20).unwrap_err();
        assert!(
            err.to_string().starts_with("a frame that is not a message"),
            "{err}"
        );

        let mut short = 100u32.to_le_bytes().to_vec();
        short.extend_from_slice(b"abc");
        let err = receive::<FromWorker>(&mut short.as_slice(), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    crate::unit_tests!(a_message_goes_through_and_a_long_or_bad_frame_is_refused);
}
