//! `CompressionStream` and `DecompressionStream` (`calls::COMPRESS`): the
//! Compression Standard's `gzip`, `deflate` (zlib) and `deflate-raw`, done
//! by the host with `flate2` (checked by WPT's `compression/`); and for
//! `node:zlib` alone, brotli (the `brotli` crate) and zstd (`zstd`, on the
//! libzstd that Wasmtime's code cache already builds). The prelude's
//! streams and `node:zlib` feed it chunk by chunk; the coder lives in the
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

use std::io::Write;

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
    /// A new stream: `format` is `gzip`, `deflate`, `deflate-raw`,
    /// `brotli` or `zstd`; `level` (0-9, default 6) is the compression
    /// level of the first three, as zlib's; `params` are Node's
    /// `options.params` of the last two, as (key, value) pairs.
    Open {
        format: String,
        compress: bool,
        #[serde(default)]
        level: Option<u32>,
        #[serde(default)]
        params: Vec<(u32, i64)>,
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
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
    Unbrotli(Box<Unbrotli>),
    Zstd(Box<zstd::stream::raw::Encoder<'static>>),
    Unzstd(Box<Unzstd>),
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
                params,
                ..
            } if format == "brotli" || format == "zstd" => {
                let coder = match (format.as_str(), compress) {
                    ("brotli", true) => Coder::Brotli(Box::new(brotli_coder(&params)?)),
                    ("brotli", false) => Coder::Unbrotli(Box::default()),
                    (_, true) => Coder::Zstd(Box::new(zstd_coder(&params)?)),
                    (_, false) => Coder::Unzstd(Box::new(unzstd_coder(&params)?)),
                };
                let id = self.0.keep(coder)?;
                return reply(serde_json::json!({ "id": id }), Vec::new());
            }
            Args::Open {
                format,
                compress,
                level,
                ..
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
        if last && matches!(coder, Coder::Brotli(_)) {
            // The writer's last block goes out as it is taken apart.
            let Coder::Brotli(mut writer) = coder else {
                unreachable!()
            };
            writer.write_all(data).map_err(brotli_failed)?;
            return reply(serde_json::json!({ "more": false }), writer.into_inner());
        }
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
            Coder::Brotli(writer) => {
                writer.write_all(data).map_err(brotli_failed)?;
                out = std::mem::take(writer.get_mut());
                false
            }
            Coder::Unbrotli(unbrotli) => unbrotli.feed(data, last, &mut out)?,
            Coder::Zstd(encoder) => zstd_feed(encoder, data, last, &mut out)?,
            Coder::Unzstd(decoder) => decoder.feed(data, last, &mut out)?,
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

fn brotli_failed(e: std::io::Error) -> String {
    format!("Error: Compression failed: {e}")
}

/// Node's brotli parameters (`BROTLI_PARAM_*`) on brotli's defaults
/// (quality 11, a window of 2^22), each clamped to its range as the C
/// library does; an unknown one is refused with `workerd`'s message.
fn brotli_coder(params: &[(u32, i64)]) -> Result<brotli::CompressorWriter<Vec<u8>>, String> {
    let mut p = brotli::enc::BrotliEncoderParams::default();
    let within = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi) as i32;
    for &(key, value) in params {
        match key {
            0 => {
                p.mode = match value {
                    1 => brotli::enc::backward_references::BrotliEncoderMode::BROTLI_MODE_TEXT,
                    2 => brotli::enc::backward_references::BrotliEncoderMode::BROTLI_MODE_FONT,
                    _ => brotli::enc::backward_references::BrotliEncoderMode::BROTLI_MODE_GENERIC,
                }
            }
            1 => p.quality = within(value, 0, 11),
            2 => p.lgwin = within(value, 10, 30),
            3 => p.lgblock = if value == 0 { 0 } else { within(value, 16, 24) },
            4 => p.disable_literal_context_modeling = i32::from(value != 0),
            5 => p.size_hint = value.max(0) as usize,
            6 => p.large_window = value != 0,
            7 | 8 => {}
            _ => return Err("Error: Setting parameter failed".into()),
        }
    }
    if !p.large_window {
        p.lgwin = p.lgwin.min(24);
    }
    Ok(brotli::CompressorWriter::with_params(
        Vec::new(),
        64 << 10,
        &p,
    ))
}

/// A brotli decompression: the decoder's state, and input it has not
/// taken because the last reply was full.
struct Unbrotli {
    state: brotli::BrotliState<
        brotli::enc::StandardAlloc,
        brotli::enc::StandardAlloc,
        brotli::enc::StandardAlloc,
    >,
    pending: Vec<u8>,
    done: bool,
}

impl Default for Unbrotli {
    fn default() -> Unbrotli {
        use brotli::enc::StandardAlloc;
        Unbrotli {
            state: brotli::BrotliState::new(
                StandardAlloc::default(),
                StandardAlloc::default(),
                StandardAlloc::default(),
            ),
            pending: Vec::new(),
            done: false,
        }
    }
}

impl Unbrotli {
    /// As [`Inflate::feed`]: at most [`MAX_CHUNK`] out per call.
    fn feed(&mut self, data: &[u8], last: bool, out: &mut Vec<u8>) -> Result<bool, String> {
        use brotli::BrotliResult;
        let mut input = std::mem::take(&mut self.pending);
        input.extend_from_slice(data);
        let mut at = 0;
        let mut chunk = vec![0; 64 << 10];
        while !self.done {
            if out.len() >= MAX_CHUNK {
                self.pending = input[at..].to_vec();
                return Ok(true);
            }
            let (mut available_in, mut available_out) = (input.len() - at, chunk.len());
            let (mut written, mut total) = (0, 0);
            let result = brotli::BrotliDecompressStream(
                &mut available_in,
                &mut at,
                &input,
                &mut available_out,
                &mut written,
                &mut chunk,
                &mut total,
                &mut self.state,
            );
            out.extend_from_slice(&chunk[..written]);
            match result {
                BrotliResult::ResultSuccess => self.done = true,
                BrotliResult::NeedsMoreOutput => {}
                BrotliResult::NeedsMoreInput => break,
                BrotliResult::ResultFailure => {
                    return Err(
                        "TypeError: Decompression failed: the brotli data is corrupt".into(),
                    );
                }
            }
        }
        if self.done && at < input.len() {
            return Err("TypeError: there is data after the end of the compressed stream".into());
        }
        if last && !self.done {
            return Err("TypeError: Unexpected end of file".into());
        }
        Ok(false)
    }
}

/// The compression parameters of Node's `ZSTD_c_*` keys, from their values.
fn zstd_parameter(key: u32, value: i64) -> Option<zstd::zstd_safe::CParameter> {
    use zstd::zstd_safe::{CParameter as P, Strategy as S};
    let n = value.clamp(0, u32::MAX as i64) as u32;
    Some(match key {
        100 => P::CompressionLevel(value.clamp(-(1 << 17), 22) as i32),
        101 => P::WindowLog(n),
        102 => P::HashLog(n),
        103 => P::ChainLog(n),
        104 => P::SearchLog(n),
        105 => P::MinMatch(n),
        106 => P::TargetLength(n),
        107 => P::Strategy(match value {
            1 => S::ZSTD_fast,
            2 => S::ZSTD_dfast,
            3 => S::ZSTD_greedy,
            4 => S::ZSTD_lazy,
            5 => S::ZSTD_lazy2,
            6 => S::ZSTD_btlazy2,
            7 => S::ZSTD_btopt,
            8 => S::ZSTD_btultra,
            9 => S::ZSTD_btultra2,
            _ => return None,
        }),
        160 => P::EnableLongDistanceMatching(value != 0),
        161 => P::LdmHashLog(n),
        162 => P::LdmMinMatch(n),
        163 => P::LdmBucketSizeLog(n),
        164 => P::LdmHashRateLog(n),
        200 => P::ContentSizeFlag(value != 0),
        201 => P::ChecksumFlag(value != 0),
        202 => P::DictIdFlag(value != 0),
        _ => return None,
    })
}

/// A zstd compression at level 3 (`ZSTD_CLEVEL_DEFAULT`) with Node's
/// `params`; libzstd refuses a value out of its range.
fn zstd_coder(params: &[(u32, i64)]) -> Result<zstd::stream::raw::Encoder<'static>, String> {
    let failed = |e: std::io::Error| format!("Error: Zstd compression failed: {e}");
    let mut encoder = zstd::stream::raw::Encoder::new(3).map_err(failed)?;
    for &(key, value) in params {
        let parameter = zstd_parameter(key, value)
            .ok_or_else(|| format!("Error: Unsupported Zstd compression parameter: {key}"))?;
        encoder.set_parameter(parameter).map_err(failed)?;
    }
    Ok(encoder)
}

/// Compresses all of `data` (and, when `last`, ends the frame).
fn zstd_feed(
    encoder: &mut zstd::stream::raw::Encoder<'static>,
    data: &[u8],
    last: bool,
    out: &mut Vec<u8>,
) -> Result<bool, String> {
    use zstd::stream::raw::{InBuffer, Operation, OutBuffer};
    let failed = |e: std::io::Error| format!("Error: Zstd compression failed: {e}");
    let mut input = InBuffer::around(data);
    let mut chunk = Vec::with_capacity(64 << 10);
    while input.pos < data.len() {
        let mut output = OutBuffer::around(&mut chunk);
        encoder.run(&mut input, &mut output).map_err(failed)?;
        out.extend_from_slice(&chunk);
        chunk.clear();
    }
    if last {
        loop {
            let mut output = OutBuffer::around(&mut chunk);
            let left = encoder.finish(&mut output, true).map_err(failed)?;
            out.extend_from_slice(&chunk);
            chunk.clear();
            if left == 0 {
                break;
            }
        }
    }
    Ok(false)
}

/// A zstd decompression, and input it has not taken.
struct Unzstd {
    decoder: zstd::stream::raw::Decoder<'static>,
    pending: Vec<u8>,
    /// Whether the last frame read was complete.
    whole: bool,
    /// Whether the last run filled its output: the decoder may hold more.
    holding: bool,
}

/// A zstd decompression with Node's `ZSTD_d_windowLogMax` (100), the one
/// decompression parameter.
fn unzstd_coder(params: &[(u32, i64)]) -> Result<Unzstd, String> {
    let failed = |e: std::io::Error| format!("Error: Zstd decompression failed: {e}");
    let mut decoder = zstd::stream::raw::Decoder::new().map_err(failed)?;
    for &(key, value) in params {
        if key != 100 {
            return Err(format!(
                "Error: Unsupported Zstd decompression parameter: {key}"
            ));
        }
        let max = zstd::zstd_safe::DParameter::WindowLogMax(value.clamp(0, 31) as u32);
        decoder.set_parameter(max).map_err(failed)?;
    }
    Ok(Unzstd {
        decoder,
        pending: Vec::new(),
        whole: true,
        holding: false,
    })
}

impl Unzstd {
    /// As [`Inflate::feed`]: at most [`MAX_CHUNK`] out per call. Frames
    /// may follow one another, as libzstd reads them.
    fn feed(&mut self, data: &[u8], last: bool, out: &mut Vec<u8>) -> Result<bool, String> {
        use zstd::stream::raw::{InBuffer, Operation, OutBuffer};
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(data);
        let mut input = InBuffer::around(&bytes);
        let mut chunk = Vec::with_capacity(64 << 10);
        // Run while there is input, or output the decoder holds.
        while input.pos < bytes.len() || self.holding {
            if out.len() >= MAX_CHUNK {
                self.pending = bytes[input.pos..].to_vec();
                return Ok(true);
            }
            let before = input.pos;
            let mut output = OutBuffer::around(&mut chunk);
            let hint = self
                .decoder
                .run(&mut input, &mut output)
                .map_err(|e| format!("TypeError: Zstd decompression failed: {e}"))?;
            self.holding = output.pos() == output.capacity();
            // A run that moved nothing says what the next frame needs, not
            // whether the last one ended.
            if input.pos > before || !chunk.is_empty() {
                self.whole = hint == 0;
            }
            out.extend_from_slice(&chunk);
            chunk.clear();
        }
        if last && !self.whole {
            return Err("TypeError: unexpected end of file".into());
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

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::{Coders, MAX_CHUNK};

    fn call(c: &mut Coders, args: &str, data: &[u8]) -> (serde_json::Value, Vec<u8>) {
        let r = c.call(args, data).unwrap();
        (serde_json::from_str(&r.value).unwrap(), r.data)
    }

    fn what_is_made_here_is_read_back_and_a_bomb_comes_out_in_bounded_pieces() {
        for format in ["gzip", "deflate", "deflate-raw", "brotli", "zstd"] {
            let mut c = Coders::default();
            let open =
                |compress| format!(r#"{{"op":"open","format":"{format}","compress":{compress}}}"#);
            let (v, _) = call(&mut c, &open(true), &[]);
            let id = v["id"].as_u64().unwrap();
            let mut packed = call(
                &mut c,
                &format!(r#"{{"op":"write","id":{id}}}"#),
                &vec![0; 8 << 20],
            )
            .1;
            packed.extend(call(&mut c, &format!(r#"{{"op":"finish","id":{id}}}"#), &[]).1);
            assert!(packed.len() < 64 << 10, "{format}");

            let (v, _) = call(&mut c, &open(false), &[]);
            let id = v["id"].as_u64().unwrap();
            let (mut more, mut total) = (true, 0);
            let mut first = true;
            while more {
                let data = if first { packed.as_slice() } else { &[] };
                first = false;
                let (v, out) = call(&mut c, &format!(r#"{{"op":"finish","id":{id}}}"#), data);
                assert!(out.len() <= MAX_CHUNK, "{format}");
                assert!(out.iter().all(|&b| b == 0), "{format}");
                total += out.len();
                more = v["more"].as_bool().unwrap();
            }
            assert_eq!(total, 8 << 20, "{format}");
            // Finished: the stream is gone.
            assert!(
                c.call(&format!(r#"{{"op":"write","id":{id}}}"#), &[])
                    .is_err(),
                "{format}"
            );
        }
    }

    fn cut_or_trailing_brotli_and_zstd_are_refused() {
        for format in ["brotli", "zstd"] {
            let mut c = Coders::default();
            let open =
                |compress| format!(r#"{{"op":"open","format":"{format}","compress":{compress}}}"#);
            let (v, _) = call(&mut c, &open(true), &[]);
            let id = v["id"].as_u64().unwrap();
            let packed = call(
                &mut c,
                &format!(r#"{{"op":"finish","id":{id}}}"#),
                &[7; 4096],
            )
            .1;
            for bad in [
                &packed[..packed.len() / 2],
                &[packed.as_slice(), b"tail"].concat()[..],
            ] {
                let (v, _) = call(&mut c, &open(false), &[]);
                let id = v["id"].as_u64().unwrap();
                let err = c
                    .call(&format!(r#"{{"op":"finish","id":{id}}}"#), bad)
                    .unwrap_err();
                assert!(err.starts_with("TypeError: "), "{format}: {err}");
            }
        }
    }

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

    crate::unit_tests!(
        what_is_made_here_is_read_back_and_a_bomb_comes_out_in_bounded_pieces,
        cut_or_trailing_brotli_and_zstd_are_refused,
        a_header_that_never_ends_is_refused_not_buffered
    );
}
