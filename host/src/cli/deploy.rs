//! `ssr deploy [DIR]`: builds the site in DIR as `ssr build` would, from its
//! `ssr.toml` and Workers config (`ssr::site`), and registers it on the
//! server: plugin, hostnames, vars, fetch grants and limits in one request.
//! `--dry-run` shows what would change and changes nothing; `--migrate`
//! then applies each D1 binding's migrations, as `ssr d1 migrations apply`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::Value;

use super::build::Steps;
use super::client::{ServerArgs, enc, finish, query};

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// The site's directory (with its ssr.toml and/or Workers config).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Show what would change on the server, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Once deployed, apply each D1 binding's migrations (its
    /// `migrations_dir`, else `migrations/`) not yet applied.
    #[arg(long)]
    migrate: bool,
    /// Print no build progress.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    code_cache: super::CodeCache,
}

pub fn run(args: DeployArgs) -> anyhow::Result<ExitCode> {
    let site = ssr::site::load(&args.dir)?;
    let client = args.server.connect()?;
    if let Some(app) = &site.app
        && !args.quiet
    {
        eprintln!("  reading {}", app.path.display());
    }
    let options = ssr::build::Options {
        code_cache: args.code_cache.dir.clone(),
        ..site.build_options()
    };
    let built = ssr::build::build(&site.entry, &options, &mut Steps::new(args.quiet))?;
    let warnings = site
        .app
        .iter()
        .flat_map(|a| &a.warnings)
        .chain(&built.warnings);
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let path = format!("/_ssr/admin/tenants/{}", enc(&site.name));
    let mut now = client.call("GET", &path)?;
    let current: Option<Value> = match now.status().as_u16() {
        200 => Some(
            serde_json::from_str(&now.body_mut().read_to_string()?)
                .context("the server's answer is not a tenant")?,
        ),
        404 => None,
        _ => return finish(now),
    };
    let settings = site.settings(current.as_ref());
    let changes = changes(current.as_ref(), &settings, &built.plugin);
    if args.dry_run {
        match &current {
            None => println!("would create `{}`:", site.name),
            Some(_) => println!("would update `{}`:", site.name),
        }
        for change in &changes {
            println!("  {change}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut response = client.send(
        "PUT",
        &format!("{path}?{}", query(&settings)),
        &built.plugin,
    )?;
    if !response.status().is_success() {
        return finish(response);
    }
    let tenant: Value = serde_json::from_str(&response.body_mut().read_to_string()?)
        .context("the server's answer is not a tenant")?;
    println!(
        "deployed `{}`, version {}",
        site.name,
        tenant["version"].as_u64().unwrap_or(0)
    );
    for change in &changes {
        println!("  {change}");
    }
    let hosts: Vec<&str> = tenant["hosts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for host in &hosts {
        println!("  http://{host}/");
    }
    println!(
        "  {}/t/{}/ (where the server routes by path)",
        client.base, site.name
    );
    if args.migrate {
        for (binding, dir) in site.app.iter().flat_map(|a| &a.d1_migrations) {
            if !dir.is_dir() {
                continue;
            }
            println!("migrations of {binding} ({}):", dir.display());
            let applied = super::bindings::apply_migrations(&client, &site.name, binding, dir)?;
            if applied != ExitCode::SUCCESS {
                return Ok(applied);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What a deploy of `plugin` with `settings` changes on `current` (none:
/// a new tenant), one line each.
fn changes(current: Option<&Value>, settings: &[(String, String)], plugin: &[u8]) -> Vec<String> {
    let Some(current) = current else {
        let digest = ssr::artifact::digest(plugin);
        let mut all = vec![format!(
            "plugin {} ({} KiB)",
            &digest[..12],
            plugin.len() / 1024
        )];
        all.extend(settings.iter().map(|(k, v)| format!("{k} = {v}")));
        return all;
    };
    // A build is not byte for byte the same twice (the engine's memory
    // after the top level ran holds what it drew from the random source), so
    // the plugin counts as new on every deploy.
    let mut all = vec![format!(
        "plugin: a new build ({} KiB) replaces {}",
        plugin.len() / 1024,
        current["digest"]
            .as_str()
            .map_or("?", |d| &d[..d.len().min(12)])
    )];
    let wanted = |key: &str| -> Vec<String> {
        settings
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let diff = |all: &mut Vec<String>, name: &str, mut was: Vec<String>, mut will: Vec<String>| {
        was.sort();
        will.sort();
        if was != will {
            all.push(format!("{name}: {was:?} -> {will:?}"));
        }
    };
    diff(
        &mut all,
        "hosts",
        strings(&current["hosts"]),
        wanted("host"),
    );
    for key in ["allow_fetch", "allow_service"] {
        diff(&mut all, key, strings(&current[key]), wanted(key));
    }
    let vars: Vec<String> = current["vars"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    diff(&mut all, "vars", vars, wanted("var"));
    for key in ["engine", "mode"] {
        let will = wanted(key);
        if let Some(will) = will.first()
            && current[key].as_str() != Some(will)
        {
            all.push(format!("{key}: {} -> {will}", current[key]));
        }
    }
    let limits: Vec<String> = current["limits"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let will: Vec<String> = settings
        .iter()
        .filter(|(k, _)| {
            ![
                "host",
                "allow_fetch",
                "allow_service",
                "var",
                "engine",
                "mode",
                "debug",
            ]
            .contains(&k.as_str())
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    diff(&mut all, "limits", limits, will);
    all
}
