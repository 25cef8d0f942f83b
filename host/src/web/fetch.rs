//! Outbound `fetch` for renderers: the host makes each request, never the
//! guest (which has no sockets), and only to the origins its tenant was
//! granted.
//!
//! Invariants:
//! - Deny by default: a request goes out only when its origin (scheme, host,
//!   port) is one of the tenant's grants ([`Origin`]), and so does every
//!   redirect it follows; anything else is refused with a message naming
//!   the origin.
//! - A name resolves once per connection, through [`PublicOnly`], which
//!   keeps only public addresses, and the connection goes to an address it
//!   returned: a granted name that resolves (or is rebound) to a loopback,
//!   private or link-local address reaches nothing. A private address is
//!   reached only by granting it as an IP literal (`http://127.0.0.1:9000`),
//!   which needs no resolution.
//! - Each request is capped in time and in response bytes ([`Caps`]), so a
//!   slow or endless origin costs a render its deadline, not the host its
//!   memory.
//! - Per render, a tenant makes at most `max_subrequests` requests and
//!   reads at most `max_bytes` of responses ([`FetchGrant`]). Bytes are
//!   counted as they arrive, over all the render's requests together
//!   ([`Budget`]), so parallel requests cannot each read up to the cap
//!   before one is checked; the request that crosses it fails there.
//! - No wait outlives the render's deadline, and no request outlives its
//!   render: what is in flight, or finished and never awaited, is dropped
//!   when the render ends ([`Subrequests::end_render`]).
//! - A URL with credentials (`user:pass@`) is refused, as the Fetch
//!   standard's `Request` does, and a URL is written into the log without
//!   its credentials or query ([`shown`]), where API keys travel.
//!
//! Lifetimes: the client and the runtime its requests run on ([`net`]) live
//! for the process and start on first use; [`Subrequests`] belongs to one
//! instance, and aborts what is still in flight when its render ends or
//! the instance goes.
//!
//! The client is reqwest's (connection pooling, HTTP/1.1 and TLS with
//! rustls): see docs/development.md for why.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use contract::Reply;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::stream::Sink;

/// One origin a tenant may fetch: scheme, host and port, as
/// `--allow-fetch http://127.0.0.1:9000` grants it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// The origin of an absolute http(s) URL.
    pub fn of(url: &reqwest::Url) -> Option<Origin> {
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return None;
        }
        Some(Origin {
            scheme: scheme.to_string(),
            host: url.host_str()?.to_ascii_lowercase(),
            port: url.port_or_known_default()?,
        })
    }
}

/// As the web serializes an origin: the port only when not the scheme's
/// default (a `tcp://` address always has one).
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let default = match self.scheme.as_str() {
            "https" => 443,
            "http" => 80,
            _ => 0,
        };
        write!(f, "{}://{}", self.scheme, self.host)?;
        if self.port != default {
            write!(f, ":{}", self.port)?;
        }
        Ok(())
    }
}

impl FromStr for Origin {
    type Err = String;

    fn from_str(text: &str) -> Result<Origin, String> {
        let bad = |why: &str| {
            format!(
                "`{text}` is not an origin to fetch: {why}; write scheme://host[:port], like http://127.0.0.1:9000"
            )
        };
        let url = reqwest::Url::parse(text).map_err(|e| bad(&e.to_string()))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("it has credentials"));
        }
        // `tcp://HOST:PORT` grants `connect()` that address (`socket.rs`).
        let tcp = url.scheme() == "tcp";
        let root = if tcp { "" } else { "/" };
        if url.path() != root || url.query().is_some() || url.fragment().is_some() {
            return Err(bad("it has a path, query or fragment"));
        }
        if tcp {
            let host = url.host_str().filter(|h| !h.is_empty());
            return match (host, url.port()) {
                (Some(host), Some(port)) => Ok(Origin {
                    scheme: "tcp".into(),
                    host: host.to_ascii_lowercase(),
                    port,
                }),
                _ => Err(bad("a tcp:// address needs a host and a port")),
            };
        }
        Origin::of(&url).ok_or_else(|| bad("the scheme must be http, https or tcp"))
    }
}

impl serde::Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Origin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Origin, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What one outbound request may take.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// From sending the request to the last byte of its response.
    pub timeout: Duration,
    /// The most bytes of one response body.
    pub max_response_bytes: usize,
    /// Redirects followed, at most (the Fetch standard's 20).
    pub max_redirects: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            timeout: Duration::from_secs(5),
            max_response_bytes: 8 << 20,
            max_redirects: 20,
        }
    }
}

/// The response bytes a render may still read, over all its requests:
/// taken as each chunk arrives, on whichever thread reads it.
#[derive(Debug)]
pub struct Budget {
    left: std::sync::atomic::AtomicUsize,
    limit: usize,
}

impl Budget {
    pub fn new(limit: usize) -> Arc<Budget> {
        Arc::new(Budget {
            left: limit.into(),
            limit,
        })
    }

    /// Takes `n` bytes, or fails (taking nothing) when fewer are left.
    pub(super) fn take(&self, n: usize) -> Result<(), FetchError> {
        use std::sync::atomic::Ordering;
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .map(drop)
            .map_err(|_| self.spent())
    }

    /// Whether `n` more bytes would fit.
    fn fits(&self, n: u64) -> bool {
        n <= self.left.load(std::sync::atomic::Ordering::Relaxed) as u64
    }

    fn spent(&self) -> FetchError {
        FetchError::Capped(format!(
            "this render's responses are over its limit of {} bytes (the tenant's `max_fetch_kib`)",
            self.limit
        ))
    }
}

/// A request a renderer asked for.
#[derive(Clone, Debug)]
pub struct Outbound {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The Fetch standard's `redirect`: `follow`, `manual` or `error`.
    pub redirect: String,
}

/// What came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    pub status: u16,
    pub status_text: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Every URL requested, the last one answering.
    pub urls: Vec<String>,
}

impl Fetched {
    /// A response answered in the host (a service's, an object's) to a
    /// request of `url`, its status text the status's own.
    pub fn answered(
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        url: String,
    ) -> Fetched {
        let status_text = axum::http::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("")
            .to_string();
        Fetched {
            status,
            status_text,
            headers,
            body,
            urls: vec![url],
        }
    }
}

/// Why a fetch failed: the message the renderer's `TypeError` carries.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The grant does not allow it (an origin, or a redirect to one).
    #[error("{0}")]
    Refused(String),
    /// The network, the origin or a per-request cap failed it.
    #[error("{0}")]
    Failed(String),
    /// The render's response bytes ([`Budget`]) ran out while reading it.
    #[error("{0}")]
    Capped(String),
}

/// The host's HTTP client for renderers: one per process, its connections
/// pooled across tenants (a connection is to an origin, and every origin a
/// tenant reaches it was granted).
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
}

impl Fetcher {
    pub fn new() -> Result<Fetcher, reqwest::Error> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(PublicOnly))
            .no_proxy()
            .user_agent(concat!("ssr/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Fetcher { client })
    }

    /// Sends `req` if `allowed` grants its origin, following redirects
    /// within the grant, within `caps`, its body's bytes taken from
    /// `budget` as they arrive.
    pub async fn fetch(
        &self,
        allowed: &[Origin],
        req: Outbound,
        caps: Caps,
        budget: &Budget,
    ) -> Result<Fetched, FetchError> {
        let shown_url = shown_text(&req.url);
        let exchange = async {
            let (resp, urls) = self.open(allowed, req, caps).await?;
            let (head, body) = split(resp, urls, caps.max_response_bytes, budget)?;
            read_whole(head, body, budget).await
        };
        tokio::time::timeout(caps.timeout, exchange)
            .await
            .unwrap_or_else(|_| Err(timed_out(&shown_url, caps.timeout)))
    }

    /// Sends `req` if `allowed` grants its origin, following redirects
    /// within the grant (at most `caps.max_redirects`), up to the head of
    /// the response that is not one to follow; with every URL requested.
    pub async fn open(
        &self,
        allowed: &[Origin],
        mut req: Outbound,
        caps: Caps,
    ) -> Result<(reqwest::Response, Vec<String>), FetchError> {
        let mut urls = Vec::new();
        let mut url = reqwest::Url::parse(&req.url).map_err(|_| {
            FetchError::Failed(format!("Failed to parse URL from {}", shown_text(&req.url)))
        })?;
        // The URL asked for, shown (formatted) only on the way out.
        let first = url.clone();
        let asked = || shown(&first);
        loop {
            check(allowed, &url)?;
            urls.push(url.to_string());
            let resp = self.send(&req, &url).await?;
            let status = resp.status().as_u16();
            let location = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| url.join(l).ok());
            match (location, req.redirect.as_str()) {
                (Some(next), "follow") if is_redirect(status) => {
                    if urls.len() > caps.max_redirects {
                        return Err(FetchError::Failed(format!(
                            "fetch of {} was redirected more than {} times",
                            asked(),
                            caps.max_redirects
                        )));
                    }
                    // 303, and 301/302 after a POST, go on as a GET
                    // without a body (the Fetch standard, 4.4).
                    if status == 303 || (req.method == "POST" && status != 307 && status != 308) {
                        if req.method != "HEAD" {
                            req.method = "GET".into();
                        }
                        req.body.clear();
                        req.headers.retain(|(k, _)| {
                            !k.eq_ignore_ascii_case("content-type")
                                && !k.eq_ignore_ascii_case("content-length")
                        });
                    }
                    url = next;
                }
                (Some(_), "error") if is_redirect(status) => {
                    return Err(FetchError::Failed(format!(
                        "fetch of {} was redirected, and its redirect mode is \"error\"",
                        asked()
                    )));
                }
                _ => return Ok((resp, urls)),
            }
        }
    }

    async fn send(
        &self,
        req: &Outbound,
        url: &reqwest::Url,
    ) -> Result<reqwest::Response, FetchError> {
        let method = reqwest::Method::from_bytes(req.method.as_bytes()).map_err(|_| {
            FetchError::Failed(format!("'{}' is not a valid HTTP method.", req.method))
        })?;
        let mut builder = self.client.request(method, url.clone());
        for (k, v) in req.headers.iter().filter(|(k, _)| !is_forbidden(k)) {
            builder = builder.header(k, v);
        }
        if !req.body.is_empty() {
            builder = builder.body(req.body.clone());
        }
        builder.send().await.map_err(|e| {
            // Without the URL reqwest adds: it is shown here without its
            // credentials and query.
            let e = e.without_url();
            let mut said = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                said = format!("{said}: {c}");
                cause = c.source();
            }
            FetchError::Failed(format!("fetch of {} failed: {said}", shown(url)))
        })
    }
}

pub use crate::config::{DEFAULT_MAX_FETCH_BYTES, DEFAULT_MAX_SUBREQUESTS};

/// What a tenant version may fetch: the origins granted at registration
/// and its per-render limits.
#[derive(Clone, Debug)]
pub struct FetchGrant {
    pub allowed: Vec<Origin>,
    /// Requests one render may start (refused ones count too).
    pub max_subrequests: usize,
    /// Response bytes one render may read, all its requests together.
    pub max_bytes: usize,
}

/// No origin, and the default limits.
impl Default for FetchGrant {
    fn default() -> Self {
        FetchGrant {
            allowed: Vec::new(),
            max_subrequests: DEFAULT_MAX_SUBREQUESTS,
            max_bytes: DEFAULT_MAX_FETCH_BYTES,
        }
    }
}

/// The process's outbound network: the client, and a small runtime of its
/// own that its requests run on, apart from the threads that serve pages,
/// so that a slow origin never delays the server's own I/O.
pub struct Net {
    pub(super) runtime: tokio::runtime::Runtime,
    fetcher: Fetcher,
}

/// The process's [`Net`], started on first use.
pub fn net() -> Result<&'static Net, FetchError> {
    static NET: OnceLock<Result<Net, String>> = OnceLock::new();
    NET.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ssr-fetch")
            .enable_all()
            .build()
            .map_err(|e| format!("starting the fetch runtime: {e}"))?;
        let fetcher = Fetcher::new().map_err(|e| format!("making the HTTP client: {e}"))?;
        Ok(Net { runtime, fetcher })
    })
    .as_ref()
    .map_err(|e| FetchError::Failed(e.clone()))
}

/// A renderer's `fetch(input, init)` as the prelude passes it (the
/// arguments of `contract::calls::FETCH`); the body travels as the call's
/// bytes.
#[derive(Deserialize)]
struct FetchArgs {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    redirect: String,
    /// The body is to come as it arrives (`Finished::streamed`); preludes
    /// before streamed bodies do not say it, and get it whole.
    #[serde(default)]
    stream: bool,
}

/// Where `node:dns` sends its queries (`--dns-over-https`): one endpoint
/// per process, as there is one HTTP client.
static DNS_OVER_HTTPS: OnceLock<String> = OnceLock::new();

/// Sets the endpoint [`dns_over_https`] answers; the first call wins.
pub fn set_dns_over_https(url: &str) {
    let _ = DNS_OVER_HTTPS.set(url.to_string());
}

/// The DNS-over-HTTPS endpoint renderers' `node:dns` queries go to.
pub fn dns_over_https() -> &'static str {
    DNS_OVER_HTTPS
        .get()
        .map_or(crate::config::DEFAULT_DNS_OVER_HTTPS, String::as_str)
}

/// A streamed request's body that declares at most this many bytes comes
/// whole with its head.
const WHOLE_UP_TO: u64 = 64 << 10;

/// What a request's task sends the instance, by the request's id.
enum Done {
    /// The response's head, with its body whole, or with `streamed` its
    /// body to follow as [`Done::Chunk`]s and a [`Done::End`]; or why it
    /// failed.
    Head(Result<Fetched, FetchError>, bool),
    /// The next piece of a streamed body.
    Chunk(bytes::Bytes),
    /// A streamed body ended.
    End,
    /// A streamed body failed before its end.
    Failed(FetchError),
    /// A binding's call ended ([`Subrequests::run`]): its answer, JSON and
    /// bytes, or why it failed.
    Answer(Result<(String, Vec<u8>), String>),
}

/// What `contract::calls::FETCH_WAIT` answers: a request's news (`id` with
/// its response head, and its body as the reply's bytes unless
/// `streamed`; or a streamed body's next `chunk` as the bytes, or its
/// `end`; or `error`), or nothing within the wait (the prelude's next
/// timer is then due); `waited` is how long it waited, in milliseconds,
/// which the virtual clock of plugins built before timers waited in real
/// time still reads.
#[derive(Serialize, Default)]
struct Finished {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(rename = "statusText", skip_serializing_if = "Option::is_none")]
    status_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    headers: Option<Vec<(String, String)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    urls: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// A binding's answer (its bytes are the reply's).
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<Box<serde_json::value::RawValue>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    streamed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    chunk: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    end: bool,
    /// The client went away before the response was complete: the
    /// request's `request.signal` aborts. Said once per render.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    gone: bool,
    waited: u64,
}

/// What a call that starts a request answers: its id.
pub(super) fn id_reply(id: u64) -> Reply {
    Reply {
        value: id.to_string(),
        data: Vec::new(),
    }
}

/// One instance's outbound requests: those in flight, and what the render
/// in progress has used of its limits.
pub struct Subrequests {
    tenant: Arc<str>,
    next_id: u64,
    made: usize,
    /// The render's response bytes, shared with its requests' tasks.
    budget: Arc<Budget>,
    deadline: Instant,
    /// Requests in flight, by id: their task, to abort.
    inflight: HashMap<u64, tokio::task::AbortHandle>,
    done_tx: mpsc::UnboundedSender<(u64, Done)>,
    done_rx: mpsc::UnboundedReceiver<(u64, Done)>,
    /// The render was told its client went away.
    told_gone: bool,
    /// What a binding's calls hold open from one call to the next (an R2
    /// body being read or written), by handle; dropped with the render.
    held: HashMap<u64, Slot>,
    /// The render called a binding (KV, D1, R2, a service): its response
    /// depends on state its request does not name.
    bound: bool,
}

/// A binding's state held across its calls ([`Subrequests::hold`]).
pub type Slot = Arc<std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>>;

impl Drop for Subrequests {
    fn drop(&mut self) {
        self.abort_all();
    }
}

impl Subrequests {
    pub fn new(tenant: &Arc<str>) -> Subrequests {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Subrequests {
            tenant: tenant.clone(),
            next_id: 1,
            made: 0,
            budget: Budget::new(0),
            deadline: Instant::now(),
            inflight: HashMap::new(),
            done_tx,
            done_rx,
            told_gone: false,
            held: HashMap::new(),
            bound: false,
        }
    }

    /// A render starts, to end by `deadline`, with `grant`'s limits whole
    /// again.
    pub fn start_render(&mut self, grant: &FetchGrant, deadline: Instant) {
        self.end_render();
        self.made = 0;
        self.budget = Budget::new(grant.max_bytes);
        self.deadline = deadline;
        self.told_gone = false;
        self.bound = false;
    }

    /// The render goes on to `deadline` (a WebSocket's, renewed as its
    /// messages come and go).
    pub fn extend(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    /// A binding's call: the render's response depends on the state
    /// behind it, so the page cache keeps it only for a TTL the response
    /// sets itself ([`Subrequests::bound`]).
    pub fn binding_called(&mut self) {
        self.bound = true;
    }

    /// Whether this render called a binding so far.
    pub fn bound(&self) -> bool {
        self.bound
    }

    /// The render ended: its requests in flight are aborted (their
    /// connections closed), and responses it never awaited are dropped,
    /// so nothing it fetched stays with the instance.
    pub fn end_render(&mut self) {
        self.abort_all();
        while self.done_rx.try_recv().is_ok() {}
        self.held.clear();
    }

    /// A new, empty slot for a binding's state to be held in from one of
    /// its calls to the next, and its handle. Slots go with the render.
    pub fn hold(&mut self) -> (u64, Slot) {
        let handle = self.take_id();
        let slot = Slot::default();
        self.held.insert(handle, slot.clone());
        (handle, slot)
    }

    /// The slot of `handle`; with `release`, no longer held.
    pub fn held(&mut self, handle: u64, release: bool) -> Option<Slot> {
        if release {
            self.held.remove(&handle)
        } else {
            self.held.get(&handle).cloned()
        }
    }

    /// Aborts request `id`, whose signal aborted: its connection closes now,
    /// and its answer never arrives. An id not in flight is ignored.
    pub fn abort(&mut self, id: u64) {
        if let Some(task) = self.inflight.remove(&id) {
            task.abort();
        }
    }

    fn abort_all(&mut self) {
        for (_, task) in self.inflight.drain() {
            task.abort();
        }
    }

    /// Logs and counts a refusal, and returns its message for the
    /// renderer's `TypeError`.
    fn refuse(&self, reason: &'static str, message: String) -> String {
        tracing::warn!(tenant = &*self.tenant, reason, "fetch refused: {message}");
        metrics::counter!("ssr_fetch_refused_total", "tenant" => self.tenant.to_string(), "reason" => reason)
            .increment(1);
        message
    }

    /// Whether `grant` reaches `url` (its origin, and no credentials in
    /// it); a refusal is logged and counted.
    pub(super) fn granted(&self, grant: &FetchGrant, url: &reqwest::Url) -> Result<(), String> {
        check(&grant.allowed, url).map_err(|e| match e {
            FetchError::Refused(m) => self.refuse("origin", m),
            other => other.to_string(),
        })
    }

    /// Counts one more of the render's subrequests (`what`: a request or a
    /// connection), or refuses it past `grant`'s limit.
    pub fn admit(&mut self, grant: &FetchGrant, what: &str) -> Result<(), String> {
        if self.made >= grant.max_subrequests {
            return Err(self.refuse(
                "subrequests",
                format!(
                    "{what}: this render has made {} requests, its limit (the tenant's `max_subrequests`)",
                    grant.max_subrequests
                ),
            ));
        }
        self.made += 1;
        Ok(())
    }

    /// What the render may still read, all its requests and sockets
    /// together.
    pub fn budget(&self) -> Arc<Budget> {
        self.budget.clone()
    }

    /// When the render must end.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// `contract::calls::FETCH`: starts a request if `grant` allows it, and
    /// answers its id; it runs on [`net`]'s runtime while the render goes
    /// on. A streamed body is read as it arrives, within the render's
    /// deadline (`caps.timeout` bounds its head alone) and the same byte
    /// caps as a whole one.
    pub fn start(&mut self, grant: &FetchGrant, args: &str, body: &[u8]) -> Result<Reply, String> {
        let args: FetchArgs = serde_json::from_str(args)
            .map_err(|e| format!("{}: bad arguments: {e}", contract::calls::FETCH))?;
        self.admit(grant, &format!("fetch of {}", shown_text(&args.url)))?;
        let url = reqwest::Url::parse(&args.url)
            .map_err(|_| format!("Failed to parse URL from {}", shown_text(&args.url)))?;
        self.granted(grant, &url)?;
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.refuse(
                "deadline",
                format!("fetch of {}: the render's deadline has passed", shown(&url)),
            ));
        }
        let caps = Caps {
            timeout: Caps::default().timeout.min(left),
            ..Caps::default()
        };
        let stream = args.stream;
        let budget = self.budget.clone();
        let net = net().map_err(|e| e.to_string())?;
        let id = self.take_id();
        let origin = Origin::of(&url).map(|o| o.to_string()).unwrap_or_default();
        let tenant = self.tenant.to_string();
        let allowed = grant.allowed.clone();
        let done = self.done_tx.clone();
        let request = Outbound {
            method: args.method,
            url: args.url,
            headers: args.headers,
            body: body.to_vec(),
            redirect: args.redirect,
        };
        let in_flight = InFlight::new();
        let task = net.runtime.spawn(async move {
            let _in_flight = in_flight;
            let started = Instant::now();
            let counted = |ok: bool| {
                metrics::histogram!("ssr_fetch_seconds", "tenant" => tenant.clone(), "origin" => origin.clone())
                    .record(started.elapsed());
                metrics::counter!("ssr_fetch_requests_total", "tenant" => tenant.clone(), "origin" => origin.clone(), "outcome" => if ok { "ok" } else { "error" })
                    .increment(1);
            };
            let asked = shown_text(&request.url);
            let null_body = request.method == "HEAD";
            let opened = tokio::time::timeout(caps.timeout, net.fetcher.open(&allowed, request, caps))
                .await
                .unwrap_or_else(|_| Err(timed_out(&asked, caps.timeout)))
                .and_then(|(resp, urls)| split(resp, urls, caps.max_response_bytes, &budget));
            let (head, mut body) = match opened {
                Ok(opened) => opened,
                Err(e) => {
                    counted(false);
                    let _ = done.send((id, Done::Head(Err(e), false)));
                    return;
                }
            };
            // A body asked for whole (a prelude before streamed bodies), a
            // body the Fetch standard says is null (it is empty), or one
            // declared short, is sent whole with the head, all within
            // `caps.timeout`: one wait, where a stream would take three.
            let short = body.resp.content_length().is_some_and(|n| n <= WHOLE_UP_TO);
            if !stream || short || null_body || matches!(head.status, 101 | 103 | 204 | 205 | 304) {
                let left = caps.timeout.saturating_sub(started.elapsed());
                let out = tokio::time::timeout(left, read_whole(head, body, &budget))
                    .await
                    .unwrap_or_else(|_| Err(timed_out(&asked, caps.timeout)));
                counted(out.is_ok());
                let _ = done.send((id, Done::Head(out, false)));
                return;
            }
            if done.send((id, Done::Head(Ok(head), true))).is_err() {
                return;
            }
            loop {
                match body.next(&budget).await {
                    Ok(Some(chunk)) => {
                        if done.send((id, Done::Chunk(chunk))).is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        counted(true);
                        let _ = done.send((id, Done::End));
                        return;
                    }
                    Err(e) => {
                        counted(false);
                        let _ = done.send((id, Done::Failed(e)));
                        return;
                    }
                }
            }
        });
        self.inflight.insert(id, task.abort_handle());
        Ok(id_reply(id))
    }

    /// Starts `work`, a binding's call that may block (a store's read or
    /// write), on a thread of [`net`]'s runtime that may; answers its id
    /// now, and its answer by [`Subrequests::wait`]. A call the render
    /// stops awaiting still runs to its end: a write it started is not
    /// torn. The thread sends the answer itself: one wake-up each way,
    /// where a task of the runtime between them made two more (a D1 point
    /// query took 278 µs that way, `benches/RESULTS-bindings.md`).
    pub fn run(
        &mut self,
        work: impl FnOnce() -> Result<(String, Vec<u8>), String> + Send + 'static,
    ) -> Result<Reply, String> {
        self.launch(|runtime, send| {
            runtime
                .spawn_blocking(move || {
                    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                        .unwrap_or_else(|_| Err("the binding's call failed in the host".into()));
                    send(Done::Answer(out));
                })
                .abort_handle()
        })
    }

    /// Starts a request or call under a new id: `start` spawns it on
    /// [`net`]'s runtime, and it sends what it ends with by the function
    /// it is given; answers the id, and keeps the task to abort.
    fn launch(
        &mut self,
        start: impl FnOnce(
            &tokio::runtime::Runtime,
            Box<dyn FnOnce(Done) + Send>,
        ) -> tokio::task::AbortHandle,
    ) -> Result<Reply, String> {
        let net = net().map_err(|e| e.to_string())?;
        let (id, done) = (self.take_id(), self.done_tx.clone());
        let task = start(
            &net.runtime,
            Box::new(move |end| {
                let _ = done.send((id, end));
            }),
        );
        self.inflight.insert(id, task);
        Ok(id_reply(id))
    }

    /// The next id of a request or call.
    pub(super) fn take_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// Starts `answer`, a call answered as it comes (a request body's next
    /// piece, `upload.rs`), on [`net`]'s runtime: its id now, its answer
    /// by [`Subrequests::wait`] as a binding's.
    pub fn answer(
        &mut self,
        answer: impl std::future::Future<Output = Result<(String, Vec<u8>), String>> + Send + 'static,
    ) -> Result<Reply, String> {
        self.spawn(async move { Done::Answer(answer.await) })
    }

    /// Starts `response`, a request answered without the network (a
    /// service binding's, `bindings/service.rs`), on [`net`]'s runtime:
    /// answers its id now, and its response whole by
    /// [`Subrequests::wait`], as a fetch's.
    pub fn dispatch(
        &mut self,
        response: impl std::future::Future<Output = Result<Fetched, FetchError>> + Send + 'static,
    ) -> Result<Reply, String> {
        self.spawn(async move { Done::Head(response.await, false) })
    }

    /// Runs `task` on [`net`]'s runtime as a request in flight: its id now,
    /// what it ends with by [`Subrequests::wait`].
    fn spawn(
        &mut self,
        task: impl std::future::Future<Output = Done> + Send + 'static,
    ) -> Result<Reply, String> {
        self.launch(|runtime, send| {
            runtime
                .spawn(async move { send(task.await) })
                .abort_handle()
        })
    }

    /// `contract::calls::FETCH_WAIT`: waits up to `args` milliseconds
    /// (`null` or negative: as long as the render's deadline allows) for a
    /// request in flight to finish, and answers it, its body as the bytes;
    /// or for `other` (a socket's event, `socket.rs`), answered as it
    /// answers; with none in flight, it is a timer's wait, and answers nothing when
    /// the time is up. At the deadline, a request still in flight fails.
    /// When `client` (the render's streamed body) closes first, the answer
    /// says the client went away, once.
    pub async fn wait(
        &mut self,
        args: &str,
        client: Option<&Sink>,
        other: impl std::future::Future<Output = Result<Reply, String>>,
    ) -> Result<Reply, String> {
        let max: Option<f64> = serde_json::from_str(args)
            .map_err(|e| format!("{}: bad arguments: {e}", contract::calls::FETCH_WAIT))?;
        let started = Instant::now();
        let any = self.inflight.keys().next().copied();
        let until = max
            .filter(|ms| *ms >= 0.0)
            .and_then(|ms| Duration::try_from_secs_f64(ms / 1e3).ok())
            .and_then(|d| started.checked_add(d))
            .map_or(self.deadline, |t| t.min(self.deadline));
        let net = net().map_err(|e| e.to_string())?;
        let sleep = {
            let _in = net.runtime.enter();
            tokio::time::sleep_until(until.into())
        };
        let client = client.filter(|_| !self.told_gone);
        let leaving = async {
            match client {
                Some(sink) => sink.closed().await,
                None => std::future::pending().await,
            }
        };
        let got = tokio::select! {
            biased;
            got = self.done_rx.recv() => got,
            answer = other => return answer,
            () = leaving => {
                self.told_gone = true;
                let gone = Finished {
                    gone: true,
                    waited: millis_since(started),
                    ..Finished::default()
                };
                return reply(gone, Vec::new());
            }
            () = sleep => None,
        };
        let waited = millis_since(started);
        let finished = |id, error| Finished {
            id: Some(id),
            error: Some(error),
            waited,
            ..Finished::default()
        };
        let (id, done) = match (got, any) {
            (Some(got), _) => got,
            (None, Some(any)) if Instant::now() >= self.deadline => {
                if let Some(task) = self.inflight.remove(&any) {
                    task.abort();
                }
                let message = self.refuse(
                    "deadline",
                    "fetch: the render's deadline passed while the request was in flight".into(),
                );
                return reply(finished(any, message), Vec::new());
            }
            (None, _) => {
                let nothing = Finished {
                    waited,
                    ..Finished::default()
                };
                return reply(nothing, Vec::new());
            }
        };
        let out = match done {
            Done::Head(out, streamed) => {
                if !streamed {
                    self.inflight.remove(&id);
                }
                out.map(|f| (f, streamed))
            }
            Done::Chunk(bytes) => {
                let chunk = Finished {
                    id: Some(id),
                    chunk: true,
                    waited,
                    ..Finished::default()
                };
                return reply(chunk, bytes.into());
            }
            Done::End => {
                self.inflight.remove(&id);
                let end = Finished {
                    id: Some(id),
                    end: true,
                    waited,
                    ..Finished::default()
                };
                return reply(end, Vec::new());
            }
            Done::Failed(e) => {
                self.inflight.remove(&id);
                Err(e)
            }
            Done::Answer(out) => {
                self.inflight.remove(&id);
                let (answer, bytes) = match out {
                    Ok((json, bytes)) => (Some(json), bytes),
                    Err(e) => return reply(finished(id, e), Vec::new()),
                };
                let answer = answer
                    .map(serde_json::value::RawValue::from_string)
                    .transpose()
                    .map_err(|e| format!("a binding's answer is not JSON: {e}"))?;
                let answered = Finished {
                    id: Some(id),
                    answer,
                    waited,
                    ..Finished::default()
                };
                return reply(answered, bytes);
            }
        };
        let (f, streamed) = match out {
            Ok(f) => f,
            Err(FetchError::Refused(m)) => {
                return reply(finished(id, self.refuse("redirect", m)), Vec::new());
            }
            Err(FetchError::Capped(m)) => {
                return reply(finished(id, self.refuse("bytes", m)), Vec::new());
            }
            Err(FetchError::Failed(m)) => {
                tracing::info!(tenant = &*self.tenant, "fetch failed: {m}");
                return reply(finished(id, m), Vec::new());
            }
        };
        let head = Finished {
            id: Some(id),
            status: Some(f.status),
            status_text: Some(f.status_text),
            headers: Some(f.headers),
            urls: Some(f.urls),
            streamed,
            waited,
            ..Finished::default()
        };
        reply(head, f.body)
    }
}

/// One request in flight, in `ssr_fetch_in_flight` until it ends or is
/// aborted.
struct InFlight;

impl InFlight {
    fn new() -> InFlight {
        metrics::gauge!("ssr_fetch_in_flight").increment(1.0);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics::gauge!("ssr_fetch_in_flight").decrement(1.0);
    }
}

fn millis_since(started: Instant) -> u64 {
    started.elapsed().as_millis() as u64
}

fn reply(finished: Finished, data: Vec<u8>) -> Result<Reply, String> {
    Ok(Reply {
        value: serde_json::to_string(&finished).map_err(|e| e.to_string())?,
        data,
    })
}

/// Refuses a URL with credentials (as the Fetch standard's `Request`
/// does: they would go out in the clear, and into logs), and one whose
/// origin is not granted.
fn check(allowed: &[Origin], url: &reqwest::Url) -> Result<(), FetchError> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FetchError::Failed(format!(
            "fetch of {}: a URL with credentials (user:password@) cannot be fetched; send them in an Authorization header",
            shown(url)
        )));
    }
    match Origin::of(url) {
        Some(origin) if allowed.contains(&origin) => Ok(()),
        Some(origin) => Err(FetchError::Refused(format!(
            "fetch of {}: the origin {origin} is not allowed for this site; grant it with `ssr tenant add ... --allow-fetch {origin}`",
            shown(url)
        ))),
        None => Err(FetchError::Refused(format!(
            "fetch of {}: only http and https URLs can be fetched",
            shown(url)
        ))),
    }
}

/// `url` as messages and the log show it: without credentials, and with
/// its query as `?[query]`, since API keys and tokens travel there.
pub fn shown(url: &reqwest::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    let query = url.query().is_some_and(|q| !q.is_empty());
    url.set_query(None);
    url.set_fragment(None);
    let mut out = url.to_string();
    if query {
        out.push_str("?[query]");
    }
    out
}

/// A URL as the renderer wrote it, shown as [`shown`] does; text that is
/// not a URL loses whatever follows a `?` or `@`-looking authority.
fn shown_text(text: &str) -> String {
    match reqwest::Url::parse(text) {
        Ok(url) => shown(&url),
        Err(_) => {
            let cut = text.find(['?', '@', '#']).unwrap_or(text.len());
            let mut out = text[..cut].to_string();
            if cut < text.len() {
                out.push_str("[...]");
            }
            out
        }
    }
}

/// Headers the client sets itself, which a renderer may not: `host` (it
/// would reach another site on a granted address), the body's framing, and
/// the connection's (the Fetch standard's forbidden request headers that
/// matter to a server).
fn is_forbidden(name: &str) -> bool {
    const FORBIDDEN: [&str; 9] = [
        "host",
        "connection",
        "content-length",
        "transfer-encoding",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "expect",
    ];
    let name = name.to_ascii_lowercase();
    FORBIDDEN.contains(&name.as_str()) || name.starts_with("proxy-")
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Why a request did not end within `timeout`.
fn timed_out(shown_url: &str, timeout: Duration) -> FetchError {
    FetchError::Failed(format!("fetch of {shown_url} took longer than {timeout:?}"))
}

/// A response as its head (status line and headers, as a renderer sees
/// them, with an empty body) and its body to read (see [`Body`]).
fn split(
    resp: reqwest::Response,
    urls: Vec<String>,
    max: usize,
    budget: &Budget,
) -> Result<(Fetched, Body), FetchError> {
    let status = resp.status();
    let head = Fetched {
        status: status.as_u16(),
        status_text: status.canonical_reason().unwrap_or("").to_string(),
        headers: resp
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        body: Vec::new(),
        urls,
    };
    Ok((head, Body::new(resp, max, budget)?))
}

/// A response's body, chunk by chunk: at most `max` bytes in all, each
/// chunk taken from `budget` as it arrives.
struct Body {
    resp: reqwest::Response,
    max: usize,
    read: usize,
}

impl Body {
    /// Refuses a declared length over `max` or over what `budget` has left
    /// before any of the body is read.
    fn new(resp: reqwest::Response, max: usize, budget: &Budget) -> Result<Body, FetchError> {
        let body = Body { resp, max, read: 0 };
        if let Some(n) = body.resp.content_length() {
            if !budget.fits(n) {
                return Err(budget.spent());
            }
            if n > max as u64 {
                return Err(body.too_large());
            }
        }
        Ok(body)
    }

    fn too_large(&self) -> FetchError {
        FetchError::Failed(format!(
            "the response of {} is over the limit of {} bytes",
            shown(self.resp.url()),
            self.max
        ))
    }

    /// The next chunk, or `None` at the end.
    async fn next(&mut self, budget: &Budget) -> Result<Option<bytes::Bytes>, FetchError> {
        let chunk = self.resp.chunk().await.map_err(|e| {
            FetchError::Failed(format!(
                "reading the response of {} failed: {}",
                shown(self.resp.url()),
                e.without_url()
            ))
        })?;
        let Some(chunk) = chunk else { return Ok(None) };
        if self.read + chunk.len() > self.max {
            return Err(self.too_large());
        }
        budget.take(chunk.len())?;
        self.read += chunk.len();
        Ok(Some(chunk))
    }
}

/// `head` with `body` read into it whole.
async fn read_whole(
    mut head: Fetched,
    mut body: Body,
    budget: &Budget,
) -> Result<Fetched, FetchError> {
    while let Some(chunk) = body.next(budget).await? {
        head.body.extend_from_slice(&chunk);
    }
    Ok(head)
}

/// The resolver of every name a renderer fetches: the system's, keeping
/// only public addresses.
struct PublicOnly;

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let all = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let public = public_only(&host, all)?;
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The public addresses among those `host` resolved to (`all`), or why
/// there are none: the rule of every name a renderer reaches, by `fetch`
/// ([`PublicOnly`]) or by `connect()` (`socket.rs`).
pub fn public_only(
    host: &str,
    all: impl IntoIterator<Item = SocketAddr>,
) -> Result<Vec<SocketAddr>, String> {
    let public: Vec<SocketAddr> = all.into_iter().filter(|a| is_public(a.ip())).collect();
    if public.is_empty() {
        return Err(format!(
            "{host} resolves to no public address; a private one is reached only by granting its IP address"
        ));
    }
    Ok(public)
}

/// Whether `ip` is on the public internet: not in a range IANA's
/// special-purpose address registries mark as not globally reachable
/// (loopback, private, shared, link-local, documentation, benchmarking,
/// reserved, ...), nor multicast. An IPv4 address carried inside an IPv6
/// one (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64's well-known
/// prefix, 6to4) is judged as that IPv4 address, so `::ffff:127.0.0.1`,
/// `64:ff9b::a9fe:a9fe` or `2002:7f00:1::` reach nothing `127.0.0.1` or
/// `169.254.169.254` would not.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

/// IPv4: the IANA IPv4 Special-Purpose Address Registry's ranges that are
/// not globally reachable, and multicast.
fn is_public_v4(v4: std::net::Ipv4Addr) -> bool {
    let bits = u32::from(v4);
    const NOT_GLOBAL: [(u32, u32); 16] = [
        (0x0000_0000, 8),  // 0.0.0.0/8 "this network"
        (0x0a00_0000, 8),  // 10.0.0.0/8 private
        (0x6440_0000, 10), // 100.64.0.0/10 shared (CGNAT)
        (0x7f00_0000, 8),  // 127.0.0.0/8 loopback
        (0xa9fe_0000, 16), // 169.254.0.0/16 link-local (cloud metadata)
        (0xac10_0000, 12), // 172.16.0.0/12 private
        (0xc000_0000, 24), // 192.0.0.0/24 IETF protocol assignments
        (0xc000_0200, 24), // 192.0.2.0/24 documentation
        (0xc058_6300, 24), // 192.88.99.0/24 6to4 relay anycast (deprecated)
        (0xc0a8_0000, 16), // 192.168.0.0/16 private
        (0xc612_0000, 15), // 198.18.0.0/15 benchmarking
        (0xc633_6400, 24), // 198.51.100.0/24 documentation
        (0xcb00_7100, 24), // 203.0.113.0/24 documentation
        (0xe000_0000, 4),  // 224.0.0.0/4 multicast
        (0xf000_0000, 4),  // 240.0.0.0/4 reserved, broadcast
        (0xffff_ffff, 32), // 255.255.255.255 broadcast
    ];
    !NOT_GLOBAL
        .iter()
        .any(|&(net, len)| bits >> (32 - len) == net >> (32 - len))
}

/// IPv6: the IANA IPv6 Special-Purpose Address Registry's ranges that are
/// not globally reachable, and multicast and the deprecated site-local.
fn is_public_v6(v6: std::net::Ipv6Addr) -> bool {
    let bits = u128::from(v6);
    const NOT_GLOBAL: [(u128, u32); 13] = [
        (0, 128),                          // :: unspecified
        (1, 128),                          // ::1 loopback
        (0x0064_ff9b_0001 << 80, 48),      // 64:ff9b:1::/48 local-use NAT64
        (0x0100 << 112, 64),               // 100::/64 discard-only
        (0x0100_0000_0000_0001 << 64, 64), // 100:0:0:1::/64 dummy prefix
        (0x2001 << 112, 23),               // 2001::/23 IETF protocol assignments (Teredo...)
        (0x2001_0db8 << 96, 32),           // 2001:db8::/32 documentation
        (0x3fff << 112, 20),               // 3fff::/20 documentation
        (0x5f00 << 112, 16),               // 5f00::/16 segment routing
        (0xfc00 << 112, 7),                // fc00::/7 unique local
        (0xfe80 << 112, 10),               // fe80::/10 link-local
        (0xfec0 << 112, 10),               // fec0::/10 site-local (deprecated)
        (0xff00 << 112, 8),                // ff00::/8 multicast
    ];
    !NOT_GLOBAL
        .iter()
        .any(|&(net, len)| bits >> (128 - len) == net >> (128 - len))
}

/// The IPv4 address an IPv6 address carries, in the forms a connection can
/// reach it through: IPv4-mapped (`::ffff:0:0/96`), IPv4-compatible
/// (`::/96`, but `::` and `::1` themselves), IPv4-translated
/// (`::ffff:0:0:0/96`), NAT64's well-known prefix (`64:ff9b::/96`) and 6to4
/// (`2002::/16`, the address in bits 16-47).
fn embedded_v4(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    let bits = u128::from(v6);
    let low = std::net::Ipv4Addr::from(bits as u32);
    let prefix96 = bits >> 32;
    match prefix96 {
        0xffff | 0xffff_0000 | 0x0064_ff9b_0000_0000_0000_0000 => Some(low),
        0 if bits > 1 => Some(low),
        _ if bits >> 112 == 0x2002 => Some(std::net::Ipv4Addr::from((bits >> 80) as u32)),
        _ => None,
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn origins_parse_strictly_and_print_as_the_web_does() {
        let o: Origin = "HTTP://API.Example.com:80".parse().unwrap();
        assert_eq!(o.to_string(), "http://api.example.com");
        let o: Origin = "https://127.0.0.1:9443/".parse().unwrap();
        assert_eq!(o.to_string(), "https://127.0.0.1:9443");
        // `connect()`'s grants: a host and a port, always written.
        let o: Origin = "TCP://DB.Example.com:5432".parse().unwrap();
        assert_eq!(o.to_string(), "tcp://db.example.com:5432");
        let o: Origin = "tcp://[::1]:80".parse().unwrap();
        assert_eq!(o.to_string(), "tcp://[::1]:80");
        assert!(Origin::of(&reqwest::Url::parse("tcp://x.test:1").unwrap()).is_none());
        for bad in [
            "127.0.0.1:9000",
            "tcp://x.test",
            "tcp://x.test:5432/db",
            "tcp://:5432",
            "ftp://x.test",
            "http://x.test/api",
            "http://u:p@x.test",
            "http://x.test?q",
            "not a url",
        ] {
            let e = bad.parse::<Origin>().unwrap_err();
            assert!(e.contains("is not an origin to fetch"), "{bad}: {e}");
        }
    }

    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "192.0.0.170",
            "198.18.0.1",
            "198.19.255.254",
            "240.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::",
            "::1",
            "fd00::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "64:ff9b:1::1",
            // IPv4 inside IPv6: mapped, compatible, translated, NAT64, 6to4.
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "::ffff:0:127.0.0.1",
            "::ffff:0:a9fe:a9fe",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::10.0.0.1",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "2002:c0a8:101::",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "2001:4860:4860::8888",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    fn urls_are_shown_without_credentials_or_query() {
        let url = |s: &str| reqwest::Url::parse(s).unwrap();
        assert_eq!(
            shown(&url("https://user:hunter2@api.test/v1/x?key=SECRET#f")),
            "https://api.test/v1/x?[query]"
        );
        assert_eq!(shown(&url("http://api.test/a")), "http://api.test/a");
        assert_eq!(shown_text("not a url ?key=SECRET"), "not a url [...]");
        let e = check(&[], &url("http://u:p@api.test/")).unwrap_err();
        assert!(
            e.to_string().contains("a URL with credentials") && !e.to_string().contains(":p@"),
            "{e}"
        );
    }

    fn a_budget_is_shared_and_never_overdrawn() {
        let budget = Budget::new(10);
        budget.take(6).unwrap();
        assert!(budget.take(5).is_err());
        budget.take(4).unwrap();
        let e = budget.take(1).unwrap_err();
        assert!(
            e.to_string()
                .contains("this render's responses are over its limit of 10 bytes"),
            "{e}"
        );
    }

    /// A loopback origin answering by path: `/ok`, `/host` (the `Host` lines it got), `/to-ok` (303 to /ok),
    /// `/away` (302 to the same server under another name), `/endless` (a
    /// chunked body that never ends), `/huge` (declares 1 GiB), `/never`
    /// (reads the request, never answers).
    async fn origin() -> SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut conn, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut head = vec![0; 4096];
                    let n = conn.read(&mut head).await.unwrap_or(0);
                    let head = String::from_utf8_lossy(&head[..n]).to_string();
                    let mut words = head.split_whitespace();
                    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
                    let reply = |status: &str, extra: &str, body: &str| {
                        format!(
                            "HTTP/1.1 {status}\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        )
                    };
                    let out = match path {
                        "/ok" => reply("200 OK", "x-a: 1\r\n", &format!("hello {method}")),
                        "/host" => {
                            let host = head
                                .lines()
                                .filter(|l| l.to_ascii_lowercase().starts_with("host:"))
                                .collect::<Vec<_>>()
                                .join(",");
                            reply("200 OK", "", &host)
                        }
                        "/to-ok" => reply("303 See Other", "location: /ok\r\n", ""),
                        "/away" => reply(
                            "302 Found",
                            &format!("location: http://localhost:{}/ok\r\n", addr.port()),
                            "",
                        ),
                        "/huge" => "HTTP/1.1 200 OK\r\ncontent-length: 1073741824\r\n\r\n".into(),
                        "/endless" => {
                            let _ = conn
                                .write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
                                .await;
                            let chunk = format!("4000\r\n{}\r\n", "x".repeat(0x4000));
                            while conn.write_all(chunk.as_bytes()).await.is_ok() {}
                            return;
                        }
                        _ => {
                            tokio::time::sleep(Duration::from_secs(60)).await;
                            return;
                        }
                    };
                    let _ = conn.write_all(out.as_bytes()).await;
                });
            }
        });
        addr
    }

    fn post(url: String) -> Outbound {
        Outbound {
            method: "POST".into(),
            url,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: b"data".to_vec(),
            redirect: "follow".into(),
        }
    }

    async fn only_granted_origins_are_fetched_and_every_cap_holds() {
        let addr = origin().await;
        let base = format!("http://127.0.0.1:{}", addr.port());
        let granted: Vec<Origin> = vec![base.parse().unwrap()];
        let fetcher = Fetcher::new().unwrap();
        let caps = Caps {
            timeout: Duration::from_millis(500),
            max_response_bytes: 1 << 20,
            max_redirects: 20,
        };
        let budget = Budget::new(usize::MAX);
        let fetch =
            |path: &str| fetcher.fetch(&granted, post(format!("{base}{path}")), caps, &budget);

        // A renderer cannot name another site on a granted address.
        let mut spoofed = post(format!("{base}/host"));
        spoofed
            .headers
            .push(("Host".into(), "intranet.example".into()));
        let got = fetcher
            .fetch(&granted, spoofed, caps, &budget)
            .await
            .unwrap();
        assert_eq!(
            got.body,
            format!("host: 127.0.0.1:{}", addr.port()).as_bytes()
        );

        let ok = fetch("/ok").await.unwrap();
        assert_eq!((ok.status, ok.body.as_slice()), (200, &b"hello POST"[..]));
        assert!(ok.headers.contains(&("x-a".into(), "1".into())));
        // A 303 goes on as a GET, within the grant.
        let moved = fetch("/to-ok").await.unwrap();
        assert_eq!(moved.body, b"hello GET");
        assert_eq!(moved.urls, [format!("{base}/to-ok"), format!("{base}/ok")]);

        let refused = |e: FetchError, needle: &str| assert!(e.to_string().contains(needle), "{e}");
        refused(
            fetcher
                .fetch(
                    &granted,
                    post("http://127.0.0.1:1/ok".into()),
                    caps,
                    &budget,
                )
                .await
                .unwrap_err(),
            "the origin http://127.0.0.1:1 is not allowed for this site",
        );
        refused(
            fetch("/away").await.unwrap_err(),
            &format!("the origin http://localhost:{} is not allowed", addr.port()),
        );
        refused(
            fetch("/huge").await.unwrap_err(),
            "over the limit of 1048576 bytes",
        );
        refused(
            fetch("/endless").await.unwrap_err(),
            "over the limit of 1048576 bytes",
        );
        refused(fetch("/never").await.unwrap_err(), "took longer than 500ms");
        let mut manual = post(format!("{base}/to-ok"));
        manual.redirect = "manual".into();
        assert_eq!(
            fetcher
                .fetch(&granted, manual, caps, &budget)
                .await
                .unwrap()
                .status,
            303
        );

        // A granted name that resolves to a private address reaches nothing.
        let by_name: Vec<Origin> =
            vec![format!("http://localhost:{}", addr.port()).parse().unwrap()];
        let e = fetcher
            .fetch(
                &by_name,
                post(format!("http://localhost:{}/ok", addr.port())),
                caps,
                &budget,
            )
            .await
            .unwrap_err();
        refused(e, "resolves to no public address");
    }

    crate::unit_tests!(origins_parse_strictly_and_print_as_the_web_does, only_public_addresses_are_public, urls_are_shown_without_credentials_or_query, a_budget_is_shared_and_never_overdrawn; async only_granted_origins_are_fetched_and_every_cap_holds);
}
