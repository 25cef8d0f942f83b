//! `TextDecoder`'s encodings beyond UTF-8 (`calls::TEXT_DECODE`): the
//! prelude decodes UTF-8 itself and hands every other encoding of the
//! Encoding Standard (the legacy single-byte ones, the CJK ones, UTF-16) to
//! `encoding_rs`, Firefox's implementation of that standard (checked by
//! WPT's `encoding/`, `benches/wpt.sh`). Its tables stay in the host, out
//! of every tenant's snapshot.
//!
//! Lifetime: a [`Decoders`] per instance (in `web::Imports`),
//! holding the decoders of `decode(bytes, {stream: true})` calls between
//! one call and the next, until the stream's last call or the render's end.
//!
//! Invariants:
//! - A whole decode (`stream: false`, no open decoder) and a label lookup
//!   are pure: the answer depends on the arguments alone, so the top level
//!   may call them at build time ([`pure`]).
//! - Streams are held as `super::open` holds them: a bounded number per
//!   instance, all dropped at the render's end.
//! - A malformed sequence under `fatal` is `Err("TypeError: ...")`, which
//!   the prelude throws; nothing here panics on input, and one call's work
//!   is linear in its bytes.

use contract::Reply;
use encoding_rs::{CoderResult, Decoder, DecoderResult, Encoding};
use serde::Deserialize;

use super::open::Open;

/// One call, as the prelude sends it.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Args {
    /// The encoding a label names: its lowercase name, or `null`.
    Label { label: String },
    /// Decodes the call's bytes. `id` continues an open stream; `stream`
    /// keeps (or opens) one for the next call.
    Decode {
        encoding: String,
        #[serde(default)]
        fatal: bool,
        #[serde(default, rename = "ignoreBOM")]
        ignore_bom: bool,
        #[serde(default)]
        stream: bool,
        id: Option<u32>,
    },
}

/// The streaming decoders of one instance, by id.
pub struct Decoders(Open<Decoder>);

impl Default for Decoders {
    fn default() -> Decoders {
        Decoders(Open::new("text-decode"))
    }
}

impl Decoders {
    /// Answers one call, streams included.
    pub fn call(&mut self, args: &str, data: &[u8]) -> Result<Reply, String> {
        self.answer(parse(args)?, data)
    }

    fn answer(&mut self, args: Args, data: &[u8]) -> Result<Reply, String> {
        match args {
            Args::Decode {
                encoding,
                fatal,
                ignore_bom,
                stream,
                id,
            } => {
                let mut decoder = match id {
                    Some(id) => self.0.take(id)?,
                    None => new_decoder(&encoding, ignore_bom)?,
                };
                let text = decode(&mut decoder, data, fatal, !stream, &encoding)?;
                let id = match (stream, id) {
                    (false, _) => None,
                    (true, Some(id)) => {
                        self.0.put_back(id, decoder);
                        Some(id)
                    }
                    (true, None) => Some(self.0.keep(decoder)?),
                };
                reply(&serde_json::json!({ "text": text, "id": id }))
            }
            Args::Label { label } => lookup(&label),
        }
    }

    /// Drops every open stream (the render ended).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// The calls that need no open stream: label lookups and whole decodes,
/// answered as an instance answers them, with no stream to keep.
pub fn pure(args: &str, data: &[u8]) -> Result<Reply, String> {
    match parse(args)? {
        Args::Decode { stream: true, .. } | Args::Decode { id: Some(_), .. } => Err(
            "text-decode: a streaming decode of this encoding is not available while the module's top level runs at build time".into(),
        ),
        args => Decoders::default().answer(args, data),
    }
}

fn parse(args: &str) -> Result<Args, String> {
    serde_json::from_str(args).map_err(|e| format!("text-decode: the arguments do not parse: {e}"))
}

fn lookup(label: &str) -> Result<Reply, String> {
    // The standard's "get an encoding": ASCII whitespace trimmed, any case.
    let name = Encoding::for_label(
        label
            .trim_matches(['\t', '\n', '\x0c', '\r', ' '])
            .as_bytes(),
    )
    .map(|e| e.name().to_ascii_lowercase());
    reply(&name)
}

fn reply(value: &impl serde::Serialize) -> Result<Reply, String> {
    Ok(Reply {
        value: serde_json::to_string(value).map_err(|e| e.to_string())?,
        data: Vec::new(),
    })
}

fn new_decoder(encoding: &str, ignore_bom: bool) -> Result<Decoder, String> {
    let encoding = Encoding::for_label(encoding.as_bytes())
        .ok_or_else(|| format!("RangeError: the encoding {encoding:?} is not supported"))?;
    // TextDecoder strips a BOM of its own encoding only, never sniffs one.
    Ok(if ignore_bom {
        encoding.new_decoder_without_bom_handling()
    } else {
        encoding.new_decoder_with_bom_removal()
    })
}

fn decode(
    decoder: &mut Decoder,
    bytes: &[u8],
    fatal: bool,
    last: bool,
    name: &str,
) -> Result<String, String> {
    let mut out = String::new();
    if fatal {
        let room = decoder
            .max_utf8_buffer_length_without_replacement(bytes.len())
            .ok_or("RangeError: the input is too long to decode")?;
        out.reserve(room);
        let (result, _) = decoder.decode_to_string_without_replacement(bytes, &mut out, last);
        return match result {
            DecoderResult::InputEmpty => Ok(out),
            DecoderResult::Malformed(..) => {
                Err(format!("TypeError: The encoded data was not valid {name}"))
            }
            // The room was computed for the whole input.
            DecoderResult::OutputFull => Err("RangeError: the decoded text did not fit".into()),
        };
    }
    let room = decoder
        .max_utf8_buffer_length(bytes.len())
        .ok_or("RangeError: the input is too long to decode")?;
    out.reserve(room);
    let (result, _, _) = decoder.decode_to_string(bytes, &mut out, last);
    match result {
        CoderResult::InputEmpty => Ok(out),
        CoderResult::OutputFull => Err("RangeError: the decoded text did not fit".into()),
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::{Decoders, pure};

    fn text(reply: Result<contract::Reply, String>) -> serde_json::Value {
        serde_json::from_str(&reply.unwrap().value).unwrap()
    }

    fn labels_name_their_encoding_by_the_standard() {
        assert_eq!(
            text(pure(r#"{"op":"label","label":" Latin1\n"}"#, &[])),
            "windows-1252"
        );
        assert_eq!(
            text(pure(r#"{"op":"label","label":"sjis"}"#, &[])),
            "shift_jis"
        );
        assert_eq!(
            text(pure(r#"{"op":"label","label":"utf-7"}"#, &[])),
            serde_json::Value::Null
        );
    }

    fn a_stream_keeps_a_character_split_between_calls() {
        let mut d = Decoders::default();
        // "日" in Shift_JIS is 0x93 0xFA, cut between two calls.
        let first = text(d.call(
            r#"{"op":"decode","encoding":"shift_jis","stream":true,"id":null}"#,
            &[b'a', 0x93],
        ));
        assert_eq!(first["text"], "a");
        let id = first["id"].as_u64().unwrap();
        let args = format!(r#"{{"op":"decode","encoding":"shift_jis","stream":false,"id":{id}}}"#);
        let second = text(d.call(&args, &[0xFA]));
        assert_eq!(second["text"], "日");
        assert!(d.call(&args, &[]).unwrap_err().contains("not open"));
    }

    fn fatal_refuses_a_malformed_byte_and_replacement_replaces_it() {
        let bad = [0x80, 0xFF];
        let fatal = pure(
            r#"{"op":"decode","encoding":"shift_jis","fatal":true}"#,
            &bad,
        );
        assert!(fatal.unwrap_err().starts_with("TypeError: "));
        let lax = text(pure(
            r#"{"op":"decode","encoding":"iso-8859-6"}"#,
            &[0xA1, 0x41],
        ));
        assert_eq!(lax["text"], "\u{FFFD}A");
    }

    fn streams_past_the_bound_are_refused_by_name() {
        let mut d = Decoders::default();
        for _ in 0..super::super::open::MAX_OPEN {
            d.call(
                r#"{"op":"decode","encoding":"utf-16le","stream":true}"#,
                &[0x41],
            )
            .unwrap();
        }
        let over = d.call(
            r#"{"op":"decode","encoding":"utf-16le","stream":true}"#,
            &[0x41],
        );
        assert!(over.unwrap_err().contains("streams are open already"));
        d.clear();
        assert!(
            d.call(
                r#"{"op":"decode","encoding":"utf-16le","stream":true}"#,
                &[]
            )
            .is_ok()
        );
    }

    crate::unit_tests!(
        labels_name_their_encoding_by_the_standard,
        a_stream_keeps_a_character_split_between_calls,
        fatal_refuses_a_malformed_byte_and_replacement_replaces_it,
        streams_past_the_bound_are_refused_by_name
    );
}
