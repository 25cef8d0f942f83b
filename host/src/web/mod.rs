//! The host side of the web APIs: what a renderer reaches in the host, the
//! same for both engines. Its console (WIT `log`) and the host's
//! capabilities (WIT `host.call`), each one row of [`CAPABILITIES`]: its
//! name (the contract crate's `calls`, with the JSON form of its arguments
//! and reply), its tier, and its handler, in the file of its web API here
//! (`url.rs`, `url_pattern.rs`, `text.rs`, `compress.rs`, `rewriter.rs`,
//! `intl.rs`, `fetch.rs`, `socket.rs`, `websocket.rs`,
//! `websocket_client.rs`,
//! `crypto/`)
//! or of the host part it reaches (`cache/api.rs`, `assets/binding.rs`).
//! The prelude's file for the API (`wit/prelude/NN_<api>.js`) wraps it for
//! JavaScript. The engines only carry the call: Wasmtime through the WIT
//! import, V8 through the shim's `__ssr_host`. Adding a capability
//! therefore touches its row, `calls`, the prelude and a test, and no
//! binding; a test checks that the prelude calls exactly the names here.
//!
//! Lifetime: one [`Imports`] per instance (a Wasm store or a V8 isolate),
//! serving one tenant version, whose [`Grants`] it shares with the
//! version's other instances.
//!
//! Invariants:
//! - Default-deny: a name that is not a row here is refused, and so is a
//!   call whose arguments do not parse, with a message naming the
//!   capability and what was wrong (the prelude throws it as a
//!   `TypeError`). A refusal never fails the render by itself.
//! - Only `fetch-wait` waits, and never past the render's deadline. The
//!   engine calls it, not the renderer's JavaScript: on Wasm the guest
//!   runtime, whose fiber suspends in the async import while its worker
//!   serves other renders; on V8 the render's future, between calls into
//!   the isolate. Every other call answers at once.
//! - What runs at build time (a module's top level, `build/preinit.rs`)
//!   or in a V8 worker process without the server is decided by the tier
//!   alone: only what depends on its arguments alone is answered before
//!   an instance exists, so nothing drawn then is frozen into a snapshot.
//! - A secret's value never leaves through the host's side: console lines
//!   and render errors pass [`Grants::redact`] before they are logged or
//!   shown, and [`Grants`] prints no value (`Debug`).

pub mod compress;
pub mod console;
pub mod crypto;
pub mod fetch;
mod grants;
pub mod intl;
pub mod open;
pub mod rewriter;
pub mod socket;
pub mod stream;
pub mod text;
pub mod upload;
pub mod url;
pub mod url_pattern;
pub mod websocket;
pub mod websocket_client;

use std::sync::Arc;
use std::time::Instant;

use contract::{LogLevel, Reply, calls};

use console::Console;
use fetch::Subrequests;
pub use grants::{Grants, Reach};
use stream::Sink;

/// One instance's way out to the host.
pub struct Imports {
    grants: Arc<Grants>,
    console: Console,
    subrequests: Subrequests,
    /// Where this render's body goes as it is made, when its client can
    /// take it so (`stream.rs`).
    body: Option<Sink>,
    /// `TextDecoder` streams open in this render (`text.rs`).
    decoders: text::Decoders,
    /// `CompressionStream`s and `DecompressionStream`s open in this render
    /// (`compress.rs`).
    coders: compress::Coders,
    /// `HTMLRewriter`s open in this render (`rewriter.rs`).
    rewriters: rewriter::Rewriters,
    /// `connect()`'s sockets open in this render (`socket.rs`).
    sockets: socket::Sockets,
    /// The request's body still arriving (`upload.rs`), read by one
    /// `request-body` call at a time.
    upload: Option<Arc<tokio::sync::Mutex<upload::Upload>>>,
    /// The WebSocket the client offered, once taken from the body's sink
    /// (`websocket.rs`).
    socket: Option<websocket::Socket>,
    /// New limits for the render, not yet taken by its engine.
    renewal: Option<websocket::Renewal>,
    /// The WebSockets the render opened as a client
    /// (`websocket_client.rs`).
    clients: websocket_client::Clients,
    /// The Durable Object this render runs, if it is one's
    /// (`bindings/objects/`).
    object: Option<crate::bindings::objects::Host>,
}

impl Imports {
    pub fn new(grants: &Arc<Grants>) -> Imports {
        Imports {
            console: Console::new(&grants.tenant),
            subrequests: Subrequests::new(&grants.tenant),
            grants: grants.clone(),
            body: None,
            decoders: Default::default(),
            coders: Default::default(),
            rewriters: Default::default(),
            sockets: Default::default(),
            upload: None,
            socket: None,
            renewal: None,
            clients: Default::default(),
            object: None,
        }
    }

    /// What the instance was given.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// A new render starts, to end by `deadline`, its body streamed to
    /// `body` if given: per-render budgets are whole again, and what the
    /// last render left in flight is dropped.
    pub fn start_render(
        &mut self,
        deadline: Instant,
        mut body: Option<Sink>,
        req: &contract::Request,
    ) {
        self.console.start_render(req);
        self.subrequests.start_render(&self.grants.fetch, deadline);
        self.upload = body
            .as_mut()
            .and_then(Sink::take_upload)
            .map(|u| Arc::new(tokio::sync::Mutex::new(u)));
        self.socket = body
            .as_mut()
            .and_then(Sink::take_socket)
            .map(websocket::Socket::from);
        self.object = body
            .as_mut()
            .and_then(Sink::take_object)
            .and_then(|inbox| inbox.downcast::<crate::bindings::objects::Inbox>().ok())
            .map(|inbox| crate::bindings::objects::Host::from(*inbox));
        self.renewal = None;
        self.body = body;
    }

    /// The render ended: its body channel closes, and its requests end
    /// with it.
    pub fn end_render(&mut self) {
        self.body = None;
        self.upload = None;
        self.socket = None;
        self.object = None;
        self.renewal = None;
        self.clients.clear();
        self.decoders.clear();
        self.coders.clear();
        self.rewriters.clear();
        self.sockets.end_render();
        self.subrequests.end_render();
    }

    /// The render failed, as `said`: its log followers see it
    /// (`logs.rs`); the engine redacted it first (`engine::ended`).
    pub fn failed(&self, said: &str) {
        self.console.failed(said);
    }

    /// One `console.*` line.
    pub fn log(&self, level: LogLevel, message: &str) {
        self.console.write(level, &self.grants.redact(message));
    }

    /// Calls the capability `name` with `args` (JSON) and `data`. Only
    /// `fetch-wait` waits; every other call is [`Imports::call_now`].
    pub async fn call(&mut self, name: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
        if name == calls::FETCH_WAIT {
            let body = self.body.as_ref();
            let sockets = self.sockets.next_reply(Instant::now());
            // The offered WebSocket's read, answered here, not by a task.
            let socket = self.socket.as_mut();
            let other = async move {
                match socket {
                    Some(socket) => tokio::select! {
                        reply = sockets => reply,
                        reply = socket.next_read() => reply,
                    },
                    None => sockets.await,
                }
            };
            let reply = self.subrequests.wait(args, body, other).await;
            if let Some(renewal) = self.socket.as_ref().and_then(websocket::Socket::arrived) {
                self.renew(renewal);
            }
            let object = self.object.as_ref();
            if let Some(renewal) = object.and_then(crate::bindings::objects::Host::arrived) {
                self.renew(renewal);
            }
            return reply;
        }
        self.call_now(name, args, data)
    }

    /// The render may go on to `renewal`'s deadline (a WebSocket's): its
    /// requests too, and its engine once it takes it.
    fn renew(&mut self, renewal: websocket::Renewal) {
        self.subrequests.extend(renewal.deadline);
        let cpu = self.renewal.is_some_and(|r| r.cpu) || renewal.cpu;
        self.renewal = Some(websocket::Renewal { cpu, ..renewal });
    }

    /// New limits for the render in progress since the last call, if any:
    /// the engine applies them (a WebSocket's render lives on as messages
    /// come and go, `websocket.rs`).
    pub fn take_renewal(&mut self) -> Option<websocket::Renewal> {
        self.renewal.take()
    }

    /// Whether the render called a binding so far.
    pub fn bound(&self) -> bool {
        self.subrequests.bound()
    }

    /// Whether the render's body goes out as it comes (`response-head`
    /// answers `true`), for a worker process that answers it itself.
    pub fn streams(&self) -> bool {
        self.body.is_some()
    }

    /// The capabilities that answer at once: all but `fetch-wait`, which
    /// only an engine's driver calls. V8's callback for JavaScript calls
    /// this, so a call from JavaScript never blocks its thread.
    pub fn call_now(&mut self, name: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
        match capability(name).map(|c| &c.handler) {
            Some(Handler::Pure(f) | Handler::Alone(f)) => f(args, data),
            Some(Handler::Instance(f) | Handler::PureWhole { instance: f, .. }) => {
                f(self, args, data)
            }
            Some(Handler::Engine) => Err(format!(
                "{name}: only the engine waits for requests; await the promise `fetch` returns"
            )),
            None => Err(format!(
                "the host has no capability \"{name}\" (this plugin may need a newer host)"
            )),
        }
    }
}

/// A handler that needs nothing but the call.
type Free = fn(&str, &[u8]) -> Result<Reply, String>;
/// A handler that needs the instance.
type Stateful = fn(&mut Imports, &str, &[u8]) -> Result<Reply, String>;

/// How a capability is answered, and so where (its tier).
pub enum Handler {
    /// Its answer depends on its arguments alone: answered the same at
    /// build time (a module's top level, `build/preinit.rs`), by a V8
    /// worker process itself, and in an instance.
    Pure(Free),
    /// Pure for a whole call, but a streamed call stays open in the
    /// instance (`text-decode`): whole calls are answered at build time
    /// too, everything else only in an instance.
    PureWhole { whole: Free, instance: Stateful },
    /// Needs nothing of the server nor of the render, but differs on
    /// every call (random bytes): a V8 worker process answers it itself;
    /// never at build time, where its answer would be frozen into every
    /// instance.
    Alone(Free),
    /// Needs the instance: its tenant's grants or its render's state. The
    /// server answers it.
    Instance(Stateful),
    /// Only an engine's driver calls it, and it may wait (`fetch-wait`,
    /// [`Imports::call`]); from JavaScript it is refused.
    Engine,
}

impl Handler {
    /// The tier's name, as `docs/architecture.md` lists them.
    pub fn tier(&self) -> &'static str {
        match self {
            Handler::Pure(_) => "pure",
            Handler::PureWhole { .. } => "pure (whole calls)",
            Handler::Alone(_) => "alone",
            Handler::Instance(_) => "instance",
            Handler::Engine => "engine",
        }
    }
}

/// One host capability.
pub struct Capability {
    /// Its name in `host.call` (the contract crate's `calls`).
    pub name: &'static str,
    pub handler: Handler,
}

/// Every capability the host has: a name not here is refused.
pub static CAPABILITIES: &[Capability] = &[
    Capability {
        name: calls::RANDOM,
        handler: Handler::Alone(|args, _| parse(calls::RANDOM, args).and_then(random)),
    },
    Capability {
        name: calls::CRYPTO,
        handler: Handler::Pure(crypto::call),
    },
    Capability {
        name: calls::URL,
        handler: Handler::Pure(|args, _| url::call(args)),
    },
    Capability {
        name: calls::URL_PATTERN,
        handler: Handler::Pure(|args, _| url_pattern::call(args)),
    },
    Capability {
        name: calls::INTL,
        handler: Handler::Pure(|args, _| intl::call(args)),
    },
    Capability {
        name: calls::TEXT_DECODE,
        handler: Handler::PureWhole {
            whole: text::pure,
            instance: |i, args, data| i.decoders.call(args, data),
        },
    },
    Capability {
        name: calls::COMPRESS,
        handler: Handler::Instance(|i, args, data| i.coders.call(args, data)),
    },
    Capability {
        name: calls::HTML_REWRITER,
        handler: Handler::PureWhole {
            whole: rewriter::pure,
            instance: |i, args, data| i.rewriters.call(args, data),
        },
    },
    Capability {
        name: calls::FETCH,
        handler: Handler::Instance(|i, args, data| {
            i.subrequests.start(&i.grants.fetch, args, data)
        }),
    },
    Capability {
        name: calls::FETCH_WAIT,
        handler: Handler::Engine,
    },
    Capability {
        name: calls::FETCH_ABORT,
        handler: Handler::Instance(|i, args, _| {
            i.subrequests.abort(parse(calls::FETCH_ABORT, args)?);
            Ok(Reply::default())
        }),
    },
    Capability {
        name: calls::SOCKET,
        handler: Handler::Instance(|i, args, data| {
            let (subrequests, grant) = (&mut i.subrequests, &i.grants.fetch);
            i.sockets.call(args, data, || {
                subrequests.admit(grant, "connect()")?;
                Ok(socket::Lent {
                    grant,
                    budget: subrequests.budget(),
                    deadline: subrequests.deadline(),
                    tenant: &i.grants.tenant,
                })
            })
        }),
    },
    Capability {
        name: calls::REQUEST_BODY,
        handler: Handler::Instance(
            |i, args, _| match parse::<&str>(calls::REQUEST_BODY, args)? {
                "more" => Ok(json(&i.upload.is_some().to_string())),
                "read" => {
                    let Some(upload) = i.upload.clone() else {
                        return Err(format!(
                            "{}: this request's body came whole with it",
                            calls::REQUEST_BODY
                        ));
                    };
                    i.subrequests.answer(async move {
                        let (piece, end) = upload.lock().await.next().await?;
                        Ok((format!("{{\"end\":{end}}}"), piece))
                    })
                }
                other => Err(format!(
                    "{}: `{other}` is neither \"more\" nor \"read\"",
                    calls::REQUEST_BODY
                )),
            },
        ),
    },
    Capability {
        name: calls::WEBSOCKET,
        handler: Handler::Instance(|i, args, data| {
            let reach = websocket_client::Reach {
                socket: i.socket.as_mut(),
                clients: &mut i.clients,
                subrequests: &mut i.subrequests,
                grant: &i.grants.fetch,
            };
            let (reply, renewal) = websocket_client::call(reach, args, data)?;
            if let Some(renewal) = renewal {
                i.renew(renewal);
            }
            Ok(reply)
        }),
    },
    Capability {
        name: calls::ENV,
        handler: Handler::Instance(|i, _, _| Ok(json(&env(&i.grants)))),
    },
    Capability {
        name: calls::ASSETS,
        handler: Handler::Instance(|i, args, _| match &i.grants.assets {
            Some(assets) => crate::assets::binding::call(assets, args),
            None => crate::assets::binding::call(&Default::default(), args),
        }),
    },
    Capability {
        name: calls::KV,
        handler: Handler::Instance(|i, args, data| {
            i.subrequests.binding_called();
            i.grants.bindings.kv(&mut i.subrequests, args, data)
        }),
    },
    Capability {
        name: calls::R2,
        handler: Handler::Instance(|i, args, data| {
            i.subrequests.binding_called();
            i.grants.bindings.r2(&mut i.subrequests, args, data)
        }),
    },
    Capability {
        name: calls::SERVICE,
        handler: Handler::Instance(|i, args, data| {
            i.subrequests.binding_called();
            let grant = &i.grants.fetch;
            i.grants
                .bindings
                .service(&mut i.subrequests, grant, args, data)
        }),
    },
    Capability {
        name: calls::D1,
        handler: Handler::Instance(|i, args, _| {
            i.subrequests.binding_called();
            i.grants.bindings.d1(&mut i.subrequests, args)
        }),
    },
    Capability {
        name: calls::OBJECT,
        handler: Handler::Instance(|i, args, data| {
            let reach = crate::bindings::objects::Reach {
                bindings: &i.grants.bindings,
                object: i.object.as_mut(),
                subrequests: &mut i.subrequests,
                grant: &i.grants.fetch,
                clients: &mut i.clients,
            };
            let (reply, renewal) = crate::bindings::objects::call(reach, args, data)?;
            if let Some(renewal) = renewal {
                i.renew(renewal);
            }
            Ok(reply)
        }),
    },
    Capability {
        name: calls::CACHE,
        handler: Handler::Instance(|i, args, data| match &i.grants.cache {
            Some(api) => api.call(&i.grants.tenant, args, data),
            None => Err(format!(
                "{}: there is no cache here (`ssr render` keeps none); the Cache API works under `ssr serve`",
                calls::CACHE
            )),
        }),
    },
    Capability {
        name: calls::RESPONSE_HEAD,
        handler: Handler::Instance(|i, args, _| match i.body.as_mut() {
            None => Ok(json("false")),
            Some(sink) => {
                let name = calls::RESPONSE_HEAD;
                let head: contract::Response = parse(name, args)?;
                let upgrade = head.status == 101;
                if upgrade && i.socket.is_none() {
                    return Err(websocket::not_asked(name));
                }
                let head = stored_as_bound(head, i.subrequests.bound());
                sink.head(head).map_err(|e| format!("{name}: {e}"))?;
                if upgrade && let Some(socket) = i.socket.as_mut() {
                    let renewal = socket.upgrade();
                    i.renew(renewal);
                }
                Ok(json("true"))
            }
        }),
    },
    Capability {
        name: calls::RESPONSE_WRITE,
        handler: Handler::Instance(|i, args, data| {
            let sink = i
                .body
                .as_mut()
                .ok_or_else(|| not_streamed(calls::RESPONSE_WRITE))?;
            match parse::<Option<&str>>(calls::RESPONSE_WRITE, args)? {
                None if sink.write(data)? => Ok(json("true")),
                None => Ok(Reply::default()),
                Some("drained") => {
                    let caught_up = sink.caught_up();
                    i.subrequests.answer(async move {
                        caught_up.await;
                        Ok(("{}".into(), Vec::new()))
                    })
                }
                Some(other) => Err(format!(
                    "{}: `{other}` is not \"drained\"",
                    calls::RESPONSE_WRITE
                )),
            }
        }),
    },
    Capability {
        name: calls::RESPONSE_END,
        handler: Handler::Instance(|i, args, _| {
            let sink = i
                .body
                .take()
                .ok_or_else(|| not_streamed(calls::RESPONSE_END))?;
            sink.end(parse(calls::RESPONSE_END, args)?, i.subrequests.bound())?;
            Ok(Reply::default())
        }),
    },
    Capability {
        name: calls::WAIT_UNTIL,
        handler: Handler::Instance(|i, args, _| {
            let done: WaitedFor = parse(calls::WAIT_UNTIL, args)?;
            let outcome = if done.failed.is_some() {
                "failed"
            } else {
                "ok"
            };
            metrics::counter!("ssr_wait_until_total", "tenant" => i.grants.tenant.to_string(), "outcome" => outcome)
                .increment(1);
            // Tenant text: through the console's escaping, cut and
            // budget, as any line of the tenant's.
            if let Some(message) = done.failed {
                let said = format!("ctx.waitUntil() work failed: {message}");
                i.console.write(LogLevel::Warn, &i.grants.redact(&said));
            }
            Ok(Reply::default())
        }),
    },
];

/// The row named `name`.
pub fn capability(name: &str) -> Option<&'static Capability> {
    CAPABILITIES.iter().find(|c| c.name == name)
}

/// Answers a capability where there is no instance: at build time, where
/// `build/preinit.rs` calls this for the module's top level (the pure
/// tiers, whole calls only).
pub fn at_build(name: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
    match capability(name).map(|c| &c.handler) {
        Some(Handler::Pure(f) | Handler::PureWhole { whole: f, .. }) => f(args, data),
        _ => Err(format!(
            "{name}: not available while the module's top level runs at build time"
        )),
    }
}

/// The capabilities a V8 worker process answers itself, needing nothing
/// of the server nor of the render's state (`v8/process/worker.rs`):
/// `None` for the others.
pub fn answered_alone(name: &str, args: &str, data: &[u8]) -> Option<Result<Reply, String>> {
    match capability(name).map(|c| &c.handler) {
        Some(Handler::Pure(f) | Handler::Alone(f)) => Some(f(args, data)),
        _ => None,
    }
}

/// `env`'s reply: the vars and secrets, and what the app's config asked
/// for that the host lacks.
fn env(grants: &Grants) -> String {
    let app = grants.assets.as_deref().map(|a| (&a.app, a.is_empty()));
    serde_json::json!({
        "vars": grants.env,
        // The binding exists where there are assets to fetch.
        "assets": app.and_then(|(app, empty)| app.assets_binding.as_ref().filter(|_| !empty)),
        "missing": app.map(|(app, _)| &app.missing),
        // Its KV namespaces, D1 databases, R2 buckets and services, by
        // name in `env` (`calls::KV`, `calls::D1`, `calls::R2`,
        // `calls::SERVICE`).
        "kv": grants.bindings.kv_names().collect::<Vec<_>>(),
        "d1": grants.bindings.d1_names().collect::<Vec<_>>(),
        "r2": grants.bindings.r2_names().collect::<Vec<_>>(),
        "services": grants.bindings.service_names().collect::<Vec<_>>(),
        // Its Durable Object namespaces (`calls::OBJECT`).
        "objects": grants.bindings.object_names().collect::<Vec<_>>(),
        // Those to the app itself, to the export each names.
        "own": grants.bindings.own_services(),
        // Where `node:dns` asks (through the tenant's own `fetch`).
        "dns": fetch::dns_over_https(),
    })
    .to_string()
}

/// `response` as the page cache may keep it: a render that called a
/// binding (`bound`) depends on state its request does not name, so the
/// host's default TTL does not apply to it; a TTL of its own does
/// (`docs/cache.md`).
pub fn stored_as_bound(mut response: contract::Response, bound: bool) -> contract::Response {
    if bound && response.cache == contract::CachePolicy::HostDefault {
        response.cache = contract::CachePolicy::NoStore;
    }
    response
}

fn not_streamed(name: &str) -> String {
    format!("{name}: this render's body is not streamed; return it whole")
}

/// One promise given to `ctx.waitUntil()` settled (`calls::WAIT_UNTIL`).
#[derive(serde::Deserialize)]
struct WaitedFor {
    /// Why it rejected; none when it fulfilled.
    failed: Option<String>,
}

fn json(value: &str) -> Reply {
    Reply {
        value: value.into(),
        data: Vec::new(),
    }
}

fn parse<'a, T: serde::Deserialize<'a>>(name: &str, args: &'a str) -> Result<T, String> {
    serde_json::from_str(args).map_err(|e| format!("{name}: bad arguments {args:?}: {e}"))
}

/// `bytes` from the operating system's generator.
fn random(bytes: usize) -> Result<Reply, String> {
    if bytes > calls::RANDOM_MAX_BYTES {
        return Err(format!(
            "{}: {bytes} bytes asked, at most {} at once",
            calls::RANDOM,
            calls::RANDOM_MAX_BYTES
        ));
    }
    let mut data = vec![0; bytes];
    getrandom::fill(&mut data).map_err(|e| format!("{}: {e}", calls::RANDOM))?;
    Ok(Reply {
        value: String::new(),
        data,
    })
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use contract::RenderError;

    use super::*;

    fn call(imports: &mut Imports, name: &str, args: &str) -> Result<Reply, String> {
        imports.call_now(name, args, &[])
    }

    fn random_gives_the_bytes_asked_and_no_more_than_the_web_limit() {
        let mut imports = Imports::new(&Grants::new("t"));
        let reply = call(&mut imports, calls::RANDOM, "32").unwrap();
        assert_eq!((reply.value.as_str(), reply.data.len()), ("", 32));
        assert_ne!(
            reply.data,
            call(&mut imports, calls::RANDOM, "32").unwrap().data
        );
        let max = calls::RANDOM_MAX_BYTES;
        assert_eq!(
            call(&mut imports, calls::RANDOM, &max.to_string())
                .unwrap()
                .data
                .len(),
            max
        );
        let err = call(&mut imports, calls::RANDOM, &(max + 1).to_string()).unwrap_err();
        assert_eq!(err, "random: 65537 bytes asked, at most 65536 at once");
    }

    fn unknown_capabilities_and_bad_arguments_are_refused_by_name() {
        let mut imports = Imports::new(&Grants::new("t"));
        let err = call(&mut imports, "listen", "{}").unwrap_err();
        assert!(err.contains("no capability \"listen\""), "{err}");
        let err = call(&mut imports, calls::SOCKET, "{}").unwrap_err();
        assert!(err.starts_with("socket: bad arguments"), "{err}");
        let open = r#"{"op":"open","hostname":"10.0.0.1","port":5432,"tls":false}"#;
        let err = call(&mut imports, calls::SOCKET, open).unwrap_err();
        assert!(err.contains("--allow-fetch tcp://10.0.0.1:5432"), "{err}");
        let err = call(&mut imports, calls::RANDOM, "\"lots\"").unwrap_err();
        assert!(
            err.starts_with("random: bad arguments \"\\\"lots\\\"\""),
            "{err}"
        );
    }

    fn env_holds_vars_and_secrets_and_secrets_are_redacted() {
        let vars = BTreeMap::from([("API".to_string(), "http://x".to_string())]);
        let secrets = BTreeMap::from([
            ("TOKEN".to_string(), "s3cr3t-value".to_string()),
            ("SHORT".to_string(), "s3cr3t".to_string()),
        ]);
        let grants = Grants::with_env("t", &vars, &secrets, Reach::default());
        let mut imports = Imports::new(&grants);
        let env = call(&mut imports, calls::ENV, "null").unwrap().value;
        assert_eq!(
            env,
            r#"{"assets":null,"d1":[],"dns":"https://cloudflare-dns.com/dns-query","kv":[],"missing":null,"objects":[],"own":{},"r2":[],"services":[],"vars":{"API":"http://x","SHORT":"s3cr3t","TOKEN":"s3cr3t-value"}}"#
        );
        assert_eq!(
            grants.redact("a s3cr3t-value and a s3cr3t"),
            "a [secret TOKEN] and a [secret SHORT]"
        );
        assert!(!format!("{grants:?}").contains("s3cr3t"));
        let err = grants.redact_error(RenderError::new(
            contract::ErrorKind::Exception,
            "Error: s3cr3t",
        ));
        assert_eq!(err.message, "Error: [secret SHORT]");
    }

    fn a_secret_with_newlines_and_quotes_is_redacted_in_every_written_form() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIEv\"Q\\IBADANB\n-----END PRIVATE KEY-----\n";
        let secrets = BTreeMap::from([("KEY".to_string(), pem.to_string())]);
        let grants = Grants::with_env("t", &BTreeMap::new(), &secrets, Reach::default());
        let json = serde_json::to_string(pem).unwrap();
        let twice = serde_json::to_string(&json).unwrap();
        for text in [
            format!("key: {pem}"),
            format!("{{ key: {json} }}"),
            format!("Uncaught {json}"),
            format!("{{\"config\":{twice}}}"),
            format!("{pem:?}"),
            crate::logs::escape(pem).into_owned(),
        ] {
            let out = grants.redact(&text);
            assert!(out.contains("[secret KEY]"), "{text:?} -> {out:?}");
            assert!(!out.contains("MIIEv"), "{text:?} -> {out:?}");
        }
    }

    /// The prelude's files (`wit/prelude/NN_<api>.js`), name and text.
    fn prelude() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit/prelude");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    /// The quoted names after each of `calls` in `text` (`host('fetch'`).
    fn quoted_after(text: &str, calls: &[&str]) -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        for call in calls {
            for (at, _) in text.match_indices(call) {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &text[at + call.len()..];
                if let Some(end) = rest.find('\'') {
                    out.insert(rest[..end].to_string());
                }
            }
        }
        out
    }

    const CALLS: &[&str] = &["host('", "hostCall('", "namedCall('", "hostOp('"];
    const DEFINES: &[&str] = &["defineMissing('", "Object.defineProperty(g, '"];

    fn the_prelude_calls_every_capability_of_the_table_and_no_other() {
        let called: std::collections::BTreeSet<String> = prelude()
            .iter()
            .flat_map(|(_, text)| quoted_after(text, CALLS))
            .collect();
        let engine_only = CAPABILITIES
            .iter()
            .filter(|c| matches!(c.handler, Handler::Engine))
            .map(|c| c.name.to_string());
        let table: std::collections::BTreeSet<String> =
            CAPABILITIES.iter().map(|c| c.name.to_string()).collect();
        assert_eq!(table.len(), CAPABILITIES.len(), "a name is in two rows");
        assert_eq!(
            called
                .into_iter()
                .chain(engine_only)
                .collect::<std::collections::BTreeSet<_>>(),
            table
        );
    }

    fn every_prelude_file_opens_with_what_it_defines_calls_and_where_its_parts_are() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (name, text) in prelude() {
            let field = |key: &str| {
                text.lines()
                    .take_while(|l| l.starts_with("//!"))
                    .find_map(|l| l.strip_prefix(&format!("//! {key}: ")))
                    .unwrap_or_else(|| panic!("{name}: no `//! {key}:` line in its header"))
                    .to_string()
            };
            let listed = |key: &str| -> std::collections::BTreeSet<String> {
                let v = field(key);
                if v == "none" {
                    return Default::default();
                }
                v.split(", ").map(str::to_string).collect()
            };
            let body: String = text
                .lines()
                .skip_while(|l| l.starts_with("//!"))
                .collect::<Vec<_>>()
                .join("\n");
            let mut defines = quoted_after(&body, DEFINES);
            defines.remove("name"); // `defineMissing` itself
            assert_eq!(listed("Defines"), defines, "{name}: `Defines`");
            assert_eq!(
                listed("Host calls"),
                quoted_after(&body, CALLS),
                "{name}: `Host calls`"
            );
            for key in ["Rust", "Test plugin"] {
                for path in listed(key) {
                    assert!(
                        root.join(&path).exists(),
                        "{name}: `{key}` names {path}, which is not there"
                    );
                }
            }
            field("WPT");
        }
    }

    fn only_pure_capabilities_answer_at_build_time_or_in_a_worker_alone() {
        assert!(
            at_build(
                calls::URL,
                r#"{"op":"parse","input":"http://a/","base":null}"#,
                &[]
            )
            .is_ok()
        );
        for name in [calls::RANDOM, calls::ENV, calls::FETCH, calls::CACHE] {
            let err = at_build(name, "null", &[]).unwrap_err();
            assert!(
                err.contains("not available while the module's top level runs"),
                "{err}"
            );
        }
        assert!(answered_alone(calls::RANDOM, "4", &[]).is_some());
        assert!(answered_alone(calls::ENV, "null", &[]).is_none());
        assert!(answered_alone(calls::TEXT_DECODE, "{}", &[]).is_none());
    }

    /// `docs/architecture.md`'s table of tiers lists each capability in
    /// the row of its handler's tier, and no other.
    fn the_architecture_docs_list_each_capability_under_its_tier() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let rows: Vec<(String, String)> = doc
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l
                    .trim()
                    .strip_prefix('|')?
                    .split('|')
                    .map(str::trim)
                    .collect();
                (cells.len() == 4 && cells[2].starts_with('`'))
                    .then(|| (cells[0].to_string(), cells[2].to_string()))
            })
            .collect();
        for c in CAPABILITIES {
            let listed: Vec<&str> = rows
                .iter()
                .filter(|(_, names)| names.split(", ").any(|n| n == format!("`{}`", c.name)))
                .map(|(tier, _)| tier.as_str())
                .collect();
            assert_eq!(listed, [c.handler.tier()], "{}", c.name);
        }
        let listed: usize = rows
            .iter()
            .map(|(_, names)| names.split(", ").count())
            .sum();
        assert_eq!(
            listed,
            CAPABILITIES.len(),
            "the docs list a capability the table lacks"
        );
    }

    crate::unit_tests!(
        random_gives_the_bytes_asked_and_no_more_than_the_web_limit,
        unknown_capabilities_and_bad_arguments_are_refused_by_name,
        env_holds_vars_and_secrets_and_secrets_are_redacted,
        a_secret_with_newlines_and_quotes_is_redacted_in_every_written_form,
        the_prelude_calls_every_capability_of_the_table_and_no_other,
        every_prelude_file_opens_with_what_it_defines_calls_and_where_its_parts_are,
        only_pure_capabilities_answer_at_build_time_or_in_a_worker_alone,
        the_architecture_docs_list_each_capability_under_its_tier
    );
}
