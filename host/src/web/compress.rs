//! `CompressionStream` and `DecompressionStream` (`calls::COMPRESS`): the
//! Compression Standard's `gzip`, `deflate` (zlib) and `deflate-raw`, done
//! by the host with `flate2` (checked by WPT's `compression/`). The
//! prelude's streams feed it chunk by chunk; the coder lives in the
//! instance's `Imports` between calls (`super::open`).
//!
//! The gzip wrapper (RFC 1952: a header, raw deflate, CRC-32 and length) is
//! read and written here around `flate2`'s raw deflate, so that every
//! format goes through the same low-level calls, which say exactly how
//! much input they took: data after the end of the compressed stream, a
//! stream cut short, and a wrong checksum are each a `TypeError`, as the
//! standard asks.
//!
//! Invariants:
//! - Bounded: one call returns at most [`MAX_CHUNK`] bytes. A decompression
//!   that inflates past that keeps the rest of its input and answers
//!   `more: true`; the prelude calls again, with no input, until it is
//!   `false`, so a small input that inflates to gigabytes is handed out a
//!   chunk at a time, each counted against the tenant's memory as it lands.
//! - Nothing here panics on input; an error ends the stream.

use contract::Reply;
use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};
use serde::Deserialize;

use super::open::Open;

/// The most bytes one call returns.
pub const MAX_CHUNK: usize = 1 << 20;

/// The longest gzip header read: its extra field is at most 64 KiB, and a
/// name or comment longer than that is refused rather than buffered.
const MAX_HEADER: usize = 3 << 16;

/// One call, as the prelude sends it.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Args {
    /// A new stream: `format` is `gzip`, `deflate` or `deflate-raw`;
    /// `level` (0-9, default 6) is the compression level, as zlib's.
    Open {
        format: String,
        compress: bool,
        #[serde(default)]
        level: Option<u32>,
    },
    /// The call's bytes go in (none: take more of what is pending).
    Write { id: u32 },
    /// The input ended: what is left comes out, and the stream closes
    /// once a reply says `more: false`.
    Finish { id: u32 },
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Gzip,
    Deflate,
    Raw,
}

/// One stream's coder.
enum Coder {
    Compress {
        raw: Compress,
        format: Format,
        crc: Crc,
        started: bool,
    },
    Decompress(Inflate),
}

/// A decompression: where it is in the format, and input it has not taken.
struct Inflate {
    raw: Decompress,
    format: Format,
    crc: Crc,
    stage: Stage,
    /// Input waiting because the last reply was full.
    pending: Vec<u8>,
}

#[derive(PartialEq)]
enum Stage {
    /// The gzip header's bytes so far.
    Header(Vec<u8>),
    Body,
    /// The gzip trailer's bytes so far.
    Trailer(Vec<u8>),
    Done,
}

/// The streams of one instance.
pub struct Coders(Open<Coder>);

impl Default for Coders {
    fn default() -> Coders {
        Coders(Open::new("compress"))
    }
}

impl Coders {
    /// Answers one call: `{id}` for `open`, else `{more}` with the bytes
    /// that came out.
    pub fn call(&mut self, args: &str, data: &[u8]) -> Result<Reply, String> {
        let args: Args = serde_json::from_str(args)
            .map_err(|e| format!("compress: the arguments do not parse: {e}"))?;
        let (id, last) = match args {
            Args::Open {
                format,
                compress,
                level,
            } => {
                let level = match level {
                    None => Compression::default(),
                    Some(l @ 0..=9) => Compression::new(l),
                    Some(l) => {
                        return Err(format!(
                            "RangeError: the compression level {l} is not between 0 and 9"
                        ));
                    }
                };
                let format = match format.as_str() {
                    "gzip" => Format::Gzip,
                    "deflate" => Format::Deflate,
                    "deflate-raw" => Format::Raw,
                    other => {
                        return Err(format!(
                            "TypeError: Unsupported compression format: '{other}'"
                        ));
                    }
                };
                let coder = if compress {
                    Coder::Compress {
                        raw: Compress::new(level, format == Format::Deflate),
                        format,
                        crc: Crc::new(),
                        started: false,
                    }
                } else {
                    Coder::Decompress(Inflate {
                        raw: Decompress::new(format == Format::Deflate),
                        format,
                        crc: Crc::new(),
                        stage: match format {
                            Format::Gzip => Stage::Header(Vec::new()),
                            _ => Stage::Body,
                        },
                        pending: Vec::new(),
                    })
                };
                let id = self.0.keep(coder)?;
                return reply(serde_json::json!({ "id": id }), Vec::new());
            }
            Args::Write { id } => (id, false),
            Args::Finish { id } => (id, true),
        };
        let mut coder = self.0.take(id)?;
        let mut out = Vec::new();
        let more = match &mut coder {
            Coder::Compress {
                raw,
                format,
                crc,
                started,
            } => {
                if !*started && *format == Format::Gzip {
                    // No name, time or flags; OS "unknown", as browsers write.
                    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
                }
                *started = true;
                crc.update(data);
                deflate(raw, data, &mut out, FlushCompress::None)?;
                if last {
                    deflate(raw, &[], &mut out, FlushCompress::Finish)?;
                    if *format == Format::Gzip {
                        out.extend_from_slice(&crc.sum().to_le_bytes());
                        out.extend_from_slice(&crc.amount().to_le_bytes());
                    }
                }
                false
            }
            Coder::Decompress(inflate) => inflate.feed(data, last, &mut out)?,
        };
        if more || !last {
            self.0.put_back(id, coder);
        }
        reply(serde_json::json!({ "more": more }), out)
    }

    /// Drops every open stream (the render ended).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

fn reply(value: serde_json::Value, data: Vec<u8>) -> Result<Reply, String> {
    Ok(Reply {
        value: value.to_string(),
        data,
    })
}

/// Compresses all of `input` (and, with `Finish`, ends the stream).
fn deflate(
    raw: &mut Compress,
    input: &[u8],
    out: &mut Vec<u8>,
    flush: FlushCompress,
) -> Result<(), String> {
    let mut taken = 0;
    loop {
        out.reserve(input.len() - taken + 1024);
        let before = raw.total_in();
        let status = raw
            .compress_vec(&input[taken..], out, flush)
            .map_err(|e| format!("TypeError: compression failed: {e}"))?;
        taken += (raw.total_in() - before) as usize;
        let full = out.len() == out.capacity();
        match status {
            Status::StreamEnd => return Ok(()),
            _ if taken == input.len() && !full && flush == FlushCompress::None => return Ok(()),
            _ => {}
        }
    }
}

impl Inflate {
    /// Takes `input` after what was pending, puts what comes out in `out`
    /// (up to [`MAX_CHUNK`]); true when it stopped there with more to give.
    fn feed(&mut self, data: &[u8], last: bool, out: &mut Vec<u8>) -> Result<bool, String> {
        let mut input = std::mem::take(&mut self.pending);
        input.extend_from_slice(data);
        let mut at = 0;
        loop {
            match &mut self.stage {
                Stage::Header(seen) => {
                    let want = (input.len() - at).min(512);
                    seen.extend_from_slice(&input[at..at + want]);
                    match gzip_header_len(seen)? {
                        None if seen.len() > MAX_HEADER => {
                            return Err("TypeError: the gzip header is invalid: its name, comment or extra field runs past 64 KiB".into());
                        }
                        None => {
                            at += want;
                            if at == input.len() {
                                break;
                            }
                        }
                        Some(len) => {
                            // Give back what the header did not use.
                            at += want - (seen.len() - len);
                            self.stage = Stage::Body;
                        }
                    }
                }
                Stage::Body => {
                    if out.len() >= MAX_CHUNK {
                        self.pending = input[at..].to_vec();
                        return Ok(true);
                    }
                    out.reserve((MAX_CHUNK - out.len()).min(64 << 10));
                    let (before_in, before_out) = (self.raw.total_in(), out.len());
                    let status = self
                        .raw
                        .decompress_vec(&input[at..], out, FlushDecompress::None)
                        .map_err(|e| format!("TypeError: the compressed data is corrupt: {e}"))?;
                    let took = (self.raw.total_in() - before_in) as usize;
                    at += took;
                    self.crc.update(&out[before_out..]);
                    if status != Status::StreamEnd && took == 0 && out.len() == before_out {
                        // No progress: it needs input, or its input is bad.
                        if at == input.len() {
                            break;
                        }
                        return Err("TypeError: the compressed data is corrupt".into());
                    }
                    if status == Status::StreamEnd {
                        self.stage = match self.format {
                            Format::Gzip => Stage::Trailer(Vec::new()),
                            _ => Stage::Done,
                        };
                    } else if out.len() < out.capacity() && at == input.len() {
                        // Room was left, and nothing more comes without input.
                        break;
                    }
                }
                Stage::Trailer(seen) => {
                    let want = (8 - seen.len()).min(input.len() - at);
                    seen.extend_from_slice(&input[at..at + want]);
                    at += want;
                    if seen.len() < 8 {
                        break;
                    }
                    let crc = u32::from_le_bytes([seen[0], seen[1], seen[2], seen[3]]);
                    let size = u32::from_le_bytes([seen[4], seen[5], seen[6], seen[7]]);
                    if crc != self.crc.sum() || size != self.crc.amount() {
                        return Err("TypeError: the gzip data's checksum or length is wrong".into());
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => {
                    if at < input.len() {
                        return Err(
                            "TypeError: there is data after the end of the compressed stream"
                                .into(),
                        );
                    }
                    break;
                }
            }
        }
        if last && self.stage != Stage::Done {
            return Err("TypeError: the compressed data ended before its end".into());
        }
        Ok(false)
    }
}

/// The length of the gzip header at the start of `b` (RFC 1952, section
/// 2.3), `None` while it is incomplete.
fn gzip_header_len(b: &[u8]) -> Result<Option<usize>, String> {
    let bad = |why: &str| Err(format!("TypeError: the gzip header is invalid: {why}"));
    if b.len() >= 2 && (b[0], b[1]) != (0x1f, 0x8b) {
        return bad("it does not start with 1f 8b");
    }
    if b.len() >= 3 && b[2] != 8 {
        return bad("its method is not deflate");
    }
    if b.len() < 10 {
        return Ok(None);
    }
    let flags = b[3];
    if flags & 0xe0 != 0 {
        return bad("reserved flags are set");
    }
    let mut at = 10;
    if flags & 4 != 0 {
        let Some(len) = b.get(at..at + 2) else {
            return Ok(None);
        };
        at += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [8, 16] {
        if flags & flag != 0 {
            match b
                .get(at..)
                .and_then(|rest| rest.iter().position(|&c| c == 0))
            {
                Some(end) => at += end + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    Ok((b.len() >= at).then_some(at))
}

#[cfg(test)]
mod tests {
    use super::{Coders, MAX_CHUNK};

    fn call(c: &mut Coders, args: &str, data: &[u8]) -> (serde_json::Value, Vec<u8>) {
        let r = c.call(args, data).unwrap();
        (serde_json::from_str(&r.value).unwrap(), r.data)
    }

    #[test]
    fn gzip_made_here_is_read_back_and_a_bomb_comes_out_in_bounded_pieces() {
        let mut c = Coders::default();
        let (v, _) = call(
            &mut c,
            r#"{"op":"open","format":"gzip","compress":true}"#,
            &[],
        );
        let id = v["id"].as_u64().unwrap();
        let mut packed = call(
            &mut c,
            &format!(r#"{{"op":"write","id":{id}}}"#),
            &vec![0; 8 << 20],
        )
        .1;
        packed.extend(call(&mut c, &format!(r#"{{"op":"finish","id":{id}}}"#), &[]).1);
        assert!(packed.len() < 64 << 10);

        let (v, _) = call(
            &mut c,
            r#"{"op":"open","format":"gzip","compress":false}"#,
            &[],
        );
        let id = v["id"].as_u64().unwrap();
        let (mut more, mut total) = (true, 0);
        let mut first = true;
        while more {
            let data = if first { packed.as_slice() } else { &[] };
            first = false;
            let (v, out) = call(&mut c, &format!(r#"{{"op":"finish","id":{id}}}"#), data);
            assert!(out.len() <= MAX_CHUNK);
            assert!(out.iter().all(|&b| b == 0));
            total += out.len();
            more = v["more"].as_bool().unwrap();
        }
        assert_eq!(total, 8 << 20);
        // Finished: the stream is gone.
        assert!(
            c.call(&format!(r#"{{"op":"write","id":{id}}}"#), &[])
                .is_err()
        );
    }

    #[test]
    fn a_header_that_never_ends_is_refused_not_buffered() {
        let mut c = Coders::default();
        let (v, _) = call(
            &mut c,
            r#"{"op":"open","format":"gzip","compress":false}"#,
            &[],
        );
        let id = v["id"].as_u64().unwrap();
        // FNAME set, and a name with no end.
        let mut header = vec![0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 0xff];
        header.extend(vec![b'a'; 1 << 20]);
        let err = c
            .call(&format!(r#"{{"op":"write","id":{id}}}"#), &header)
            .unwrap_err();
        assert!(
            err.starts_with("TypeError: the gzip header is invalid"),
            "{err}"
        );
    }
}
