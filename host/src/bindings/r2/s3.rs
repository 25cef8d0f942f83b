//! R2's bytes across replicas: blobs in an S3-compatible object store
//! (`--objects s3://ACCESS_KEY:SECRET@HOST:PORT/BUCKET`), which every
//! replica reads and writes; what objects there are is in Redis
//! (`redis.rs`).
//!
//! Requests are signed by `rusty-s3` (presigned URLs, SigV4) and sent by
//! `ureq`, both already small and blocking: a call runs on a thread that
//! may block. docs/bindings.md says why not `object_store`.
//!
//! Invariants:
//! - A blob is written once, under a new random name (`blobs/<id>`), and
//!   never changed; a large object is several blobs of [`SEGMENT`] bytes,
//!   each sent whole with its length, so the host holds at most one
//!   segment of a write however large the object.
//! - A write that does not finish deletes the segments it sent.
//! - Credentials never reach a log or an error: URLs are shown without
//!   their query (where the signature is).

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use rusty_s3::{Bucket, Credentials, S3Action, UrlStyle};

use super::{BlobWriter, Blobs, Segment};
use crate::config::ObjectsUrl;

/// The bytes of one blob of a large object.
pub const SEGMENT: usize = 8 << 20;
/// How long a signed request stays valid.
const SIGNED_FOR: Duration = Duration::from_secs(300);

/// A new blob's id: `t`, the time it is written (milliseconds since the
/// epoch), `-`, random hex. The sweep of unnamed blobs reads its age from
/// it ([`blob_time`]); blobs of ids without one (written before ids had
/// it) are never swept.
fn blob_id(now_ms: u64) -> String {
    format!("t{now_ms}-{}", crate::artifact::random_hex(12))
}

/// When blob `id` was written, if its id says.
fn blob_time(id: &str) -> Option<u64> {
    id.strip_prefix('t')?.split_once('-')?.0.parse().ok()
}

/// Blobs in one bucket of an object store.
pub struct S3 {
    inner: Arc<Inner>,
}

struct Inner {
    bucket: Bucket,
    credentials: Credentials,
    agent: ureq::Agent,
    shown: String,
}

impl S3 {
    /// The object store `config` names; checks it answers, and makes its
    /// bucket if it has none.
    pub fn open(config: &ObjectsUrl) -> Result<S3, String> {
        let bucket = Bucket::new(
            config.endpoint.clone(),
            UrlStyle::Path,
            config.bucket.clone(),
            config.region.clone(),
        )
        .map_err(|e| format!("--objects: {e}"))?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(5)))
            .timeout_recv_response(Some(Duration::from_secs(30)))
            .build()
            .into();
        let inner = Arc::new(Inner {
            bucket,
            credentials: Credentials::new(config.access_key.clone(), config.secret.clone()),
            agent,
            shown: config.shown(),
        });
        let s3 = S3 { inner };
        let url = s3
            .inner
            .bucket
            .head_bucket(Some(&s3.inner.credentials))
            .sign(SIGNED_FOR);
        let status = s3.inner.send("HEAD", url, None, &[])?.status().as_u16();
        if status == 404 {
            let url = s3
                .inner
                .bucket
                .create_bucket(&s3.inner.credentials)
                .sign(SIGNED_FOR);
            let r = s3.inner.send("PUT", url, None, &[])?;
            s3.inner.ok(r, "create its bucket")?;
        } else if !(200..300).contains(&status) {
            return Err(format!(
                "the object store at {} answered {status} for its bucket; check the credentials and the bucket's name",
                s3.inner.shown
            ));
        }
        Ok(s3)
    }
}

impl Inner {
    fn send(
        &self,
        method: &str,
        url: url::Url,
        range: Option<String>,
        body: &[u8],
    ) -> Result<ureq::http::Response<ureq::Body>, String> {
        let mut req = ureq::http::Request::builder()
            .method(method)
            .uri(url.as_str());
        if let Some(range) = range {
            req = req.header("Range", range);
        }
        let req = req.body(body).map_err(|e| e.to_string())?;
        self.agent.run(req).map_err(|e| {
            format!(
                "the object store at {} did not answer ({e}); try again",
                self.shown
            )
        })
    }

    fn ok(&self, r: ureq::http::Response<ureq::Body>, what: &str) -> Result<(), String> {
        let status = r.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(());
        }
        let mut body = String::new();
        let _ = r
            .into_body()
            .into_reader()
            .take(512)
            .read_to_string(&mut body);
        Err(format!(
            "the object store at {} refused to {what}: {status} {}",
            self.shown,
            body.trim()
        ))
    }

    fn put(&self, id: &str, bytes: &[u8]) -> Result<(), String> {
        let url = self
            .bucket
            .put_object(Some(&self.credentials), &format!("blobs/{id}"))
            .sign(SIGNED_FOR);
        let r = self.send("PUT", url, None, bytes)?;
        self.ok(r, "store an object's bytes")
    }

    fn delete(&self, id: &str) -> Result<(), String> {
        let url = self
            .bucket
            .delete_object(Some(&self.credentials), &format!("blobs/{id}"))
            .sign(SIGNED_FOR);
        let r = self.send("DELETE", url, None, &[])?;
        if r.status().as_u16() == 404 {
            return Ok(());
        }
        self.ok(r, "delete an object's bytes")
    }
}

impl Inner {
    /// The ids of the blobs in the bucket, a page of up to 1,000 at a time.
    fn list(&self, mut each: impl FnMut(&str)) -> Result<(), String> {
        let mut token: Option<String> = None;
        loop {
            let mut action = self.bucket.list_objects_v2(Some(&self.credentials));
            action.with_prefix("blobs/");
            if let Some(t) = &token {
                action.with_continuation_token(t.clone());
            }
            let r = self.send("GET", action.sign(SIGNED_FOR), None, &[])?;
            let status = r.status().as_u16();
            let mut body = String::new();
            r.into_body()
                .into_reader()
                .read_to_string(&mut body)
                .map_err(|e| {
                    format!(
                        "the object store at {} did not answer whole ({e}); try again",
                        self.shown
                    )
                })?;
            if !(200..300).contains(&status) {
                return Err(format!(
                    "the object store at {} refused to list its blobs: {status}",
                    self.shown
                ));
            }
            let page = rusty_s3::actions::ListObjectsV2::parse_response(&body).map_err(|e| {
                format!(
                    "the object store at {} answered a listing that is not S3's: {e}",
                    self.shown
                )
            })?;
            for c in &page.contents {
                each(c.key.strip_prefix("blobs/").unwrap_or(&c.key));
            }
            match page.next_continuation_token {
                Some(t) => token = Some(t),
                None => return Ok(()),
            }
        }
    }
}

impl Blobs for S3 {
    fn sweep(
        &self,
        before: u64,
        named: &dyn Fn() -> Result<std::collections::HashSet<String>, String>,
    ) -> Result<usize, String> {
        let mut old = Vec::new();
        self.inner.list(|id| {
            if blob_time(id).is_some_and(|t| t < before) {
                old.push(id.to_string());
            }
        })?;
        if old.is_empty() {
            return Ok(0);
        }
        let named = named()?;
        old.retain(|id| !named.contains(id));
        for id in &old {
            self.inner.delete(id)?;
        }
        Ok(old.len())
    }

    fn writer(&self) -> Result<Box<dyn BlobWriter>, String> {
        Ok(Box::new(Writer {
            inner: self.inner.clone(),
            buffer: Vec::new(),
            sent: Vec::new(),
            finished: false,
        }))
    }

    fn open(&self, id: &str, offset: u64, length: u64) -> Result<Box<dyn Read + Send>, String> {
        if length == 0 {
            return Ok(Box::new(std::io::empty()));
        }
        let url = self
            .inner
            .bucket
            .get_object(Some(&self.inner.credentials), &format!("blobs/{id}"))
            .sign(SIGNED_FOR);
        let range = format!("bytes={offset}-{}", offset + length - 1);
        let r = self.inner.send("GET", url, Some(range), &[])?;
        let status = r.status().as_u16();
        if !(200..300).contains(&status) {
            let refused = self.inner.ok(r, "read an object's bytes").err();
            return Err(refused.unwrap_or_else(|| format!("the object store answered {status}")));
        }
        Ok(Box::new(r.into_body().into_reader().take(length)))
    }

    fn delete(&self, ids: &[String]) {
        for id in ids {
            if let Err(e) = self.inner.delete(id) {
                tracing::warn!("R2: could not delete blob {id}: {e}");
            }
        }
    }
}

/// A write in segments: each [`SEGMENT`] bytes sent as its own blob.
struct Writer {
    inner: Arc<Inner>,
    buffer: Vec<u8>,
    sent: Vec<Segment>,
    finished: bool,
}

impl Writer {
    fn send(&mut self) -> Result<(), String> {
        let id = blob_id(super::now_ms());
        self.inner.put(&id, &self.buffer)?;
        self.sent.push(Segment {
            id,
            size: self.buffer.len() as u64,
        });
        self.buffer.clear();
        Ok(())
    }
}

impl BlobWriter for Writer {
    fn write(&mut self, mut data: &[u8]) -> Result<(), String> {
        while !data.is_empty() {
            let n = (SEGMENT - self.buffer.len()).min(data.len());
            self.buffer.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.buffer.len() == SEGMENT {
                self.send()?;
            }
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Vec<Segment>, String> {
        if !self.buffer.is_empty() || self.sent.is_empty() {
            self.send()?;
        }
        self.finished = true;
        Ok(std::mem::take(&mut self.sent))
    }
}

impl Drop for Writer {
    /// An unfinished write's segments are deleted, off the caller's
    /// thread.
    fn drop(&mut self) {
        if self.finished || self.sent.is_empty() {
            return;
        }
        let (inner, sent) = (self.inner.clone(), std::mem::take(&mut self.sent));
        std::thread::spawn(move || {
            for s in sent {
                let _ = inner.delete(&s.id);
            }
        });
    }
}
