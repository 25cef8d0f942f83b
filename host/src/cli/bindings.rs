//! `ssr kv`, `ssr d1` and `ssr r2`: a tenant's bindings' state from the
//! command line, through the admin API (`http/bindings.rs`), as `wrangler
//! kv`, `wrangler d1` and `wrangler r2` reach Cloudflare's; with the
//! operator's token or the tenant's own.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};

use super::client::{Client, ServerArgs, enc, finish};

#[derive(Debug, Args)]
pub struct KvArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[command(subcommand)]
    command: KvCommand,
}

#[derive(Debug, Subcommand)]
enum KvCommand {
    /// Keys of a tenant's KV namespace.
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
}

/// Where a key is: the tenant, and the binding its app names.
#[derive(Debug, Args)]
struct Namespace {
    /// The tenant's id.
    tenant: String,
    /// The KV binding, as the app's wrangler config names it (`env.NAME`).
    #[arg(long)]
    binding: String,
}

#[derive(Debug, Subcommand)]
enum KeyCommand {
    /// Print a key's value.
    Get {
        #[command(flatten)]
        ns: Namespace,
        key: String,
    },
    /// Write a key: VALUE, or the file at --path.
    Put {
        #[command(flatten)]
        ns: Namespace,
        key: String,
        value: Option<String>,
        /// Write this file's bytes instead of VALUE.
        #[arg(long, conflicts_with = "value")]
        path: Option<PathBuf>,
        /// Seconds until it expires (at least 60).
        #[arg(long)]
        ttl: Option<u64>,
    },
    /// List keys, as JSON (`list`'s answer: a page of up to 1,000).
    List {
        #[command(flatten)]
        ns: Namespace,
        #[arg(long)]
        prefix: Option<String>,
        /// Where the last page ended (its `cursor`).
        #[arg(long)]
        cursor: Option<String>,
    },
    /// Delete a key.
    Delete {
        #[command(flatten)]
        ns: Namespace,
        key: String,
    },
}

#[derive(Debug, Args)]
pub struct D1Args {
    #[command(flatten)]
    server: ServerArgs,
    #[command(subcommand)]
    command: D1Command,
}

/// Which database: the tenant, and the binding its app names.
#[derive(Debug, Args)]
struct Database {
    /// The tenant's id.
    tenant: String,
    /// The D1 binding, as the app's wrangler config names it (`env.NAME`).
    #[arg(long)]
    binding: String,
}

#[derive(Debug, Subcommand)]
enum D1Command {
    /// Run SQL on a tenant's database, its statements in one transaction;
    /// prints each statement's results as JSON.
    Execute {
        #[command(flatten)]
        db: Database,
        /// The SQL.
        #[arg(long, conflicts_with = "file", required_unless_present = "file")]
        command: Option<String>,
        /// A file of SQL.
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Print a tenant's database as SQL that makes it again (its schema,
    /// then its rows as INSERTs), or write it to --output.
    Export {
        #[command(flatten)]
        db: Database,
        /// Write it to this file.
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Migrations, as `wrangler d1 migrations` keeps them.
    Migrations {
        #[command(subcommand)]
        command: MigrationsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum MigrationsCommand {
    /// Apply the `.sql` files of --dir in name order, each once (recorded
    /// in the database's `d1_migrations` table), each in a transaction;
    /// stops at the first that fails.
    Apply {
        #[command(flatten)]
        db: Database,
        /// The migrations folder (the config's `migrations_dir`).
        #[arg(long, default_value = "migrations")]
        dir: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct R2Args {
    #[command(flatten)]
    server: ServerArgs,
    #[command(subcommand)]
    command: R2Command,
}

#[derive(Debug, Subcommand)]
enum R2Command {
    /// Objects of a tenant's R2 bucket.
    Object {
        #[command(subcommand)]
        command: ObjectCommand,
    },
}

/// Where an object is: the tenant, and the binding its app names.
#[derive(Debug, Args)]
struct Bucket {
    /// The tenant's id.
    tenant: String,
    /// The R2 binding, as the app's wrangler config names it (`env.NAME`).
    #[arg(long)]
    binding: String,
}

#[derive(Debug, Subcommand)]
enum ObjectCommand {
    /// Write an object's bytes to standard output, or to --file.
    Get {
        #[command(flatten)]
        bucket: Bucket,
        key: String,
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Store --file's bytes (standard input's without one) as an object, up
    /// to 100 MiB.
    Put {
        #[command(flatten)]
        bucket: Bucket,
        key: String,
        #[arg(long)]
        file: Option<PathBuf>,
        /// Its `httpMetadata.contentType`.
        #[arg(long)]
        content_type: Option<String>,
    },
    /// Delete an object.
    Delete {
        #[command(flatten)]
        bucket: Bucket,
        key: String,
    },
}

fn r2_path(bucket: &Bucket, key: &str) -> String {
    format!(
        "/_ssr/admin/tenants/{}/r2/{}/objects/{}",
        enc(&bucket.tenant),
        enc(&bucket.binding),
        enc(key)
    )
}

pub fn r2(args: R2Args) -> anyhow::Result<ExitCode> {
    let client = args.server.connect()?;
    let R2Command::Object { command } = &args.command;
    let response = match command {
        ObjectCommand::Get { bucket, key, file } => {
            let mut response = client.call("GET", &r2_path(bucket, key))?;
            if !response.status().is_success() {
                return finish(response);
            }
            let mut body = response.body_mut().as_reader();
            match file {
                Some(path) => {
                    let mut out = std::fs::File::create(path)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    std::io::copy(&mut body, &mut out)?;
                }
                None => {
                    std::io::copy(&mut body, &mut std::io::stdout().lock())?;
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        ObjectCommand::Put {
            bucket,
            key,
            file,
            content_type,
        } => {
            let bytes = match file {
                Some(p) => {
                    std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?
                }
                None => {
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
                    bytes
                }
            };
            let headers: Vec<(&str, &str)> = content_type
                .iter()
                .map(|t| ("content-type", t.as_str()))
                .collect();
            client.send_with("PUT", &r2_path(bucket, key), &headers, &bytes)
        }
        ObjectCommand::Delete { bucket, key } => client.call("DELETE", &r2_path(bucket, key)),
    };
    finish(response?)
}

fn kv_path(ns: &Namespace, rest: &str) -> String {
    format!(
        "/_ssr/admin/tenants/{}/kv/{}/{rest}",
        enc(&ns.tenant),
        enc(&ns.binding)
    )
}

fn d1_path(db: &Database, rest: &str) -> String {
    format!(
        "/_ssr/admin/tenants/{}/d1/{}/{rest}",
        enc(&db.tenant),
        enc(&db.binding)
    )
}

pub fn kv(args: KvArgs) -> anyhow::Result<ExitCode> {
    let client = args.server.connect()?;
    let KvCommand::Key { command } = &args.command;
    let response = match command {
        KeyCommand::Get { ns, key } => {
            client.call("GET", &kv_path(ns, &format!("values/{}", enc(key))))
        }
        KeyCommand::Put {
            ns,
            key,
            value,
            path,
            ttl,
        } => {
            let bytes = match (value, path) {
                (Some(v), None) => v.clone().into_bytes(),
                (None, Some(p)) => {
                    std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?
                }
                _ => bail!("give the value, or --path FILE"),
            };
            let q = ttl
                .map(|t| format!("?expiration_ttl={t}"))
                .unwrap_or_default();
            client.send(
                "PUT",
                &kv_path(ns, &format!("values/{}{q}", enc(key))),
                &bytes,
            )
        }
        KeyCommand::List { ns, prefix, cursor } => {
            let mut q = Vec::new();
            if let Some(p) = prefix {
                q.push(format!("prefix={}", enc(p)));
            }
            if let Some(c) = cursor {
                q.push(format!("cursor={}", enc(c)));
            }
            client.call("GET", &kv_path(ns, &format!("keys?{}", q.join("&"))))
        }
        KeyCommand::Delete { ns, key } => {
            client.call("DELETE", &kv_path(ns, &format!("values/{}", enc(key))))
        }
    };
    finish(response?)
}

pub fn d1(args: D1Args) -> anyhow::Result<ExitCode> {
    let client = args.server.connect()?;
    match &args.command {
        D1Command::Execute { db, command, file } => {
            let sql = match (command, file) {
                (Some(c), _) => c.clone(),
                (None, Some(f)) => std::fs::read_to_string(f)
                    .with_context(|| format!("cannot read {}", f.display()))?,
                (None, None) => bail!("give --command SQL or --file FILE"),
            };
            finish(client.send("POST", &d1_path(db, "execute"), sql.as_bytes())?)
        }
        D1Command::Export { db, output } => {
            let mut response = client.call("GET", &d1_path(db, "export"))?;
            let Some(file) = output else {
                return finish(response);
            };
            let status = response.status();
            let body = response.body_mut().read_to_string().unwrap_or_default();
            if !status.is_success() {
                eprintln!("error: the server answered {status}: {}", body.trim_end());
                return Ok(ExitCode::FAILURE);
            }
            std::fs::write(file, body)
                .with_context(|| format!("cannot write {}", file.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        D1Command::Migrations {
            command: MigrationsCommand::Apply { db, dir },
        } => apply(&client, db, dir),
    }
}

/// Applies D1 binding `binding`'s migrations in `dir` to `tenant`'s
/// database (`ssr deploy --migrate`).
pub(super) fn apply_migrations(
    client: &Client,
    tenant: &str,
    binding: &str,
    dir: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let db = Database {
        tenant: tenant.into(),
        binding: binding.into(),
    };
    apply(client, &db, dir)
}

/// Applies each migration of `dir` not yet applied, saying which ran.
fn apply(client: &Client, db: &Database, dir: &std::path::Path) -> anyhow::Result<ExitCode> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the migrations folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    if files.is_empty() {
        println!("no migrations in {}", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    for file in files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let sql = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let mut response = client.send(
            "POST",
            &d1_path(db, &format!("migrations/{}", enc(&name))),
            sql.as_bytes(),
        )?;
        let status = response.status();
        let body = response.body_mut().read_to_string().unwrap_or_default();
        if !status.is_success() {
            eprintln!(
                "error: {name} failed, and nothing of it was applied: {}",
                body.trim_end()
            );
            return Ok(ExitCode::FAILURE);
        }
        let applied = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["applied"].as_bool())
            .unwrap_or(false);
        println!(
            "{name}: {}",
            if applied {
                "applied"
            } else {
                "already applied"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
