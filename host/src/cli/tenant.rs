//! `ssr tenant add|ls|rm|purge|trigger|var|secret`: the admin API from the command
//! line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use super::client::{ServerArgs, enc, finish};
use clap::{Args, Subcommand};
use ssr::web::fetch::Origin;

#[derive(Debug, Args)]
pub struct TenantArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[command(subcommand)]
    command: TenantCommand,
}

#[derive(Debug, Subcommand)]
enum TenantCommand {
    /// Register a tenant, or replace its plugin (a hot swap).
    Add {
        /// Tenant id: 1-63 characters of a-z, 0-9 and `-`.
        id: String,
        /// The plugin, as written by `ssr build`.
        plugin: PathBuf,
        /// A hostname routed to this tenant; repeatable.
        #[arg(long = "host", value_name = "NAME")]
        hosts: Vec<String>,
        /// Isolation mode: reuse or fresh [default: the server's].
        #[arg(long)]
        mode: Option<String>,
        /// Engine: wasm (QuickJS in Wasmtime) or v8 [default: wasm].
        #[arg(long)]
        engine: Option<String>,
        /// A limit for this tenant, e.g. `render_deadline_ms=500`; one of
        /// render_deadline_ms, memory_limit_mib, max_response_kib,
        /// max_concurrency, max_request_kib, max_upload_mib, max_subrequests,
        /// max_fetch_kib;
        /// repeatable [default: the server's].
        #[arg(long = "limit", value_name = "NAME=N")]
        limits: Vec<String>,
        /// A var of the handler's `env`, e.g. `API=http://127.0.0.1:9000`;
        /// repeatable. Shown by `ls`; for a value to hide, use `secret put`.
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// An origin its renderer may `fetch`, like `http://127.0.0.1:9000`
        /// (scheme, host and port); repeatable. Without one, every fetch is
        /// refused.
        #[arg(long = "allow-fetch", value_name = "ORIGIN")]
        allow_fetch: Vec<Origin>,
        /// Another tenant its service bindings may call (its id);
        /// repeatable. A binding to itself needs none.
        #[arg(long = "allow-service", value_name = "TENANT")]
        allow_service: Vec<String>,
    },
    /// Set or remove one var of a tenant's `env` (no new plugin needed; the
    /// tenant's cache is purged).
    Var {
        #[command(subcommand)]
        command: VarCommand,
    },
    /// Write-only values of a tenant's `env`: API tokens, keys.
    Secret {
        #[command(subcommand)]
        command: SecretCommand,
    },
    /// List tenants.
    Ls,
    /// Follow tenant ID's console output and render errors as they happen,
    /// on every replica (until interrupted).
    Logs {
        id: String,
        /// Keep following (the only way: the server keeps no history).
        #[arg(short, long)]
        follow: bool,
    },
    /// Remove a tenant.
    Rm { id: String },
    /// What a tenant binds (KV, R2, D1, services), what each holds, and
    /// its quotas.
    Bindings { id: String },
    /// Empty a tenant's cache (paths under --prefix only, if given).
    Purge {
        id: String,
        #[arg(long)]
        prefix: Option<String>,
    },
    /// Run a tenant's `scheduled` handler now, as a cron trigger would
    /// (`wrangler dev --test-scheduled`): its answer says how it went.
    Trigger {
        id: String,
        /// The cron expression the handler sees (`controller.cron`); the
        /// first of its app's triggers when not given.
        #[arg(long)]
        cron: Option<String>,
        /// The time it sees (`controller.scheduledTime`), in milliseconds
        /// since the epoch; now when not given.
        #[arg(long)]
        time: Option<u64>,
    },
}

#[derive(Debug, Subcommand)]
enum VarCommand {
    /// Set var NAME of tenant ID to VALUE.
    Set {
        id: String,
        name: String,
        value: String,
    },
    /// Remove var NAME of tenant ID.
    Rm { id: String, name: String },
}

#[derive(Debug, Subcommand)]
enum SecretCommand {
    /// Set secret NAME of tenant ID to what standard input holds (one
    /// trailing newline is dropped), so the value is in no shell history.
    Put { id: String, name: String },
    /// The names of tenant ID's secrets (never their values).
    Ls { id: String },
    /// Remove secret NAME of tenant ID.
    Rm { id: String, name: String },
}

pub fn run(args: TenantArgs) -> anyhow::Result<ExitCode> {
    let client = args.server.connect()?;
    let response = match &args.command {
        TenantCommand::Add {
            id,
            plugin,
            hosts,
            mode,
            engine,
            limits,
            vars,
            allow_fetch,
            allow_service,
        } => {
            let bytes = std::fs::read(plugin)
                .with_context(|| format!("cannot read the plugin {}", plugin.display()))?;
            let mut query: Vec<String> = hosts.iter().map(|h| format!("host={}", enc(h))).collect();
            if let Some(m) = mode {
                query.push(format!("mode={}", enc(m)));
            }
            if let Some(e) = engine {
                query.push(format!("engine={}", enc(e)));
            }
            for l in limits {
                let Some((name, value)) = l.split_once('=') else {
                    bail!("limit `{l}` has no `=`; write it as `render_deadline_ms=500`");
                };
                query.push(format!("{}={}", enc(name), enc(value)));
            }
            for v in vars {
                query.push(format!("var={}", enc(v)));
            }
            for o in allow_fetch {
                query.push(format!("allow_fetch={}", enc(&o.to_string())));
            }
            for t in allow_service {
                query.push(format!("allow_service={}", enc(t)));
            }
            client.send(
                "PUT",
                &format!("/_ssr/admin/tenants/{}?{}", enc(id), query.join("&")),
                &bytes,
            )
        }
        TenantCommand::Ls => client.call("GET", "/_ssr/admin/tenants"),
        TenantCommand::Rm { id } => {
            client.call("DELETE", &format!("/_ssr/admin/tenants/{}", enc(id)))
        }
        TenantCommand::Bindings { id } => {
            client.call("GET", &format!("/_ssr/admin/tenants/{}/bindings", enc(id)))
        }
        TenantCommand::Purge { id, prefix } => {
            let q = prefix
                .as_deref()
                .map(|p| format!("?prefix={}", enc(p)))
                .unwrap_or_default();
            client.call("POST", &format!("/_ssr/admin/tenants/{}/purge{q}", enc(id)))
        }
        TenantCommand::Trigger { id, cron, time } => {
            let mut q = Vec::new();
            if let Some(cron) = cron {
                q.push(format!("cron={}", enc(cron)));
            }
            if let Some(time) = time {
                q.push(format!("time={time}"));
            }
            let q = if q.is_empty() {
                String::new()
            } else {
                format!("?{}", q.join("&"))
            };
            client.call(
                "POST",
                &format!("/_ssr/admin/tenants/{}/scheduled{q}", enc(id)),
            )
        }
        TenantCommand::Var { command } => {
            let path = |id: &str, name: &str| {
                format!("/_ssr/admin/tenants/{}/vars/{}", enc(id), enc(name))
            };
            match command {
                VarCommand::Set { id, name, value } => {
                    client.send("PUT", &path(id, name), value.as_bytes())
                }
                VarCommand::Rm { id, name } => client.call("DELETE", &path(id, name)),
            }
        }
        TenantCommand::Secret { command } => {
            let path = |id: &str, name: &str| {
                format!("/_ssr/admin/tenants/{}/secrets/{}", enc(id), enc(name))
            };
            match command {
                SecretCommand::Put { id, name } => {
                    let mut value = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut value)
                        .context("cannot read the secret from standard input")?;
                    let value = value.strip_suffix('\n').unwrap_or(&value);
                    let value = value.strip_suffix('\r').unwrap_or(value);
                    client.send("PUT", &path(id, name), value.as_bytes())
                }
                SecretCommand::Ls { id } => {
                    client.call("GET", &format!("/_ssr/admin/tenants/{}/secrets", enc(id)))
                }
                SecretCommand::Rm { id, name } => client.call("DELETE", &path(id, name)),
            }
        }
        TenantCommand::Logs { id, .. } => return super::logs::follow(&client, id),
    };
    finish(response?)
}
