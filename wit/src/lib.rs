//! The contract between the `ssr` host and its plugins, in Rust: the types of
//! `plugin.wit`, the JavaScript prelude every engine evaluates, and every
//! conversion between the shapes these take.
//!
//! A request and a response exist once, here. They travel three ways:
//! - through the component model, as the records both bindgen outputs make
//!   of `plugin.wit` ([`host`] for Wasmtime, `guest` inside the plugin); the
//!   `From` impls between those records and these types live beside the
//!   bindings and nowhere else;
//! - into JavaScript and back, as their serde form (the prelude's raw
//!   request and normalized response): V8 as JSON (the response in serde's
//!   sequence form, its body beside); QuickJS field by field in the guest's
//!   `runtime.rs`, the one other place that knows the shape, kept by hand
//!   because serde there cost 10 us a render (it says how that was measured);
//! - between the host's parts, as these types themselves.
//!
//! Invariants:
//! - The serde form is the prelude's: field names as in `plugin.wit`, pairs
//!   as two-element arrays, [`CachePolicy`] as the prelude's `ttl` number,
//!   [`ErrorKind`] by its WIT name, [`LogLevel`] by the prelude's code.
//! - Decoding never fails on a value the prelude can produce: an unknown
//!   error kind is an exception, an unknown log level is info, an empty
//!   stack is none.
//! - [`VERSION`] is `plugin.wit`'s package version (a test keeps them equal).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

#[cfg(feature = "host")]
pub mod host;

#[cfg(target_family = "wasm")]
pub mod guest;

/// The version of the `ssr:plugin` package a plugin must be built against.
pub const VERSION: &str = "0.4.0";

/// The web-API prelude every engine evaluates before a renderer's bundle:
/// the files of `wit/prelude/`, joined in order by `build.rs`.
pub const PRELUDE: &str = include_str!(concat!(env!("OUT_DIR"), "/prelude.js"));

/// The prelude's file name in stack traces; its `describe` cuts the
/// renderer's stack at the first frame of this file.
pub const PRELUDE_NAME: &str = "ssr:prelude";

/// One HTTP request, as a renderer sees it (WIT `request`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Upper-case (`GET`, `HEAD`, ...).
    pub method: String,
    /// Path and query as received, after `base`.
    pub url: String,
    /// The absolute URL as received: scheme, host and port, base, url.
    pub href: String,
    /// The path prefix the request was routed by (`/t/<id>`), or "".
    pub base: String,
    /// The path alone, percent-encoding kept.
    pub path: String,
    /// Query pairs in order, percent-decoded.
    pub query: Vec<(String, String)>,
    /// Names lower-cased, in order of appearance.
    pub headers: Vec<(String, String)>,
    /// The tenant the request was routed to.
    pub tenant: String,
    /// The request body (empty for `GET` and `HEAD`). Not in the serde
    /// form: V8 passes it beside the JSON, as bytes.
    #[serde(skip)]
    pub body: Vec<u8>,
}

/// The method of a cron trigger's request ([`Request::scheduled`]): not an
/// HTTP token (RFC 9110's methods have no `@`), so no client can send it.
pub const SCHEDULED: &str = "@scheduled";

/// The method of a service binding's RPC call (`env.SVC.method(args)`):
/// the callee's `WorkerEntrypoint` method runs for it (query `method`, and
/// `entrypoint`, its class's export name, else the default export), its
/// arguments and result in the body (`31_services.js`). Not an HTTP token
/// either.
pub const RPC: &str = "@rpc";

/// The method of a Durable Object's render: the instance that runs one
/// object (query `class`, `id`, and `name` when its id came from one) for
/// as long as it is live, taking its events one at a time by
/// [`calls::OBJECT`] (`host/src/bindings/objects/`). No client can send it.
pub const OBJECT: &str = "@object";

impl Request {
    /// A cron trigger of `tenant`: its `cron` expression and the minute it
    /// fired for (milliseconds since the epoch) as the query pairs `cron`
    /// and `scheduledTime`. The prelude runs the module's `scheduled`
    /// handler for it (`33_driver.js`).
    pub fn scheduled(tenant: &str, cron: &str, time_ms: u64) -> Self {
        Request {
            method: SCHEDULED.into(),
            url: "/".into(),
            href: "http://localhost/".into(),
            base: String::new(),
            path: "/".into(),
            query: vec![
                ("cron".into(), cron.into()),
                ("scheduledTime".into(), time_ms.to_string()),
            ],
            headers: Vec::new(),
            tenant: tenant.into(),
            body: Vec::new(),
        }
    }

    /// A `GET` of `url` (path and optional query) on `http://localhost`,
    /// with no headers and no base.
    pub fn get(tenant: &str, url: &str) -> Self {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        Request {
            method: "GET".into(),
            url: url.into(),
            href: format!("http://localhost{url}"),
            base: String::new(),
            path: path.into(),
            query: query_pairs(query),
            headers: Vec::new(),
            tenant: tenant.into(),
            body: Vec::new(),
        }
    }
}

/// Splits `a=1&b=x+y` into percent-decoded pairs, as `URLSearchParams` does.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect()
}

/// How long the host may cache a response (WIT `cache-policy`).
///
/// Its serde form is the prelude's `ttl` number: -2 no-store, -1 (any
/// negative) the host's default, else seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "f64", into = "f64")]
pub enum CachePolicy {
    HostDefault,
    NoStore,
    Ttl(u32),
}

impl From<f64> for CachePolicy {
    fn from(ttl: f64) -> Self {
        if ttl == -2.0 {
            CachePolicy::NoStore
        } else if ttl < 0.0 {
            CachePolicy::HostDefault
        } else {
            CachePolicy::Ttl(ttl as u32)
        }
    }
}

impl From<CachePolicy> for f64 {
    fn from(policy: CachePolicy) -> f64 {
        match policy {
            CachePolicy::HostDefault => -1.0,
            CachePolicy::NoStore => -2.0,
            CachePolicy::Ttl(seconds) => f64::from(seconds),
        }
    }
}

/// What a renderer produced (WIT `response`).
///
/// Its fields are in the order of serde's sequence form, in which the V8
/// engine passes it (`[status, headers, ttl, vary]`, the body beside).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// 200 to 599 (the prelude refuses others).
    pub status: u16,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    #[serde(rename = "ttl")]
    pub cache: CachePolicy,
    /// Request header names (lower-case) the response varies on.
    pub vary: Vec<String>,
    /// The body's bytes (UTF-8 when the renderer returned a string). Not in
    /// the serde form: V8 passes it beside the JSON.
    #[serde(skip)]
    pub body: Vec<u8>,
}

/// Why a render failed (WIT `error-kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The renderer returned something that is not a response.
    BadResult,
    /// The returned promise can never settle.
    NeverSettled,
    /// The plugin holds no bundle.
    NotInitialized,
    /// The renderer threw, or its promise rejected; also any kind this
    /// version does not know.
    #[serde(other)]
    Exception,
}

impl ErrorKind {
    /// The WIT name (`bad-result`), also the serde form.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Exception => "exception",
            ErrorKind::BadResult => "bad-result",
            ErrorKind::NeverSettled => "never-settled",
            ErrorKind::NotInitialized => "not-initialized",
        }
    }

    /// The inverse of [`ErrorKind::as_str`]; unknown names are exceptions.
    pub fn parse(name: &str) -> Self {
        [
            ErrorKind::BadResult,
            ErrorKind::NeverSettled,
            ErrorKind::NotInitialized,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
        .unwrap_or(ErrorKind::Exception)
    }
}

/// In words, for messages (`bad result`).
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Exception => "exception",
            ErrorKind::BadResult => "bad result",
            ErrorKind::NeverSettled => "promise never settled",
            ErrorKind::NotInitialized => "not initialized",
        })
    }
}

/// A failed render or initialization, with what JavaScript said about it
/// (WIT `render-error`; the prelude's `describe()`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderError {
    pub kind: ErrorKind,
    /// `error.message`, or a description of the bad result.
    pub message: String,
    /// The renderer's frames of the JavaScript stack, when there are any.
    #[serde(default, deserialize_with = "non_empty")]
    pub stack: Option<String>,
}

impl RenderError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        RenderError {
            kind,
            message: message.into(),
            stack: None,
        }
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "render failed ({}): {}", self.kind, self.message)
    }
}

impl std::error::Error for RenderError {}

fn non_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.filter(|s| !s.is_empty()))
}

/// What a host capability returned (WIT `host.reply`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The result as JSON, or empty when it has none.
    pub value: String,
    /// The bytes the result carries, or empty (as bytes, not a sequence of
    /// numbers, in a format that has both: a V8 worker's channel).
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
}

/// The capabilities a renderer reaches through WIT `host.call`, by name,
/// each with the JSON form of its arguments and of its reply. The
/// prelude's `host(name, args, data)` calls them; the host's
/// `engine::imports` answers them, the same for both engines.
pub mod calls {
    /// `crypto.getRandomValues()` and `crypto.randomUUID()`. Arguments: the
    /// number of bytes, at most [`RANDOM_MAX_BYTES`]; reply: no value, that
    /// many bytes from the host's cryptographically secure generator.
    pub const RANDOM: &str = "random";

    /// The most bytes one [`RANDOM`] call returns (the Web Crypto limit of
    /// `getRandomValues`).
    pub const RANDOM_MAX_BYTES: usize = 65536;

    /// `crypto.subtle`'s arithmetic. Arguments: `{op, alg, hash, ...,
    /// parts}`, the byte arguments (keys, data, iv...) concatenated as the
    /// call's bytes, `parts` giving their lengths; reply: bytes, or a JSON
    /// value (a verification's boolean, an exported JWK, an imported key's
    /// shape). A refusal reads `"<DOMException name>: <message>"`. The
    /// operations and their arguments are documented where the host does
    /// them (`host/src/web/crypto/`). The one capability a module's
    /// top level may call: it is pure, so a key imported at build time is
    /// the same in every instance.
    pub const CRYPTO: &str = "crypto";

    /// WHATWG URL parsing, setters and form-encoded queries, for the
    /// prelude's `URL` and `URLSearchParams`. Arguments: `{op: "parse",
    /// input, base}`, `{op: "set", href, field, value}`, `{op: "params",
    /// query}` or `{op: "form", list: [[name, value]]}`; reply: a URL's
    /// attributes (`[href, origin, protocol, username, password, host,
    /// hostname, port, pathname, search, hash]`), a query's pairs, or a
    /// query. `"Invalid URL"` when a URL does not parse
    /// (`host/src/web/url.rs`). Pure, like [`CRYPTO`], so a module's
    /// top level may call it.
    pub const URL: &str = "url";

    /// `Intl` for an engine that has none (QuickJS), answered by the
    /// host's V8 (`host/src/web/intl.rs`, `intl.js`). Arguments: three
    /// lines, not JSON: `{type, locales, options}` (JSON), an op, and the
    /// op's arguments (a JSON array; dates as time values, BigInts as
    /// `{"$bigint": digits}`). Op "new" checks and resolves a `type`
    /// (`DateTimeFormat`, `NumberFormat`...); another names its method.
    /// Reply `{ok: value}`. A bad locale, time zone or option reads
    /// `"RangeError: ..."` or `"TypeError: ..."`. Pure, like [`CRYPTO`].
    pub const INTL: &str = "intl";

    /// `TextDecoder` for every encoding but UTF-8 (which the prelude
    /// decodes). Arguments: `{op: "label", label}`, reply: the encoding's
    /// lowercase name or `null`; or `{op: "decode", encoding, fatal,
    /// ignoreBOM, stream, id}` with the bytes, reply: `{text, id}`, `id`
    /// naming the open stream to continue (`null` when it ended). A
    /// malformed sequence under `fatal` reads `"TypeError: ..."`
    /// (`host/src/web/text.rs`). Pure but for streams, which the
    /// instance keeps until their last call or the render's end.
    pub const TEXT_DECODE: &str = "text-decode";

    /// `URLPattern`. Arguments: `{op: "parse", input, baseURL, ignoreCase}`
    /// (`input` a string or a `URLPatternInit`), reply each component's
    /// `{patternString, regexpString, matcher, groupNameList}` and
    /// `hasRegexpGroups`; or `{op: "match", input, baseURL}`, reply the
    /// input's eight components, or `null` when it is no URL. A pattern
    /// the standard refuses reads `"Invalid URL pattern: ..."`
    /// (`host/src/web/url_pattern.rs`). Pure.
    pub const URL_PATTERN: &str = "url-pattern";

    /// `CompressionStream` and `DecompressionStream`: `gzip`, `deflate`
    /// and `deflate-raw`. Arguments: `{op: "open", format, compress}`,
    /// reply `{id}`; then `{op: "write", id}` with a chunk's bytes, and at
    /// the input's end `{op: "finish", id}`, each replying `{more}` with
    /// the bytes that came out; while `more` is true the prelude calls the
    /// same op again with no bytes. Bad compressed data reads
    /// `"TypeError: ..."` (`host/src/web/compress.rs`). The instance
    /// keeps each stream until its end or the render's.
    pub const COMPRESS: &str = "compress";

    /// `HTMLRewriter`, on `lol_html`. Arguments: `{op: "selector",
    /// selector}`, reply `null` (pure: it checks a selector, also at a
    /// module's top level); `{op: "open", element: [{selector, element,
    /// comments, text}], document: [{doctype, comments, text, end}],
    /// encoding}`, reply `{id}`; then `{op: "write", id}` with a piece of
    /// the body, `{op: "end", id}` at its end, and `{op: "resume", id}`
    /// when a handler returned, each replying `{event}` with the bytes
    /// rewritten so far: the token a handler is wanted for, or `null` when
    /// the input is taken (after `end`: the document is done); `{op: "do",
    /// id, do: {op, ...}}` changes the token of the handler that runs,
    /// replying its new state; `{op: "abort", id}` stops it (a handler
    /// threw). A selector, a name or a document `lol_html` refuses reads
    /// `"Parser error: ..."` (`host/src/web/rewriter.rs`). The instance
    /// keeps each rewriter until its end or the render's.
    pub const HTML_REWRITER: &str = "html-rewriter";

    /// What the handler's `env` holds. Arguments: none (`null`); reply, no
    /// data: `{vars, assets, missing, dns, kv, d1, r2, services, own}`:
    /// the vars and secrets (name to value), the assets binding's name,
    /// the bindings declared that the host lacks (name to kind), where
    /// `node:dns` asks, the names of the KV, D1, R2 and service bindings,
    /// and of those services the ones to the app itself, to the export
    /// each names (`""` the default). They change only with the tenant's
    /// version, so an instance asks once.
    pub const ENV: &str = "env";

    /// The Workers `env.ASSETS` binding: the tenant's own packed assets.
    /// Arguments: `{path}` (percent-encoded, no query); reply: `{status,
    /// headers}` with the body as the bytes, by Workers' default rules for
    /// HTML files (`host/src/assets/binding.rs`). `{path: null}` asks
    /// whether the tenant has assets: `true` or `false`.
    pub const ASSETS: &str = "assets";

    /// The Workers Cache API (`caches`). Arguments: `{op: "match" | "put" |
    /// "delete", name, url, headers: [[name, value]], response?: {status,
    /// headers, ttl}}` (the request's URL and headers; for `put` the
    /// response's head, its body as the call's bytes); reply: for `match`
    /// `{status, headers}` with the body as the bytes, or `null`; for
    /// `delete` whether an entry was removed. Kept in the page cache, by the
    /// page cache's rules (`host/src/cache/api.rs`).
    pub const CACHE: &str = "cache";

    /// A Workers KV namespace's call (`env.X` of the app's
    /// `kv_namespaces`). Arguments: `{op: "get" | "put" | "delete" |
    /// "list", binding, ...}` (`host/src/bindings/kv.rs`: `Call`), a put's
    /// value as the call's bytes; reply: the call's id, its answer coming
    /// by [`FETCH_WAIT`] as `{id, answer}` with the bytes; or, for a read
    /// a store answers at once, `{answer}` or `{error}` itself (for `get`:
    /// `[null | [length, metadata]]` per key, the values one after another
    /// as the bytes; for `list`: `{keys, list_complete, cursor?}`), or
    /// `{id, error}` in Cloudflare's words.
    pub const KV: &str = "kv";

    /// A D1 database's call (`env.X` of the app's `d1_databases`).
    /// Arguments: `{op: "query", binding, statements: [{sql, params}],
    /// batch}` (a parameter is `null`, a number, a string or `{blob:
    /// BASE64}`; a batch is one transaction) or `{op: "exec", binding,
    /// sql}`; reply: the call's id, its answer coming by [`FETCH_WAIT`] as
    /// `{id, answer}`: per statement `{columns, rows, meta, bookmark}`, or
    /// `exec`'s `{count, duration}`; or `{id, error}` in D1's words
    /// (`host/src/bindings/d1.rs`).
    pub const D1: &str = "d1";

    /// An R2 bucket's call (`env.X` of the app's `r2_buckets`). Arguments:
    /// `{op: "head" | "get" | "put" | "delete" | "list" |
    /// "createMultipartUpload" | "uploadPart" | "complete" | "abort", binding,
    /// ...}` (`host/src/bindings/r2/mod.rs`: `Call`), a put's bytes as the
    /// call's; or, for a body that comes or goes a piece at a time, `{op:
    /// "read" | "write" | "finish", binding, handle}`; reply: the call's id,
    /// its answer coming by [`FETCH_WAIT`] as `{id, answer}` with the bytes
    /// (a body that did not fit comes with a `handle` to `read` it by), or
    /// `{id, error}` in R2's words.
    pub const R2: &str = "r2";

    /// A service binding's request (`env.X.fetch()` of the app's
    /// `services`). Arguments: `{binding, method, url, headers: [[name,
    /// value]], depth}`, the body as the call's bytes; reply: the request's
    /// id, its response coming by [`FETCH_WAIT`] as a fetch's
    /// (`host/src/bindings/service.rs`).
    pub const SERVICE: &str = "service";

    /// Durable Objects (`env.X` of the app's `durable_objects.bindings`,
    /// and `ctx` of an object; `host/src/bindings/objects/`). Arguments
    /// `{op, ...}`. A namespace's: `{op: "id", binding, name?, string?,
    /// unique?}` replies `{id}` (64 hex digits) or `{error}`; `{op:
    /// "fetch", binding, id, method, url, headers}` with the body as the
    /// bytes, and `{op: "rpc", binding, id}` with `{method, args}` as the
    /// bytes, reply the call's id, the object's response coming by
    /// [`FETCH_WAIT`] as a fetch's. An object's own (its render's alone):
    /// `{op: "next"}`, its next event by [`FETCH_WAIT`] (`{kind: "fetch" |
    /// "rpc" | "alarm" | "evict", ...}`); `{op: "answer", status, headers}`
    /// with the bytes; `{op: "kv" | "sql" | "alarm" | "tx", ...}` on its
    /// storage, answered at once (`objects/storage.rs`).
    pub const OBJECT: &str = "object";

    /// Starts the global `fetch()`'s request. Arguments: `{method, url,
    /// headers: [[name, value]], redirect}`, the body as the call's bytes;
    /// reply: the request's id (a number). The host refuses an origin the
    /// tenant was not granted, and a request past the render's limits, with
    /// the message the promise rejects with.
    pub const FETCH: &str = "fetch";

    /// Aborts one of the render's requests, whose `AbortSignal` aborted.
    /// Arguments: its id; reply: none. Its connection closes at once, and
    /// its answer never arrives.
    pub const FETCH_ABORT: &str = "fetch-abort";

    /// Waits for one of the render's requests to finish, or for a timer:
    /// up to the argument's milliseconds (`null`: as long as the render's
    /// deadline allows), with or without requests in flight. Reply: `{id,
    /// status, statusText, headers, urls, waited}` with the body as the
    /// bytes, or `{id, error, waited}`, or `{waited}` when none finished in
    /// time (a timer is due), or `{gone: true, waited}` (once per render)
    /// when the client went away before the response was complete: the
    /// prelude then aborts the incoming request's `signal`. `waited` (ms)
    /// is read by the virtual timer clock of plugins built before timers
    /// waited in real time; today's prelude reads the real clock. The
    /// engine's driver calls it when the prelude's `runNextTimer` asks for
    /// a wait, and hands the reply to `arrived`; on Wasm the render's fiber
    /// suspends here, on V8 the render leaves its isolate's thread
    /// (`docs/engines.md`).
    pub const FETCH_WAIT: &str = "fetch-wait";

    /// Workers' `connect()` sockets (`cloudflare:sockets`, and `node:net`
    /// and `node:tls` over them). Arguments: `{op: "open", hostname, port,
    /// tls}`, reply `{id}`, refused unless the tenant was granted
    /// `tcp://HOST:PORT`; then `{op: "read", id}`, `{op: "write", id}` with
    /// the bytes, `{op: "shutdown", id}` (end the writing side), `{op:
    /// "tls", id, hostname}` (start TLS) and `{op: "close", id}`, each
    /// replying nothing. What comes of them comes through [`FETCH_WAIT`]
    /// as `{socket: id, event}`: `opened` (with `remote`, the peer's address;
    /// again after a TLS handshake), `data` (one read's bytes as the reply's,
    /// `end: true` at the end of the stream), `wrote`, or `error` (with
    /// `error`; the socket is closed). A socket counts as a request
    /// against the render's limits (`host/src/web/socket.rs`).
    pub const SOCKET: &str = "socket";

    /// Starts a response whose body is a stream. Arguments: the response
    /// without its body, in [`Response`](super::Response)'s serde form
    /// (`{status, headers, ttl, vary}`); reply: `true` when the host sends
    /// the body as it comes (the prelude then passes each chunk to
    /// [`RESPONSE_WRITE`]), `false` when it takes the body whole (`ssr
    /// render`, which has no client), and the prelude reads it whole.
    pub const RESPONSE_HEAD: &str = "response-head";

    /// One chunk of a streamed body, as the call's bytes. Arguments: none
    /// (`null`); reply: none, or `true` when the client is more than a
    /// window behind (`host/src/unsent.rs`): the prelude then calls it with
    /// `"drained"`, reply: an id, whose answer comes by [`FETCH_WAIT`] once
    /// the client caught up, before its next write. Refused once the client
    /// went away or the server holds its `--max-unsent-mib`: the prelude
    /// cancels the stream, and the render fails with that message.
    pub const RESPONSE_WRITE: &str = "response-write";

    /// The streamed body is complete though the render goes on (its
    /// `ctx.waitUntil()` work): the client gets the end of the response
    /// now. Arguments: the request headers the page read so far (the
    /// response's `vary`); reply: none.
    pub const RESPONSE_END: &str = "response-end";

    /// One promise given to `ctx.waitUntil()` settled, after the response.
    /// Arguments: `{failed: null}` or `{failed: "why"}`; reply: none. The
    /// host counts it (`ssr_wait_until_total{tenant,outcome}`) and logs a
    /// failure.
    pub const WAIT_UNTIL: &str = "wait-until";

    /// The incoming request's body past what came with the request (its
    /// `body`), which the host holds as it arrives. Arguments: `"more"`,
    /// reply: whether there is such a rest; or `"read"`,
    /// reply: the read's id, its answer coming by [`FETCH_WAIT`] as `{id,
    /// answer: {end}}` with the next piece as the bytes (`end`: nothing
    /// more follows), or `{id, error}` when the body passed the tenant's
    /// `max_upload_mib` or its client stopped sending
    /// (`host/src/web/upload.rs`).
    pub const REQUEST_BODY: &str = "request-body";

    /// The WebSocket a render answered with: a `Response` of status 101
    /// whose `webSocket` is one end of a `WebSocketPair`, sent by
    /// [`RESPONSE_HEAD`] with status 101 (refused unless the client asked
    /// to upgrade). Arguments: `{op: "send", text}` with the message as the
    /// bytes (`text`: UTF-8 text, else binary), `{op: "close", code,
    /// reason}`, each replying nothing; or `{op: "read"}`, replying an id
    /// whose answer comes by [`FETCH_WAIT`] as `{id, answer: {text}}` with
    /// the client's next message as the bytes, or `{id, answer: {close,
    /// code, reason, clean}}` once it closed (code 1006, not clean: the
    /// connection was cut or idle) (`host/src/web/websocket.rs`).
    pub const WEBSOCKET: &str = "websocket";
}

/// Severity of a `console.*` line (WIT `log.level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    /// From the code the prelude passes to the engine's `__ssr_log(level,
    /// message)`, which is also the WIT enum's index in the canonical ABI: 0
    /// debug, 1 info, 2 warn, 3 error; anything else is info.
    pub fn from_code(code: i32) -> Self {
        match code {
            0 => LogLevel::Debug,
            2 => LogLevel::Warn,
            3 => LogLevel::Error,
            _ => LogLevel::Info,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_matches_the_wit_package() {
        let wit = include_str!("../plugin.wit");
        assert!(wit.contains(&format!("package ssr:plugin@{VERSION};")));
    }

    #[test]
    fn the_response_reads_the_preludes_form() {
        let json = r#"{"status":201,"headers":[["a","1"]],"ttl":-2,"vary":["cookie"]}"#;
        let r: Response = serde_json::from_str(json).unwrap();
        assert_eq!(r.status, 201);
        assert_eq!(r.headers, [("a".to_string(), "1".to_string())]);
        assert!(r.body.is_empty());
        assert_eq!(r.cache, CachePolicy::NoStore);
        assert_eq!(r.vary, ["cookie"]);
        let seq: Response = serde_json::from_str(r#"[201,[["a","1"]],-2,["cookie"]]"#).unwrap();
        assert_eq!(seq, r);
        for (ttl, policy) in [
            ("-1", CachePolicy::HostDefault),
            ("-7", CachePolicy::HostDefault),
            ("0", CachePolicy::Ttl(0)),
            ("60", CachePolicy::Ttl(60)),
        ] {
            let json = format!(r#"{{"status":200,"headers":[],"ttl":{ttl},"vary":[]}}"#);
            let r: Response = serde_json::from_str(&json).unwrap();
            assert_eq!(r.cache, policy, "ttl {ttl}");
            assert_eq!(CachePolicy::from(f64::from(policy)), policy);
        }
    }

    #[test]
    fn errors_read_the_preludes_describe() {
        let e: RenderError =
            serde_json::from_str(r#"{"kind":"bad-result","message":"m","stack":""}"#).unwrap();
        assert_eq!(e, RenderError::new(ErrorKind::BadResult, "m"));
        let e: RenderError =
            serde_json::from_str(r#"{"kind":"from-the-future","message":"m","stack":"at f"}"#)
                .unwrap();
        assert_eq!(e.kind, ErrorKind::Exception);
        assert_eq!(e.stack.as_deref(), Some("at f"));
        for kind in [
            ErrorKind::Exception,
            ErrorKind::BadResult,
            ErrorKind::NeverSettled,
            ErrorKind::NotInitialized,
        ] {
            assert_eq!(ErrorKind::parse(kind.as_str()), kind);
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
    }

    #[test]
    fn a_get_splits_and_decodes_its_query() {
        let r = Request::get("t", "/a%20b?x=1+2&y=%C3%A9&x=3&flag");
        assert_eq!(r.path, "/a%20b");
        assert_eq!(r.href, "http://localhost/a%20b?x=1+2&y=%C3%A9&x=3&flag");
        let pairs: Vec<(&str, &str)> = r
            .query
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(pairs, [("x", "1 2"), ("y", "é"), ("x", "3"), ("flag", "")]);
    }
}
