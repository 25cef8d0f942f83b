//! What a renderer reaches in the host, the same for both engines: its
//! console (WIT `log`) and the host's capabilities (WIT `host.call`).
//!
//! A capability is one arm of [`Imports::call`], named in the contract
//! crate's `calls` (with the JSON form of its arguments and reply) and
//! wrapped for JavaScript in the prelude. The engines only carry the call:
//! Wasmtime through the WIT import, V8 through the shim's `__ssr_host`.
//! Adding a capability therefore touches that arm, `calls`, the prelude and
//! a test, and no binding.
//!
//! Lifetime: one [`Imports`] per instance (a Wasm store or a V8 isolate),
//! serving one tenant version, whose [`Grants`] it shares with the
//! version's other instances.
//!
//! Invariants:
//! - Default-deny: a name that is not an arm here is refused, and so is a
//!   call whose arguments do not parse, with a message naming the
//!   capability and what was wrong (the prelude throws it as a
//!   `TypeError`). A refusal never fails the render by itself.
//! - Only `fetch-wait` waits, and never past the render's deadline. The
//!   engine calls it, not the renderer's JavaScript: on Wasm the guest
//!   runtime, whose fiber suspends in the async import while its worker
//!   serves other renders; on V8 the render's future, between calls into
//!   the isolate. Every other call answers at once.
//! - A secret's value never leaves through the host's side: console lines
//!   and render errors pass [`Grants::redact`] before they are logged or
//!   shown, and [`Grants`] prints no value (`Debug`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use contract::{LogLevel, RenderError, Reply, calls};

use super::EngineError;
use super::console::Console;
use super::fetch::{FetchGrant, Subrequests};
use super::stream::Sink;
use crate::cache::CacheApi;

/// What a tenant version's renderer was given: its id, its `env` (vars
/// and secrets), and what it may fetch. Immutable: a change makes a new
/// tenant version.
#[derive(Default)]
pub struct Grants {
    pub tenant: Arc<str>,
    /// Vars and secrets by name: the handler's `env`.
    pub env: BTreeMap<String, String>,
    /// The origins it may fetch, and its per-render limits.
    pub fetch: FetchGrant,
    /// Where its Cache API calls go (`caches`); none under `ssr render`.
    pub cache: Option<CacheApi>,
    /// Its packed assets, for `env.ASSETS`; none under `ssr render`.
    pub assets: Option<Arc<crate::assets::Assets>>,
    /// Where its plugin's source map is, to map an error's stack.
    pub stack_map: Option<Arc<super::stack_map::StackMap>>,
    /// The secrets by name and value.
    secrets: Vec<(String, String)>,
    /// Every form a secret's value can take in text the host writes (see
    /// [`written_forms`]), with its name, longest first (redacted in that
    /// order, so a secret containing another is replaced whole).
    hidden: Vec<(String, String)>,
}

impl Grants {
    /// A renderer of `tenant` with an empty `env`, that may fetch nothing.
    pub fn new(tenant: &str) -> Arc<Grants> {
        Arc::new(Grants {
            tenant: tenant.into(),
            ..Grants::default()
        })
    }

    /// A renderer of `tenant` whose `env` holds `vars` and `secrets` (names
    /// are distinct: the registry refuses a secret named like a var), and
    /// that may fetch what `fetch` grants, and keep responses in `cache`.
    pub fn with_env(
        tenant: &str,
        vars: &BTreeMap<String, String>,
        secrets: &BTreeMap<String, String>,
        fetch: FetchGrant,
        cache: Option<CacheApi>,
        assets: Option<Arc<crate::assets::Assets>>,
        stack_map: Option<Arc<super::stack_map::StackMap>>,
    ) -> Arc<Grants> {
        // The app's config gives defaults; the tenant's registration wins.
        let mut env = assets
            .as_ref()
            .map(|a| a.app.vars.clone())
            .unwrap_or_default();
        env.extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        env.extend(secrets.iter().map(|(k, v)| (k.clone(), v.clone())));
        let mut hidden: Vec<(String, String)> = secrets
            .iter()
            .flat_map(|(k, v)| written_forms(v).into_iter().map(|f| (k.clone(), f)))
            .collect();
        hidden.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        Arc::new(Grants {
            tenant: tenant.into(),
            env,
            fetch,
            cache,
            assets,
            stack_map,
            secrets: secrets
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            hidden,
        })
    }

    /// The secrets' values, by name.
    pub fn secrets(&self) -> BTreeMap<String, String> {
        self.secrets.iter().cloned().collect()
    }

    /// `text` with every secret's value, in every form the host writes it
    /// ([`written_forms`]), written as `[secret NAME]`.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (name, value) in &self.hidden {
            if !value.is_empty() && out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), &format!("[secret {name}]")));
            }
        }
        out
    }

    /// A render's outcome with no secret in its error's message or stack.
    pub fn redact_error<T>(&self, out: Result<T, EngineError>) -> Result<T, EngineError> {
        match out {
            Err(EngineError::Js(e)) if !self.hidden.is_empty() => {
                Err(EngineError::Js(RenderError {
                    kind: e.kind,
                    message: self.redact(&e.message).into_owned(),
                    stack: e.stack.map(|s| self.redact(&s).into_owned()),
                }))
            }
            other => other,
        }
    }
}

/// Names only: a value may be a secret.
impl fmt::Debug for Grants {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grants")
            .field("tenant", &self.tenant)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("fetch", &self.fetch)
            .finish()
    }
}

/// One instance's way out to the host.
pub struct Imports {
    grants: Arc<Grants>,
    console: Console,
    subrequests: Subrequests,
    /// Where this render's body goes as it is made, when its client can
    /// take it so (`stream.rs`).
    body: Option<Sink>,
    /// `TextDecoder` streams open in this render (`text.rs`).
    decoders: super::text::Decoders,
    /// `CompressionStream`s and `DecompressionStream`s open in this render
    /// (`compress.rs`).
    coders: super::compress::Coders,
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
        }
    }

    /// What the instance was given.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// A new render starts, to end by `deadline`, its body streamed to
    /// `body` if given: per-render budgets are whole again, and what the
    /// last render left in flight is dropped.
    pub fn start_render(&mut self, deadline: Instant, body: Option<Sink>, req: &contract::Request) {
        self.console.start_render(req);
        self.subrequests.start_render(&self.grants.fetch, deadline);
        self.body = body;
    }

    /// The render ended: its body channel closes, and its requests end
    /// with it.
    pub fn end_render(&mut self) {
        self.body = None;
        self.decoders.clear();
        self.coders.clear();
        self.subrequests.end_render();
    }

    /// The render's outcome as the host passes it on: a secret's value
    /// redacted from an error, and the error told to the tenant's log
    /// followers (`logs.rs`).
    pub fn ended<T>(&self, out: Result<T, EngineError>) -> Result<T, EngineError> {
        let out = match (self.grants.redact_error(out), &self.grants.stack_map) {
            // Its stack in the site's own files (`stack_map.rs`).
            (Err(EngineError::Js(mut e)), Some(map)) => {
                e.stack = e.stack.map(|stack| map.apply(&stack));
                Err(EngineError::Js(e))
            }
            (out, _) => out,
        };
        if let Err(e) = &out {
            self.console.failed(e);
        }
        out
    }

    /// One `console.*` line.
    pub fn log(&self, level: LogLevel, message: &str) {
        self.console.write(level, &self.grants.redact(message));
    }

    /// Calls the capability `name` with `args` (JSON) and `data`. Only
    /// `fetch-wait` waits; every other call is [`Imports::call_now`].
    pub async fn call(&mut self, name: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
        if name == calls::FETCH_WAIT {
            return self.subrequests.wait(args, self.body.as_ref()).await;
        }
        self.call_now(name, args, data)
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
        if let Some(reply) = answered_alone(name, args, data) {
            return reply;
        }
        match name {
            calls::FETCH => self.subrequests.start(&self.grants.fetch, args, data),
            calls::FETCH_WAIT => Err(format!(
                "{name}: only the engine waits for requests; await the promise `fetch` returns"
            )),
            calls::FETCH_ABORT => {
                self.subrequests.abort(parse(name, args)?);
                Ok(Reply::default())
            }
            calls::INTL => pure(name, args, data),
            calls::TEXT_DECODE => self.decoders.call(args, data),
            calls::COMPRESS => self.coders.call(args, data),
            calls::ASSETS => match &self.grants.assets {
                Some(assets) => crate::assets::binding::call(assets, args),
                None => crate::assets::binding::call(&Default::default(), args),
            },
            calls::CACHE => match &self.grants.cache {
                Some(api) => api.call(&self.grants.tenant, args, data),
                None => Err(format!(
                    "{name}: there is no cache here (`ssr render` keeps none); the Cache API works under `ssr serve`"
                )),
            },
            calls::RESPONSE_HEAD => match self.body.as_mut() {
                None => Ok(json("false")),
                Some(sink) => {
                    sink.head(parse(name, args)?)
                        .map_err(|e| format!("{name}: {e}"))?;
                    Ok(json("true"))
                }
            },
            calls::RESPONSE_END => {
                let sink = self.body.take().ok_or_else(|| {
                    format!("{name}: this render's body is not streamed; return it whole")
                })?;
                sink.end(parse(name, args)?)?;
                Ok(Reply::default())
            }
            calls::WAIT_UNTIL => {
                let done: WaitedFor = parse(name, args)?;
                let outcome = if done.failed.is_some() {
                    "failed"
                } else {
                    "ok"
                };
                metrics::counter!("ssr_wait_until_total", "tenant" => self.grants.tenant.to_string(), "outcome" => outcome)
                    .increment(1);
                // Tenant text: through the console's escaping, cut and
                // budget, as any line of the tenant's.
                if let Some(message) = done.failed {
                    let said = format!("ctx.waitUntil() work failed: {message}");
                    self.console
                        .write(contract::LogLevel::Warn, &self.grants.redact(&said));
                }
                Ok(Reply::default())
            }
            calls::RESPONSE_WRITE => {
                let sink = self.body.as_mut().ok_or_else(|| {
                    format!("{name}: this render's body is not streamed; return it whole")
                })?;
                sink.write(data)?;
                Ok(Reply::default())
            }
            calls::ENV => {
                let app = self
                    .grants
                    .assets
                    .as_deref()
                    .map(|a| (&a.app, a.is_empty()));
                let reply = serde_json::json!({
                    "vars": self.grants.env,
                    // The binding exists where there are assets to fetch.
                    "assets": app.and_then(|(app, empty)| app.assets_binding.as_ref().filter(|_| !empty)),
                    "missing": app.map(|(app, _)| &app.missing),
                });
                Ok(Reply {
                    value: reply.to_string(),
                    data: Vec::new(),
                })
            }
            _ => Err(format!(
                "the host has no capability \"{name}\" (this plugin may need a newer host)"
            )),
        }
    }
}

/// The forms a secret's value takes in text that reaches the log or an
/// error page: as it is; escaped as JSON (`JSON.stringify`, and the
/// console's formatting of a string inside an object or a thrown
/// non-`Error`), once and twice (a JSON document logged as a string); as
/// Rust's `Debug` escapes it; and as the log's own escaping
/// (`console::escape`) writes it. A secret with a newline or a quote (a
/// PEM key, a JSON credential) differs in each.
fn written_forms(value: &str) -> Vec<String> {
    let json = |s: &str| {
        let quoted = serde_json::to_string(s).expect("a string serializes");
        quoted[1..quoted.len() - 1].to_string()
    };
    let once = json(value);
    let forms = [
        value.to_string(),
        json(&once),
        value.escape_debug().to_string(),
        super::console::escape(value).into_owned(),
        super::console::escape(&once).into_owned(),
        once,
    ];
    let mut out: Vec<String> = forms.into_iter().filter(|f| !f.is_empty()).collect();
    out.sort();
    out.dedup();
    out
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

/// Answers a pure capability (`calls::CRYPTO`, `calls::URL`,
/// `calls::INTL`, and
/// `calls::TEXT_DECODE` but for streams): the same in an instance as at
/// build time, where `build/preinit.rs` calls this for the module's top
/// level.
pub fn pure(name: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
    match name {
        calls::CRYPTO => super::crypto::call(args, data),
        calls::URL => super::url::call(args),
        calls::INTL => super::intl::call(args),
        calls::TEXT_DECODE => super::text::pure(args, data),
        _ => Err(format!(
            "{name}: not available while the module's top level runs at build time"
        )),
    }
}

/// The capabilities that need nothing of the server nor of the render's
/// state: random bytes, Web Crypto and URL parsing. A V8 worker process
/// answers them itself (`v8/process/worker.rs`). `None` for the others.
pub fn answered_alone(name: &str, args: &str, data: &[u8]) -> Option<Result<Reply, String>> {
    match name {
        calls::RANDOM => Some(parse(name, args).and_then(random)),
        calls::CRYPTO | calls::URL => Some(pure(name, args, data)),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn call(imports: &mut Imports, name: &str, args: &str) -> Result<Reply, String> {
        imports.call_now(name, args, &[])
    }

    #[test]
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

    #[test]
    fn unknown_capabilities_and_bad_arguments_are_refused_by_name() {
        let mut imports = Imports::new(&Grants::new("t"));
        let err = call(&mut imports, "socket", "{}").unwrap_err();
        assert!(err.contains("no capability \"socket\""), "{err}");
        let err = call(&mut imports, calls::RANDOM, "\"lots\"").unwrap_err();
        assert!(
            err.starts_with("random: bad arguments \"\\\"lots\\\"\""),
            "{err}"
        );
    }

    #[test]
    fn env_holds_vars_and_secrets_and_secrets_are_redacted() {
        let vars = BTreeMap::from([("API".to_string(), "http://x".to_string())]);
        let secrets = BTreeMap::from([
            ("TOKEN".to_string(), "s3cr3t-value".to_string()),
            ("SHORT".to_string(), "s3cr3t".to_string()),
        ]);
        let grants = Grants::with_env(
            "t",
            &vars,
            &secrets,
            FetchGrant::default(),
            None,
            None,
            None,
        );
        let mut imports = Imports::new(&grants);
        let env = call(&mut imports, calls::ENV, "null").unwrap().value;
        assert_eq!(
            env,
            r#"{"assets":null,"missing":null,"vars":{"API":"http://x","SHORT":"s3cr3t","TOKEN":"s3cr3t-value"}}"#
        );
        assert_eq!(
            grants.redact("a s3cr3t-value and a s3cr3t"),
            "a [secret TOKEN] and a [secret SHORT]"
        );
        assert!(!format!("{grants:?}").contains("s3cr3t"));
        let err = grants.redact_error::<()>(Err(EngineError::Js(RenderError::new(
            contract::ErrorKind::Exception,
            "Error: s3cr3t",
        ))));
        assert!(matches!(err, Err(EngineError::Js(e)) if e.message == "Error: [secret SHORT]"));
    }

    #[test]
    fn a_secret_with_newlines_and_quotes_is_redacted_in_every_written_form() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIEv\"Q\\IBADANB\n-----END PRIVATE KEY-----\n";
        let secrets = BTreeMap::from([("KEY".to_string(), pem.to_string())]);
        let grants = Grants::with_env(
            "t",
            &BTreeMap::new(),
            &secrets,
            FetchGrant::default(),
            None,
            None,
            None,
        );
        let json = serde_json::to_string(pem).unwrap();
        let twice = serde_json::to_string(&json).unwrap();
        for text in [
            format!("key: {pem}"),
            format!("{{ key: {json} }}"),
            format!("Uncaught {json}"),
            format!("{{\"config\":{twice}}}"),
            format!("{pem:?}"),
            super::super::console::escape(pem).into_owned(),
        ] {
            let out = grants.redact(&text);
            assert!(out.contains("[secret KEY]"), "{text:?} -> {out:?}");
            assert!(!out.contains("MIIEv"), "{text:?} -> {out:?}");
        }
    }
}
