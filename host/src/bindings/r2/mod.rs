//! R2: what an `R2Bucket` call may ask (`calls::R2`), checked against R2's
//! limits and refused in R2's words (as `wrangler dev` words them), and
//! the two halves its stores implement: [`Meta`], what objects there are
//! (`sqlite.rs` embedded, `redis.rs` across replicas), and [`Blobs`],
//! their bytes (`files.rs` in the data dir, `s3.rs` in an S3-compatible
//! object store).
//!
//! An object's bytes are written first, as new blobs no one else names;
//! then its metadata names them, in one atomic write that also checks the
//! put's conditions; then the blobs it replaced are deleted. So a reader
//! sees the old object or the new one, never a mix; a crash between the
//! two leaves unnamed blobs (never a named one missing), which a sweep
//! removes.
//!
//! Bytes stream both ways: a body larger than [`WHOLE`] is read by the
//! prelude a piece at a time (`read`), and a stream is written a piece at
//! a time (`write`), each piece one call, so the host holds at most a
//! piece of each (and `s3.rs` one segment) however large the object.
//!
//! Invariants:
//! - Every limit is checked here, in the host, whatever the prelude
//!   checked first: a key of at most [`MAX_KEY`] bytes, custom metadata of
//!   at most [`MAX_METADATA`], an object of at most [`MAX_PUT`] in one put,
//!   a part of at most that, and the tenant's quota, before a byte is
//!   written.
//! - A bucket belongs to one tenant: its name in a store is the tenant's
//!   id, `/`, its name in the config; a call names a binding, never a
//!   bucket.
//! - A streamed write that does not end (the render ended, the client
//!   went away) leaves nothing named: its blobs are deleted.

pub mod files;
pub mod redis;
pub mod s3;
pub mod sqlite;

use std::collections::HashSet;
use std::io::Read;
use std::sync::Arc;

use md5::Digest as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::kv::{after_cursor, cursor_of, text_of};

/// The longest key, in UTF-8 bytes.
pub const MAX_KEY: usize = 1024;
/// The most custom metadata, keys and values together.
pub const MAX_METADATA: usize = 2048;
/// The largest object one put writes (and one part): 5 GiB less 5 MiB.
pub const MAX_PUT: u64 = 5 * (1 << 30) - 5 * (1 << 20);
/// The smallest part of a multipart upload but its last.
pub const MIN_PART: u64 = 5 << 20;
/// The most parts of a multipart upload.
pub const MAX_PARTS: u32 = 10_000;
/// The most objects one `list` returns (and what it returns unasked).
pub const MAX_LIST: usize = 1000;
/// The most keys one `delete` removes.
pub const MAX_DELETE: usize = 1000;
/// A body of at most this many bytes comes whole with its answer; a
/// larger one is read a piece of this size at a time. Each piece is a call
/// and a wake of the render: at 256 KiB a get of 1 MiB took 5.7-6.0 ms
/// through the object store and 1.9-2.1 ms from the embedded store on
/// Wasm (4.3-5.0 on V8), at 1 MiB 3.5-4.4, 1.6-1.7 and 2.5-2.7 (2026-12-01,
/// `benches/bindings.sh`, two builds alternated twice).
pub const WHOLE: u64 = 1 << 20;

/// One blob of an object's bytes: its id in [`Blobs`], and its size.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Segment {
    pub id: String,
    pub size: u64,
}

/// An object's HTTP metadata, as R2 keeps it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Http {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_disposition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_encoding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<String>,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_expiry: Option<f64>,
}

/// An object: what its metadata store keeps of it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Object {
    pub key: String,
    pub version: String,
    pub size: u64,
    pub etag: String,
    /// Milliseconds since the epoch.
    pub uploaded: u64,
    #[serde(default)]
    pub http: Http,
    /// In the order the app gave them.
    #[serde(default)]
    pub custom: Vec<(String, String)>,
    /// Hex digests by R2's names (`md5`, `sha1`, ...).
    #[serde(default)]
    pub checksums: Vec<(String, String)>,
    /// Its bytes, in order.
    pub segments: Vec<Segment>,
}

impl Object {
    /// The blobs it is made of.
    pub fn blobs(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().map(|s| s.id.as_str())
    }

    /// As the prelude takes it: without its blobs; `range` for a read.
    fn shown(&self, range: Option<(u64, u64)>) -> Value {
        let mut v = json!({
            "key": self.key,
            "version": self.version,
            "size": self.size,
            "etag": self.etag,
            "uploaded": self.uploaded,
            "http": self.http,
            "custom": self.custom,
            "checksums": self.checksums,
        });
        if let Some((offset, length)) = range {
            v["range"] = json!({ "offset": offset, "length": length });
        }
        v
    }
}

/// A multipart upload in progress.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Upload {
    pub key: String,
    pub http: Http,
    pub custom: Vec<(String, String)>,
    /// When it started, in milliseconds since the epoch: one left longer
    /// than `--r2-upload-expiry` is aborted ([`Store::sweep_uploads`]).
    #[serde(default)]
    pub started: u64,
}

/// A part of a multipart upload.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Part {
    pub etag: String,
    /// The hex MD5 of its bytes, for the object's etag.
    pub md5: String,
    pub size: u64,
    pub segments: Vec<Segment>,
}

/// Where an upload stands (`Meta::upload`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum State {
    InProgress,
    Completed,
    Aborted,
}

/// Where buckets keep what objects there are. `ns` is the bucket's full
/// name (its tenant's id, `/`, its name). A call may block.
pub trait Meta: Send + Sync {
    fn get(&self, ns: &str, key: &str) -> Result<Option<Object>, String>;
    /// Stores `object` if `holds` says yes of what is under its key now,
    /// atomically with that check: the blobs it replaced, or `None` (and
    /// nothing stored) when `holds` said no.
    fn put(
        &self,
        ns: &str,
        object: &Object,
        holds: &dyn Fn(Option<&Object>) -> bool,
    ) -> Result<Option<Vec<String>>, String>;
    /// Removes `keys` (those not there are no error): the blobs freed.
    fn delete(&self, ns: &str, keys: &[String]) -> Result<Vec<String>, String>;
    /// Up to `limit` objects whose keys start with `prefix` and sort after
    /// `after`, in the byte order of their UTF-8.
    fn list(
        &self,
        ns: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Object>, String>;
    /// Starts a multipart upload: its id.
    fn create_upload(&self, ns: &str, upload: &Upload) -> Result<String, String>;
    /// An upload of `key`, where it stands, and its parts by number.
    #[allow(clippy::type_complexity)]
    fn upload(
        &self,
        ns: &str,
        id: &str,
        key: &str,
    ) -> Result<Option<(Upload, State, Vec<(u32, Part)>)>, String>;
    /// Keeps `part` as number `n` of an upload in progress: the blobs of
    /// the part it replaced; `None` when the upload is not in progress.
    fn put_part(
        &self,
        ns: &str,
        id: &str,
        key: &str,
        n: u32,
        part: &Part,
    ) -> Result<Option<Vec<String>>, String>;
    /// Ends an upload in progress: completed with `object` (its parts'
    /// blobs) stored, or aborted without one: the blobs freed (unused parts, the
    /// object it replaced); `None` when it was not in progress.
    fn end_upload(
        &self,
        ns: &str,
        id: &str,
        key: &str,
        object: Option<&Object>,
    ) -> Result<Option<Vec<String>>, String>;
    /// The bytes one tenant keeps, over all its buckets (objects and parts
    /// of uploads in progress).
    fn usage(&self, tenant: &str) -> Result<u64, String>;
    /// Uploads in progress that started before `before` (milliseconds
    /// since the epoch): `(ns, id, key)` each.
    fn abandoned(&self, before: u64) -> Result<Vec<(String, String, String)>, String>;
    /// Every blob an object or a part names, in every bucket: what the
    /// sweep of unnamed blobs keeps.
    fn named_blobs(&self) -> Result<HashSet<String>, String>;
}

/// Adds the blobs an object or a part names (`v`, as its store keeps it:
/// its `segments`) to `named`: what [`Meta::named_blobs`] collects.
fn note_blobs(v: &Value, named: &mut HashSet<String>) {
    let ids = v["segments"].as_array().into_iter().flatten();
    named.extend(ids.filter_map(|s| s["id"].as_str()).map(String::from));
}

/// Where objects' bytes are: blobs, each written once under a new id.
pub trait Blobs: Send + Sync {
    /// A writer of new blobs.
    fn writer(&self) -> Result<Box<dyn BlobWriter>, String>;
    /// `length` bytes of blob `id` from `offset`.
    fn open(&self, id: &str, offset: u64, length: u64) -> Result<Box<dyn Read + Send>, String>;
    /// Deletes blobs (those not there are no error); a failure is logged
    /// and leaves the blob unnamed, for a sweep to remove.
    fn delete(&self, ids: &[String]);
    /// Deletes the blobs written before `before` (milliseconds since the
    /// epoch) that `named` (asked once they are listed) does not hold:
    /// writes a crash or a failed delete left behind. How many. A store
    /// that sweeps its own at start (files) has nothing to do here.
    fn sweep(
        &self,
        _before: u64,
        _named: &dyn Fn() -> Result<HashSet<String>, String>,
    ) -> Result<usize, String> {
        Ok(0)
    }
}

/// Bytes written as they come, kept once [`BlobWriter::finish`] returns.
/// Dropped unfinished, it deletes what it wrote.
pub trait BlobWriter: Send {
    fn write(&mut self, data: &[u8]) -> Result<(), String>;
    /// The blobs written, durable.
    fn finish(self: Box<Self>) -> Result<Vec<Segment>, String>;
}

/// R2's words for a refused call: `put: The specified ... (10020)`, with
/// its code.
#[derive(Debug)]
pub struct R2Error(pub String);

const INTERNAL: (&str, u32) = ("We encountered an internal error. Please try again.", 10001);
const TOO_LARGE: (&str, u32) = (
    "Your proposed upload exceeds the maximum allowed object size.",
    100100,
);
const TOO_SMALL: (&str, u32) = (
    "Your proposed upload is smaller than the minimum allowed object size.",
    10011,
);
const METADATA_TOO_LARGE: (&str, u32) = (
    "Your metadata headers exceed the maximum allowed metadata size.",
    10012,
);
const BAD_NAME: (&str, u32) = ("The specified object name is not valid.", 10020);
const BAD_MAX_KEYS: (&str, u32) = ("MaxKeys params must be positive integer <= 1000.", 10022);
const NO_UPLOAD: (&str, u32) = ("The specified multipart upload does not exist.", 10024);
const BAD_PART: (&str, u32) = (
    "One or more of the specified parts could not be found.",
    10025,
);
const BAD_RANGE: (&str, u32) = ("The requested range is not satisfiable", 10039);
const BAD_UPLOAD: (&str, u32) = ("There was a problem with the multipart upload.", 10048);

fn refused(op: &str, (message, code): (&str, u32)) -> String {
    format!("{op}: {message} ({code})")
}

/// An object whose conditions held: the answer when they did not.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Conditions {
    #[serde(default)]
    etag_matches: Option<Vec<Etag>>,
    #[serde(default)]
    etag_does_not_match: Option<Vec<Etag>>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    uploaded_before: Option<f64>,
    #[serde(default)]
    uploaded_after: Option<f64>,
    #[serde(default)]
    seconds_granularity: bool,
}

/// An etag to compare with: `*`, or a value, weak (`W/"..."`) or strong.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Etag {
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    weak: bool,
}

impl Conditions {
    /// Whether they hold of `object` (none: no object under the key), as
    /// HTTP's conditional requests decide (RFC 9110, section 13.2.2).
    fn hold(&self, object: Option<&Object>) -> bool {
        let Some(o) = object else {
            return self.etag_matches.is_none() && self.uploaded_after.is_none();
        };
        let has = |tags: &[Etag], strong_only: bool| {
            tags.iter().any(|t| match &t.value {
                None => true,
                Some(v) => *v == o.etag && !(strong_only && t.weak),
            })
        };
        let seconds = |ms: f64| {
            if self.seconds_granularity {
                (ms / 1000.0).floor() * 1000.0
            } else {
                ms
            }
        };
        let uploaded = seconds(o.uploaded as f64);
        let if_match = self.etag_matches.as_deref().is_none_or(|t| has(t, true));
        let if_none_match = self
            .etag_does_not_match
            .as_deref()
            .is_none_or(|t| !has(t, false));
        let modified_since = self.uploaded_after.is_none_or(|t| seconds(t) < uploaded)
            || (self.etag_does_not_match.is_some() && if_none_match);
        let unmodified_since = self.uploaded_before.is_none_or(|t| uploaded < seconds(t))
            || (self.etag_matches.is_some() && if_match);
        if_match && if_none_match && modified_since && unmodified_since
    }
}

/// A read's range, as the prelude normalized it.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Range {
    #[serde(default)]
    offset: Option<f64>,
    #[serde(default)]
    length: Option<f64>,
    #[serde(default)]
    suffix: Option<f64>,
}

/// `(offset, length)` of `size` bytes that `range` or `header` (an HTTP
/// `Range` header) asks; a header that is not one satisfiable range asks
/// for everything, as R2 answers.
fn range_of(
    range: Option<&Range>,
    header: Option<&str>,
    size: u64,
) -> Result<(u64, u64), (&'static str, u32)> {
    if let Some(header) = header {
        return Ok(header_range(header, size).unwrap_or((0, size)));
    }
    let Some(r) = range else {
        return Ok((0, size));
    };
    let size = size as f64;
    let (mut offset, mut length) = (r.offset, r.length);
    if let Some(suffix) = r.suffix {
        if suffix <= 0.0 || suffix.is_nan() {
            return Err(BAD_RANGE);
        }
        let suffix = suffix.min(size);
        offset = Some(size - suffix);
        length = Some(suffix);
    }
    let offset = offset.unwrap_or(0.0).trunc();
    let length = length.unwrap_or(size - offset).trunc();
    if offset.is_nan() || length.is_nan() || offset < 0.0 || offset > size || length <= 0.0 {
        return Err(BAD_RANGE);
    }
    Ok((offset as u64, length.min(size - offset) as u64))
}

/// One satisfiable range of `bytes=a-b`, `bytes=a-` or `bytes=-n`.
fn header_range(header: &str, size: u64) -> Option<(u64, u64)> {
    let spec = header.trim().strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() {
        let n: u64 = b.parse().ok()?;
        if n == 0 || size == 0 {
            return None;
        }
        let n = n.min(size);
        return Some((size - n, n));
    }
    let start: u64 = a.parse().ok()?;
    let end = if b.is_empty() {
        size.checked_sub(1)?
    } else {
        b.parse::<u64>().ok()?.min(size.checked_sub(1)?)
    };
    (start < size && start <= end).then_some((start, end - start + 1))
}

/// What a put asks beside its bytes.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutArgs {
    #[serde(default)]
    http: Http,
    #[serde(default)]
    custom: Vec<(String, String)>,
    #[serde(default)]
    only_if: Option<Conditions>,
    /// A digest the bytes must have: `[algorithm, hex]`.
    #[serde(default)]
    checksum: Option<(String, String)>,
}

/// One call, as the prelude sends it (`calls::R2`): the binding it is made
/// on, and what it asks.
#[derive(Deserialize, Debug)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Call {
    Head {
        binding: String,
        key: String,
    },
    #[serde(rename_all = "camelCase")]
    Get {
        binding: String,
        key: String,
        #[serde(default)]
        range: Option<Range>,
        #[serde(default)]
        range_header: Option<String>,
        #[serde(default)]
        only_if: Option<Conditions>,
    },
    /// The bytes are the call's, or (`stream`) come by `write` calls of the
    /// handle it answers, `size` of them, until `finish`.
    #[serde(rename_all = "camelCase")]
    Put {
        binding: String,
        key: String,
        size: u64,
        #[serde(default)]
        stream: bool,
        #[serde(flatten)]
        args: PutArgs,
    },
    Delete {
        binding: String,
        keys: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    List {
        binding: String,
        #[serde(default)]
        prefix: Option<String>,
        #[serde(default)]
        delimiter: Option<String>,
        #[serde(default)]
        cursor: Option<String>,
        #[serde(default)]
        start_after: Option<String>,
        #[serde(default)]
        limit: Option<f64>,
        #[serde(default)]
        include: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    CreateMultipartUpload {
        binding: String,
        key: String,
        #[serde(default)]
        http: Http,
        #[serde(default)]
        custom: Vec<(String, String)>,
    },
    /// As `put`'s bytes.
    #[serde(rename_all = "camelCase")]
    UploadPart {
        binding: String,
        key: String,
        upload_id: String,
        part: u32,
        size: u64,
        #[serde(default)]
        stream: bool,
    },
    #[serde(rename_all = "camelCase")]
    Complete {
        binding: String,
        key: String,
        upload_id: String,
        parts: Vec<(u32, String)>,
    },
    #[serde(rename_all = "camelCase")]
    Abort {
        binding: String,
        key: String,
        upload_id: String,
    },
    /// The next piece of a body (`get`'s `handle`): its bytes, and whether
    /// more follow.
    Read {
        binding: String,
        handle: u64,
    },
    /// The next piece of a streamed `put` or `uploadPart`.
    Write {
        binding: String,
        handle: u64,
    },
    /// A streamed `put` or `uploadPart` is whole: its answer.
    Finish {
        binding: String,
        handle: u64,
    },
}

impl Call {
    /// A `get` of `key`, whole (the admin API's).
    pub fn get(binding: &str, key: &str) -> Call {
        Call::Get {
            binding: binding.into(),
            key: key.into(),
            range: None,
            range_header: None,
            only_if: None,
        }
    }

    /// The next piece of a body (the admin API's).
    pub fn read(binding: &str) -> Call {
        Call::Read {
            binding: binding.into(),
            handle: 0,
        }
    }

    /// A `put` of `size` bytes, with a content type (the admin API's).
    pub fn put(binding: &str, key: &str, size: u64, content_type: Option<String>) -> Call {
        Call::Put {
            binding: binding.into(),
            key: key.into(),
            size,
            stream: false,
            args: PutArgs {
                http: Http {
                    content_type,
                    ..Http::default()
                },
                ..PutArgs::default()
            },
        }
    }

    /// The binding the call is made on.
    pub fn binding(&self) -> &str {
        match self {
            Call::Head { binding, .. }
            | Call::Get { binding, .. }
            | Call::Put { binding, .. }
            | Call::Delete { binding, .. }
            | Call::List { binding, .. }
            | Call::CreateMultipartUpload { binding, .. }
            | Call::UploadPart { binding, .. }
            | Call::Complete { binding, .. }
            | Call::Abort { binding, .. }
            | Call::Read { binding, .. }
            | Call::Write { binding, .. }
            | Call::Finish { binding, .. } => binding,
        }
    }
}

/// Milliseconds since the epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `expiry` before now, in milliseconds since the epoch: what the sweeps
/// take as too old.
fn ago(expiry: std::time::Duration) -> u64 {
    now_ms().saturating_sub(expiry.as_millis() as u64)
}

fn check_key(op: &str, key: &str) -> Result<(), String> {
    if key.len() > MAX_KEY {
        return Err(refused(op, BAD_NAME));
    }
    Ok(())
}

/// Custom metadata's size as R2 counts it: each key and value in bytes of
/// Latin-1, or two per character where one is past it.
fn check_metadata(op: &str, custom: &[(String, String)]) -> Result<(), String> {
    let len = |s: &str| {
        let n = s.encode_utf16().count();
        if s.chars().any(|c| c as u32 >= 256) {
            n * 2
        } else {
            n
        }
    };
    let total: usize = custom.iter().map(|(k, v)| len(k) + len(v)).sum();
    if total > MAX_METADATA {
        return Err(refused(op, METADATA_TOO_LARGE));
    }
    Ok(())
}

/// A bucket's store: its objects and their bytes.
pub struct Store {
    pub meta: Arc<dyn Meta>,
    pub blobs: Arc<dyn Blobs>,
}

/// A body being read, a piece at a time.
pub struct Reading {
    body: Box<dyn Read + Send>,
    left: u64,
}

/// A streamed write in progress: its bytes so far, and what it is for.
pub struct Writing {
    writer: Box<dyn BlobWriter>,
    digests: Digests,
    size: u64,
    written: u64,
    then: Then,
}

/// What a streamed write does once whole.
enum Then {
    Put {
        key: String,
        args: Box<PutArgs>,
    },
    Part {
        key: String,
        upload_id: String,
        part: u32,
    },
}

/// What a call holds open across calls, by its handle: a body being read
/// or written. The caller keeps them (one render's), and drops them at
/// its end.
pub enum Held {
    Reading(Reading),
    Writing(Box<Writing>),
}

/// The hashes of bytes as they pass: MD5 always (an object's etag), and
/// the one a put asked to check.
struct Digests {
    md5: md5::Md5,
    other: Option<Other>,
}

/// A checksum R2 checks beside MD5.
enum Other {
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Digests {
    fn new(checksum: Option<&str>) -> Digests {
        let other = match checksum {
            Some("sha1") => Some(Other::Sha1(Default::default())),
            Some("sha256") => Some(Other::Sha256(Default::default())),
            Some("sha384") => Some(Other::Sha384(Default::default())),
            Some("sha512") => Some(Other::Sha512(Default::default())),
            _ => None,
        };
        Digests {
            md5: md5::Md5::new(),
            other,
        }
    }

    fn update(&mut self, data: &[u8]) {
        self.md5.update(data);
        match &mut self.other {
            Some(Other::Sha1(h)) => h.update(data),
            Some(Other::Sha256(h)) => h.update(data),
            Some(Other::Sha384(h)) => h.update(data),
            Some(Other::Sha512(h)) => h.update(data),
            None => {}
        }
    }

    /// The hex digests: MD5's, and the other's.
    fn finish(self) -> (String, Option<String>) {
        let hex = crate::artifact::hex;
        let other = match self.other {
            Some(Other::Sha1(h)) => Some(hex(&h.finalize())),
            Some(Other::Sha256(h)) => Some(hex(&h.finalize())),
            Some(Other::Sha384(h)) => Some(hex(&h.finalize())),
            Some(Other::Sha512(h)) => Some(hex(&h.finalize())),
            None => None,
        };
        (hex(&self.md5.finalize()), other)
    }
}

/// The first string after every one that starts with `prefix`, as far as
/// keys go (a key is at most [`MAX_KEY`] bytes).
fn past(prefix: &str) -> String {
    let mut s = prefix.to_string();
    s.push(char::MAX);
    s
}

/// What an answer is: JSON, and the bytes beside it; or a handle for the
/// caller to hold (a body to read or write), with the JSON to answer once
/// it holds it (its `handle` then set).
pub enum Answer {
    Done(String, Vec<u8>),
    Hold(Value, Held),
}

impl Store {
    /// Answers `call` on bucket `ns` with `data` (a put's bytes), or
    /// `held` (what its handle holds, for `read`, `write` and `finish`): its
    /// answer, or R2's words for why not; a put or part that would take its
    /// tenant past `quota` bytes is refused. It may block.
    pub fn answer(
        &self,
        ns: &str,
        quota: u64,
        call: Call,
        data: Vec<u8>,
        held: Option<&mut Held>,
    ) -> Result<Answer, String> {
        let done = |v: Value| Ok(Answer::Done(text_of(&v), Vec::new()));
        match call {
            Call::Head { key, .. } => {
                check_key("head", &key)?;
                let o = self.meta.get(ns, &key)?;
                done(o.map_or(Value::Null, |o| {
                    let size = o.size;
                    o.shown(Some((0, size)))
                }))
            }
            Call::Get {
                key,
                range,
                range_header,
                only_if,
                ..
            } => {
                check_key("get", &key)?;
                let Some(o) = self.meta.get(ns, &key)? else {
                    return done(Value::Null);
                };
                if let Some(c) = &only_if
                    && !c.hold(Some(&o))
                {
                    return done(json!({ "object": o.shown(None), "body": false }));
                }
                let (offset, length) = range_of(range.as_ref(), range_header.as_deref(), o.size)
                    .map_err(|e| refused("get", e))?;
                let shown = json!({ "object": o.shown(Some((offset, length))), "body": true });
                let mut body = Box::new(Segments {
                    blobs: self.blobs.clone(),
                    segments: o.segments.clone(),
                    at: offset,
                    end: offset + length,
                    open: None,
                }) as Box<dyn Read + Send>;
                if length <= WHOLE {
                    let mut bytes = Vec::with_capacity(length as usize);
                    body.read_to_end(&mut bytes)
                        .map_err(|e| format!("get: reading the object failed: {e}"))?;
                    return Ok(Answer::Done(text_of(&shown), bytes));
                }
                Ok(Answer::Hold(
                    shown,
                    Held::Reading(Reading { body, left: length }),
                ))
            }
            Call::Put {
                key,
                size,
                stream,
                args,
                ..
            } => {
                self.check_put("put", ns, &key, &args.custom, size, quota)?;
                let mut writing = Writing {
                    writer: self.blobs.writer()?,
                    digests: Digests::new(args.checksum.as_ref().map(|(a, _)| a.as_str())),
                    size,
                    written: 0,
                    then: Then::Put {
                        key,
                        args: Box::new(args),
                    },
                };
                if stream {
                    return Ok(Answer::Hold(json!({}), Held::Writing(Box::new(writing))));
                }
                writing.write(&data)?;
                self.finish(ns, writing)
            }
            Call::Delete { keys, .. } => {
                if keys.len() > MAX_DELETE {
                    return Err(format!(
                        "delete: at most {MAX_DELETE} keys can be deleted in one call, not {}",
                        keys.len()
                    ));
                }
                for key in &keys {
                    check_key("delete", key)?;
                }
                let freed = self.meta.delete(ns, &keys)?;
                self.blobs.delete(&freed);
                done(Value::Null)
            }
            Call::List {
                prefix,
                delimiter,
                cursor,
                start_after,
                limit,
                include,
                ..
            } => {
                let limit = match limit {
                    None => MAX_LIST,
                    Some(n) if n.is_nan() || n < 1.0 || n > MAX_LIST as f64 => {
                        return Err(refused("list", BAD_MAX_KEYS));
                    }
                    Some(n) => n as usize,
                };
                let after = [cursor.as_deref().and_then(after_cursor), start_after]
                    .into_iter()
                    .flatten()
                    .max();
                let prefix = prefix.unwrap_or_default();
                let delimiter = delimiter.filter(|d| !d.is_empty());
                self.list(ns, &prefix, delimiter.as_deref(), after, limit, &include)
                    .map(|v| Answer::Done(text_of(&v), Vec::new()))
            }
            Call::CreateMultipartUpload {
                key, http, custom, ..
            } => {
                check_key("createMultipartUpload", &key)?;
                check_metadata("createMultipartUpload", &custom)?;
                let upload = Upload {
                    key,
                    http,
                    custom,
                    started: now_ms(),
                };
                let id = self.meta.create_upload(ns, &upload)?;
                done(json!(id))
            }
            Call::UploadPart {
                key,
                upload_id,
                part,
                size,
                stream,
                ..
            } => {
                self.check_put("uploadPart", ns, &key, &[], size, quota)?;
                match self.meta.upload(ns, &upload_id, &key)? {
                    Some((_, State::InProgress, _)) => {}
                    _ => return Err(refused("uploadPart", NO_UPLOAD)),
                }
                let mut writing = Writing {
                    writer: self.blobs.writer()?,
                    digests: Digests::new(None),
                    size,
                    written: 0,
                    then: Then::Part {
                        key,
                        upload_id,
                        part,
                    },
                };
                if stream {
                    return Ok(Answer::Hold(json!({}), Held::Writing(Box::new(writing))));
                }
                writing.write(&data)?;
                self.finish(ns, writing)
            }
            Call::Complete {
                key,
                upload_id,
                parts,
                ..
            } => self.complete(ns, &key, &upload_id, &parts),
            Call::Abort { key, upload_id, .. } => {
                let op = "abortMultipartUpload";
                let Some((_, state, _)) = self.meta.upload(ns, &upload_id, &key)? else {
                    return Err(refused(op, INTERNAL));
                };
                if state == State::InProgress
                    && let Some(freed) = self.meta.end_upload(ns, &upload_id, &key, None)?
                {
                    self.blobs.delete(&freed);
                }
                done(Value::Null)
            }
            Call::Read { .. } => {
                let Some(Held::Reading(r)) = held else {
                    return Err("get: the body is no longer there to read".into());
                };
                let n = r.left.min(WHOLE);
                let mut bytes = vec![0; n as usize];
                r.body
                    .read_exact(&mut bytes)
                    .map_err(|e| format!("get: reading the object failed: {e}"))?;
                r.left -= n;
                Ok(Answer::Done(text_of(&json!(r.left > 0)), bytes))
            }
            Call::Write { .. } => {
                let Some(Held::Writing(w)) = held else {
                    return Err("put: the write is no longer in progress".into());
                };
                w.write(&data)?;
                done(Value::Null)
            }
            Call::Finish { .. } => Err("put: the write is no longer in progress".into()),
        }
    }

    /// Deletes the blobs no object or part names that were written more
    /// than `expiry` ago (no write in progress is that old): how many.
    /// The blobs are listed before the names are read, so a blob named
    /// after its listing is one the listing left out as too new.
    pub fn sweep_blobs(&self, expiry: std::time::Duration) -> Result<usize, String> {
        self.blobs.sweep(ago(expiry), &|| self.meta.named_blobs())
    }

    /// Aborts the uploads in progress that started more than `expiry`
    /// ago, in every bucket, and deletes their parts: how many.
    pub fn sweep_uploads(&self, expiry: std::time::Duration) -> Result<usize, String> {
        let mut swept = 0;
        for (ns, id, key) in self.meta.abandoned(ago(expiry))? {
            if let Some(freed) = self.meta.end_upload(&ns, &id, &key, None)? {
                self.blobs.delete(&freed);
                swept += 1;
            }
        }
        Ok(swept)
    }

    /// What a put or part to bucket `ns` must be before a byte is written:
    /// a key, custom metadata and a size R2 allows, within its tenant's
    /// `quota`.
    fn check_put(
        &self,
        op: &str,
        ns: &str,
        key: &str,
        custom: &[(String, String)],
        size: u64,
        quota: u64,
    ) -> Result<(), String> {
        check_key(op, key)?;
        check_metadata(op, custom)?;
        if size > MAX_PUT {
            return Err(refused(op, TOO_LARGE));
        }
        let used = self.meta.usage(super::tenant_of(ns))?;
        if used.saturating_add(size) > quota {
            return Err(format!(
                "{op}: the tenant's R2 quota is full: it keeps {used} bytes of its {quota} and this would add {size}; delete objects, or ask the operator for more (its r2_mib, else --r2-tenant-mib)"
            ));
        }
        Ok(())
    }

    /// A streamed write is whole (`Call::Finish`): what it was for.
    pub fn finish_held(&self, ns: &str, held: Held) -> Result<Answer, String> {
        match held {
            Held::Writing(w) => self.finish(ns, *w),
            Held::Reading(_) => Err("put: the write is no longer in progress".into()),
        }
    }

    /// Ends `w`: checks its bytes, and stores what it was for.
    fn finish(&self, ns: &str, w: Writing) -> Result<Answer, String> {
        let op = match w.then {
            Then::Put { .. } => "put",
            Then::Part { .. } => "uploadPart",
        };
        if w.written != w.size {
            return Err(format!(
                "{op}: the body had {} bytes where its length said {}",
                w.written, w.size
            ));
        }
        let segments = w.writer.finish()?;
        let (md5, other) = w.digests.finish();
        // Blobs no one names yet: deleted unless stored.
        let unnamed: Vec<String> = segments.iter().map(|s| s.id.clone()).collect();
        let out = self.store(ns, w.then, w.size, segments, md5, other);
        if !matches!(out, Ok((true, _))) {
            self.blobs.delete(&unnamed);
        }
        out.map(|(_, v)| Answer::Done(text_of(&v), Vec::new()))
    }

    /// Stores a whole write: whether it was stored, and the answer.
    fn store(
        &self,
        ns: &str,
        then: Then,
        size: u64,
        segments: Vec<Segment>,
        md5: String,
        other: Option<String>,
    ) -> Result<(bool, Value), String> {
        match then {
            Then::Put { key, args } => {
                let mut checksums = vec![("md5".to_string(), md5.clone())];
                if let Some((algorithm, given)) = &args.checksum {
                    let actual = if algorithm == "md5" {
                        md5.clone()
                    } else {
                        other.clone().unwrap_or_default()
                    };
                    if !given.eq_ignore_ascii_case(&actual) {
                        let name = shown_algorithm(algorithm);
                        return Err(format!(
                            "put: The {name} checksum you specified did not match what we received.\nYou provided a {name} checksum with value: {}\nActual {name} was: {actual} (10037)",
                            given.to_ascii_lowercase()
                        ));
                    }
                    if algorithm != "md5" {
                        checksums.push((algorithm.clone(), actual));
                    }
                }
                let object = Object {
                    key,
                    version: crate::artifact::random_hex(16),
                    size,
                    etag: md5,
                    uploaded: now_ms(),
                    http: args.http.clone(),
                    custom: args.custom.clone(),
                    checksums,
                    segments,
                };
                let only_if = args.only_if.unwrap_or_default();
                match self.meta.put(ns, &object, &|old| only_if.hold(old))? {
                    Some(freed) => {
                        self.blobs.delete(&freed);
                        Ok((true, object.shown(None)))
                    }
                    None => Ok((false, Value::Null)),
                }
            }
            Then::Part {
                key,
                upload_id,
                part,
            } => {
                let etag = crate::artifact::random_hex(16);
                let kept = Part {
                    etag: etag.clone(),
                    md5,
                    size,
                    segments,
                };
                match self.meta.put_part(ns, &upload_id, &key, part, &kept)? {
                    Some(freed) => {
                        self.blobs.delete(&freed);
                        Ok((true, json!({ "partNumber": part, "etag": etag })))
                    }
                    None => Err(refused("uploadPart", NO_UPLOAD)),
                }
            }
        }
    }

    /// `complete`: checks the parts as R2 does, and stores the object they
    /// make.
    fn complete(
        &self,
        ns: &str,
        key: &str,
        upload_id: &str,
        chosen: &[(u32, String)],
    ) -> Result<Answer, String> {
        let op = "completeMultipartUpload";
        let Some((upload, state, uploaded)) = self.meta.upload(ns, upload_id, key)? else {
            return Err(refused(op, INTERNAL));
        };
        if state != State::InProgress {
            return Err(refused(op, NO_UPLOAD));
        }
        let mut seen = std::collections::HashSet::new();
        if !chosen.iter().all(|(n, _)| seen.insert(*n)) {
            return Err(refused(op, INTERNAL));
        }
        let mut parts = Vec::with_capacity(chosen.len());
        for (n, etag) in chosen {
            match uploaded.iter().find(|(m, p)| m == n && p.etag == *etag) {
                Some((n, p)) => parts.push((*n, p)),
                None => return Err(refused(op, BAD_PART)),
            }
        }
        if parts.iter().rev().skip(1).any(|(_, p)| p.size < MIN_PART) {
            return Err(refused(op, TOO_SMALL));
        }
        parts.sort_by_key(|(n, _)| *n);
        if let Some(((_, first), rest)) = parts.split_first() {
            let all_but_last = &rest[..rest.len().saturating_sub(1)];
            let last = rest.last().map_or(first.size, |(_, p)| p.size);
            if all_but_last.iter().any(|(_, p)| p.size != first.size)
                || (!rest.is_empty() && last > first.size)
            {
                return Err(refused(op, BAD_UPLOAD));
            }
        }
        let mut md5s = md5::Md5::new();
        for (_, p) in &parts {
            md5s.update(crate::artifact::unhex(&p.md5).unwrap_or_default());
        }
        let object = Object {
            key: key.to_string(),
            version: crate::artifact::random_hex(16),
            size: parts.iter().map(|(_, p)| p.size).sum(),
            etag: format!("{}-{}", crate::artifact::hex(&md5s.finalize()), parts.len()),
            uploaded: now_ms(),
            http: upload.http,
            custom: upload.custom,
            checksums: Vec::new(),
            segments: parts
                .iter()
                .flat_map(|(_, p)| p.segments.iter().cloned())
                .collect(),
        };
        match self.meta.end_upload(ns, upload_id, key, Some(&object))? {
            Some(freed) => {
                self.blobs.delete(&freed);
                Ok(Answer::Done(text_of(&object.shown(None)), Vec::new()))
            }
            None => Err(refused(op, NO_UPLOAD)),
        }
    }

    /// A `list` page: objects and, with a delimiter, the prefixes that
    /// group keys past it, `limit` of both together, in key order.
    fn list(
        &self,
        ns: &str,
        prefix: &str,
        delimiter: Option<&str>,
        mut after: Option<String>,
        limit: usize,
        include: &[String],
    ) -> Result<Value, String> {
        let (mut objects, mut prefixes) = (Vec::new(), Vec::new());
        let mut truncated = false;
        'pages: loop {
            let page = self.meta.list(
                ns,
                prefix,
                after.as_deref(),
                limit + 1 - objects.len() - prefixes.len(),
            )?;
            let full = page.len() < limit + 1 - objects.len() - prefixes.len();
            for o in page {
                if objects.len() + prefixes.len() == limit {
                    truncated = true;
                    break 'pages;
                }
                let grouped = delimiter.and_then(|d| {
                    let rest = &o.key[prefix.len()..];
                    rest.find(d)
                        .map(|i| o.key[..prefix.len() + i + d.len()].to_string())
                });
                match grouped {
                    Some(group) => {
                        // Skip the rest of its group.
                        after = Some(past(&group));
                        prefixes.push(group);
                        continue 'pages;
                    }
                    None => {
                        after = Some(o.key.clone());
                        objects.push(o);
                    }
                }
            }
            if full {
                break;
            }
        }
        let with = |what: &str| include.iter().any(|i| i == what);
        let objects: Vec<Value> = objects
            .into_iter()
            .map(|mut o| {
                if !with("httpMetadata") {
                    o.http = Http::default();
                }
                if !with("customMetadata") {
                    o.custom.clear();
                }
                o.shown(None)
            })
            .collect();
        let mut out = json!({ "objects": objects, "truncated": truncated });
        // Where this page ended: a truncated page returned at least one.
        if truncated && let Some(after) = after {
            out["cursor"] = json!(cursor_of(&after));
        }
        out["delimitedPrefixes"] = json!(prefixes);
        Ok(out)
    }
}

fn shown_algorithm(name: &str) -> &'static str {
    match name {
        "md5" => "MD5",
        "sha1" => "SHA-1",
        "sha256" => "SHA-256",
        "sha384" => "SHA-384",
        _ => "SHA-512",
    }
}

impl Writing {
    /// Takes the next bytes, within the size the write declared.
    fn write(&mut self, data: &[u8]) -> Result<(), String> {
        let op = match self.then {
            Then::Put { .. } => "put",
            Then::Part { .. } => "uploadPart",
        };
        self.written += data.len() as u64;
        if self.written > self.size {
            return Err(format!(
                "{op}: the body has more bytes than its length, {}",
                self.size
            ));
        }
        self.digests.update(data);
        self.writer.write(data)
    }
}

/// An object's bytes from `at` to `end`, read blob by blob.
struct Segments {
    blobs: Arc<dyn Blobs>,
    segments: Vec<Segment>,
    at: u64,
    end: u64,
    open: Option<Box<dyn Read + Send>>,
}

impl Read for Segments {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.at >= self.end || buf.is_empty() {
                return Ok(0);
            }
            if let Some(r) = &mut self.open {
                let n = r.read(buf)?;
                if n > 0 {
                    self.at += n as u64;
                    return Ok(n);
                }
                self.open = None;
                continue;
            }
            // The blob `at` falls in, from where in it.
            let mut start = 0;
            let mut found = None;
            for s in &self.segments {
                if self.at < start + s.size {
                    found = Some((s.id.clone(), self.at - start, s.size));
                    break;
                }
                start += s.size;
            }
            let Some((id, offset, size)) = found else {
                return Err(std::io::Error::other(
                    "the object has fewer bytes than its size",
                ));
            };
            let length = (size - offset).min(self.end - self.at);
            self.open = Some(
                self.blobs
                    .open(&id, offset, length)
                    .map_err(std::io::Error::other)?,
            );
        }
    }
}
