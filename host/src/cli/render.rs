//! `ssr render <plugin.wasm> <url>`: the developer's debugging loop. Renders
//! one request through Wasmtime (or V8, `--engine v8`); the body goes to
//! stdout, a render error's JavaScript message and stack to stderr with a
//! non-zero exit. A service binding to the app itself renders on a fresh
//! instance of the same plugin, as `ssr serve` would ([`Itself`]); one to
//! another tenant needs a server.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use ssr::config::DEFAULT_MEMORY_LIMIT;
use ssr::engine::{
    DEFAULT_DEADLINE, EngineError, EngineKind, EngineOptions, Engines, Grants, Instance,
    InstanceCaps,
};
use ssr::tenant::env::{self, Env};
use ssr::web::fetch::{FetchGrant, Origin};

fn parse_var(text: &str) -> Result<(String, String), String> {
    env::parse_var(text).map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The plugin, as written by `ssr build`.
    plugin: PathBuf,
    /// Path and query to render, e.g. `/blog/1?draft=1`.
    url: String,
    /// A request header, `name: value`; repeatable.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Print the status line and headers before the body.
    #[arg(short = 'i', long)]
    include: bool,
    /// The request method.
    #[arg(short = 'X', long, default_value = "GET")]
    method: String,
    /// The request body (sent with any method but GET and HEAD; without
    /// `-X`, the method becomes POST, as with curl).
    #[arg(short = 'd', long, value_name = "BODY")]
    data: Option<String>,
    /// An origin the renderer may `fetch`, like `http://127.0.0.1:9000`
    /// (scheme, host and port); repeatable. Without one, every fetch is
    /// refused.
    #[arg(long = "allow-fetch", value_name = "ORIGIN")]
    allow_fetch: Vec<Origin>,
    /// Requests (and `connect()` sockets) the render may make, as `ssr
    /// serve --max-subrequests` allows a tenant's.
    #[arg(long, value_name = "N", default_value_t = ssr::config::DEFAULT_MAX_SUBREQUESTS)]
    max_subrequests: usize,
    /// Where `node:dns` sends the renderer's queries (DNS over HTTPS,
    /// JSON), as `ssr serve --dns-over-https`; grant its origin too.
    #[arg(long, value_name = "URL", default_value = ssr::config::DEFAULT_DNS_OVER_HTTPS)]
    dns_over_https: String,
    /// A var of the handler's `env`, `NAME=VALUE`; repeatable.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    vars: Vec<(String, String)>,
    /// The tenant id the renderer sees.
    #[arg(long, default_value = "local")]
    tenant: String,
    /// Render this many times on the same (reused) instance first, and report
    /// render times and the instance's memory on stderr.
    #[arg(long, value_name = "N", default_value_t = 0)]
    repeat: u32,
    /// The engine: `wasm` (QuickJS in Wasmtime) or `v8`.
    #[arg(long, default_value = "wasm")]
    engine: EngineKind,
    /// Render deadline, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_DEADLINE.as_millis() as u64)]
    timeout_ms: u64,
    /// Cap on the instance's memory (Wasm linear memory, or the V8 heap),
    /// in MiB, as `ssr serve --memory-limit-mib` caps a tenant's.
    #[arg(long, value_name = "MIB", default_value_t = (DEFAULT_MEMORY_LIMIT >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(16..))]
    memory_limit_mib: u64,
    #[command(flatten)]
    code_cache: super::CodeCache,
}

pub fn run(args: RenderArgs) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(&args.plugin)
        .with_context(|| format!("cannot read the plugin {}", args.plugin.display()))?;
    let url = if args.url.starts_with('/') {
        args.url.clone()
    } else {
        bail!(
            "the URL must be a path starting with `/`, like `/blog/1?draft=1` (got `{}`)",
            args.url
        );
    };
    let mut req = contract::Request::get(&args.tenant, &url);
    req.method = args.method.to_ascii_uppercase();
    if let Some(data) = &args.data {
        if req.method == "GET" {
            req.method = "POST".into();
        }
        if req.method != "HEAD" {
            req.body = data.clone().into_bytes();
        }
    }
    for h in &args.headers {
        let Some((name, value)) = h.split_once(':') else {
            bail!("header `{h}` has no `:`; write it as `name: value`");
        };
        req.headers
            .push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    if let Some((_, host)) = req.headers.iter().find(|(n, _)| n == "host") {
        req.href = format!("http://{host}{url}");
    }

    let mut options = EngineOptions::default();
    options.wasm.code_cache = args.code_cache.dir.clone();
    let engines = Engines::new(options)?;
    let plugin = engines
        .get(args.engine)?
        .load_plugin(
            &bytes,
            InstanceCaps {
                memory: (args.memory_limit_mib as usize) << 20,
            },
        )
        .with_context(|| format!("cannot load {}", args.plugin.display()))?;
    let vars = args.vars.iter().cloned().collect();
    env::check(&vars, &Env::new())?;
    ssr::config::check_dns_over_https(&args.dns_over_https).map_err(anyhow::Error::msg)?;
    ssr::web::fetch::set_dns_over_https(&args.dns_over_https);
    let fetch = FetchGrant {
        allowed: args.allow_fetch.clone(),
        max_subrequests: args.max_subrequests,
        ..FetchGrant::default()
    };
    // Its assets and app config: `env.ASSETS` and the config's vars.
    let assets = ssr::assets::Assets::from_plugin(&bytes, ssr::assets::Verify::Whole)
        .with_context(|| format!("cannot read the assets of {}", args.plugin.display()))?;
    // Its bindings, in memory: a render starts from empty namespaces and
    // databases.
    let stores = ssr::bindings::Stores::embedded(None, Default::default(), None)
        .map_err(anyhow::Error::msg)?;
    let quotas = ssr::bindings::Quotas::default();
    let bindings = ssr::bindings::Bindings::new(&args.tenant, &assets.app, &stores, quotas);
    let grants = Grants::with_env(
        &args.tenant,
        &vars,
        &Env::new(),
        ssr::web::Reach {
            fetch,
            cache: None,
            assets: Some(std::sync::Arc::new(assets)),
            stack_map: ssr::stack_map::source_map(&bytes, args.engine)
                .map(ssr::stack_map::StackMap::in_memory),
            bindings,
        },
    );
    stores.dispatch.set(Arc::new(Itself {
        plugin: plugin.clone(),
        grants: grants.clone(),
    }));
    let mut instance = plugin.instantiate(&grants)?;
    let deadline = Duration::from_millis(args.timeout_ms);
    if args.repeat > 0 {
        repeat(&mut *instance, &req, deadline, args.repeat)?;
    }
    match instance.render_now(&req, deadline) {
        Ok(resp) => {
            let mut out = std::io::stdout().lock();
            if args.include {
                writeln!(out, "HTTP/1.1 {}", resp.status)?;
                for (k, v) in &resp.headers {
                    writeln!(out, "{k}: {v}")?;
                }
                writeln!(out)?;
            }
            out.write_all(&resp.body)?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Err(EngineError::Js(contract::RenderError {
            kind,
            message,
            stack,
        })) => {
            eprintln!("render error ({kind}): {message}");
            if let Some(stack) = stack {
                eprintln!("{}", stack.trim_end());
            }
            Ok(ExitCode::FAILURE)
        }
        Err(e) => Err(e.into()),
    }
}

/// Renders a service binding's request to the app itself on a new
/// instance of its plugin, with the same grants, on a thread that may
/// block: the caller's instance waits meanwhile.
struct Itself {
    plugin: Arc<dyn ssr::engine::Plugin>,
    grants: Arc<Grants>,
}

impl ssr::bindings::service::Dispatch for Itself {
    fn render(
        &self,
        request: contract::Request,
        deadline: Instant,
    ) -> ssr::bindings::service::Rendering {
        let (plugin, grants) = (self.plugin.clone(), self.grants.clone());
        Box::pin(async move {
            if *request.tenant != *grants.tenant {
                return Err(format!(
                    "`ssr render` renders one app: a service binding to tenant `{}` needs `ssr serve`",
                    request.tenant
                ));
            }
            let rendered = tokio::task::spawn_blocking(move || {
                let mut instance = plugin.instantiate(&grants).map_err(|e| e.to_string())?;
                let left = deadline.saturating_duration_since(Instant::now());
                instance
                    .render_now(&request, left)
                    .map_err(|e| e.to_string())
            });
            rendered.await.map_err(|e| e.to_string())?
        })
    }
}

/// `--repeat`: render `n` times on one instance; report the median, mean
/// and p99 render time and the instance's memory before and after.
fn repeat(
    instance: &mut dyn Instance,
    req: &contract::Request,
    deadline: Duration,
    n: u32,
) -> anyhow::Result<()> {
    let before = instance.memory_bytes();
    let mut times = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t = std::time::Instant::now();
        instance.render_now(req, deadline)?;
        times.push(t.elapsed());
    }
    let mean = times.iter().sum::<Duration>() / n.max(1);
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    eprintln!(
        "{n} renders on one instance: median {:.2?}, mean {:.2?}, p99 {:.2?}; memory {:.1} MiB before, {:.1} MiB after",
        at(0.5),
        mean,
        at(0.99),
        before as f64 / (1 << 20) as f64,
        instance.memory_bytes() as f64 / (1 << 20) as f64,
    );
    Ok(())
}
