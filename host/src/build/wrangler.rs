//! An app's Workers config, as `ssr build` reads it: `wrangler.jsonc`,
//! `wrangler.json` or `wrangler.toml` (what `wrangler deploy` reads), and its
//! assets directory's `_headers` and `_redirects` files.
//!
//! What it takes: `main` (the entry), `assets.directory`, `assets.binding`,
//! `assets.html_handling`, `assets.not_found_handling` and `vars`, into an
//! [`AppConfig`] the plugin carries (`crate::app`); `rules`, how modules
//! that are not JavaScript import, into the build's options. What it cannot honour
//! is named in a warning, never dropped silently: every binding `ssr` does
//! not provide (KV, D1, R2, Durable Objects, Queues...; touching one at run
//! time then throws, naming it), compatibility flags, and every other key.
//!
//! A framework's build may leave `.wrangler/deploy/config.json` pointing at
//! the config it generated (`@cloudflare/vite-plugin` does); `wrangler
//! deploy` follows it, and so does [`find`].
//!
//! Invariant: every failure is a [`BuildError::Config`] that names the file
//! and the problem.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::BuildError;
use super::bundle::{ModuleKind, ModuleRule, module_rules};
use crate::app::{AppConfig, HeaderRule, REDIRECT_STATUSES, Redirect};

/// The config file names, in the order `wrangler` looks for them.
pub const CONFIG_NAMES: &[&str] = &["wrangler.json", "wrangler.jsonc", "wrangler.toml"];

/// What a config says to build.
#[derive(Debug)]
pub struct App {
    /// The config file read.
    pub path: PathBuf,
    /// `main`, resolved against the config's directory.
    pub entry: PathBuf,
    /// `assets.directory`, resolved likewise.
    pub assets: Option<PathBuf>,
    pub config: AppConfig,
    /// Each D1 binding's migrations folder (its `migrations_dir`, else
    /// `migrations`), resolved against the config's directory: what
    /// `ssr deploy --migrate` applies.
    pub d1_migrations: BTreeMap<String, PathBuf>,
    /// `compatibility_flags` has `nodejs_compat`, or the
    /// `compatibility_date` is one where it is the default
    /// ([`NODEJS_COMPAT_DEFAULT`]) and `no_nodejs_compat` is not set: the
    /// bundle gets Node's globals `Buffer` and `process`, as on Workers
    /// (`BundleOptions`).
    pub node_globals: bool,
    /// `compatibility_flags`, as the config lists them.
    pub compatibility_flags: Vec<String>,
    /// Each of [`BEHAVIOURS`] by its enable flag, and whether the app has
    /// it.
    pub behaviours: Vec<(String, bool)>,
    /// How modules that are not JavaScript import: the config's `rules`,
    /// then wrangler's defaults (`BundleOptions::rules`).
    pub rules: Vec<ModuleRule>,
    /// What the config asks that `ssr` does not do, one line each.
    pub warnings: Vec<String>,
}

/// The config in `dir`: the one a redirect file names, else the first of
/// [`CONFIG_NAMES`] there.
pub fn find(dir: &Path) -> Result<PathBuf, BuildError> {
    let redirect = dir.join(".wrangler/deploy/config.json");
    if let Ok(text) = std::fs::read_to_string(&redirect) {
        let target = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("configPath")?.as_str().map(PathBuf::from))
            .ok_or_else(|| config_error(&redirect, "it names no `configPath`".into()))?;
        return Ok(redirect.parent().unwrap_or(dir).join(target));
    }
    CONFIG_NAMES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            BuildError::Config(format!(
                "no entry module given, and {} has no {}; name the entry (`ssr build app.js -o app.wasm`) or the config (`--wrangler FILE`)",
                dir.display(),
                CONFIG_NAMES.join(", ")
            ))
        })
}

fn config_error(path: &Path, why: String) -> BuildError {
    BuildError::Config(format!("{}: {why}", path.display()))
}

/// The compatibility flags `ssr` acts on: the Node modules are always there
/// (build/node/), and `nodejs_compat` adds their globals.
const NODE_FLAGS: &[&str] = &[
    "nodejs_compat",
    "nodejs_compat_v2",
    "nodejs_als",
    "no_nodejs_compat",
];

/// Compatibility flags that ask for what `ssr` always does, so no warning
/// names them: `global_fetch_strictly_public` (a `fetch` goes to the
/// origin it names, through the tenant's grant, never to a Worker of the
/// app's own zone; `ssr` has no zones, and refuses private addresses).
const ALWAYS_FLAGS: &[&str] = &["global_fetch_strictly_public"];

/// Behaviours `workerd` changed by compatibility date, that `ssr` has
/// both of: each by its enable flag, its disable flag, and the date from
/// which it is the default. The app's flags, else its date, choose, and the
/// bundle reads the choice as `__SSR_COMPAT__` ([`App::behaviours`]); with
/// no date, today's behaviour.
pub const BEHAVIOURS: &[(&str, &str, &str)] = &[
    // `diagnostics_channel`'s `hasSubscribers` a getter, not a method.
    (
        "diagnostics_channel_has_subscribers_getter",
        "no_diagnostics_channel_has_subscribers_getter",
        "2026-05-19",
    ),
];

/// The compatibility date from which `nodejs_compat` is on by default on
/// Workers (`workerd` says so when a config names the flag).
pub const NODEJS_COMPAT_DEFAULT: &str = "2026-08-04";

/// Reads the config at `path`.
pub fn read(path: &Path) -> Result<App, BuildError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| config_error(path, format!("cannot read it: {e}")))?;
    let value: Value = if path.extension().is_some_and(|e| e == "toml") {
        toml::from_str(&text).map_err(|e| config_error(path, format!("not valid TOML: {e}")))?
    } else {
        jsonc_parser::parse_to_serde_value(&text, &Default::default())
            .map_err(|e| config_error(path, format!("not valid JSON with comments: {e}")))?
    };
    let Value::Object(top) = value else {
        return Err(config_error(path, "it is not an object of settings".into()));
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut warnings = Vec::new();
    let mut config = AppConfig::default();
    let mut d1_migrations = BTreeMap::new();
    let mut entry = None;
    let mut assets = None;
    let mut node_flag = None;
    let mut compatibility_flags = Vec::new();
    let mut date = None;
    let mut own_rules = Vec::new();
    let mut falls_through = Vec::new();
    let text_of = |key: &str, v: &Value| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| config_error(path, format!("`{key}` is not a string")))
    };
    for (key, v) in &top {
        match key.as_str() {
            "main" => entry = Some(dir.join(text_of(key, v)?)),
            "name" => config.name = Some(text_of(key, v)?),
            // Dates select runtime behaviour that `ssr` has one version of;
            // the rest say how the config and the bundle were made, which
            // the framework's build has done (a generated config has them).
            "compatibility_date" => date = Some(text_of(key, v)?),
            "$schema"
            | "configPath"
            | "userConfigPath"
            | "topLevelName"
            | "definedEnvironments"
            | "jsx_factory"
            | "jsx_fragment"
            | "no_bundle"
            | "upload_source_maps"
            | "python_modules"
            | "dev"
            | "previews" => {}
            // A generated config lists every key, most of them empty.
            _ if is_empty(v) => {}
            "compatibility_flags" => {
                let flags: Vec<&str> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|f| !NODE_FLAGS.contains(f) && !ALWAYS_FLAGS.contains(f))
                    .filter(|f| !BEHAVIOURS.iter().any(|(on, off, _)| f == on || f == off))
                    .collect();
                for f in v.as_array().into_iter().flatten() {
                    compatibility_flags.extend(f.as_str().map(String::from));
                    match f.as_str() {
                        Some("nodejs_compat" | "nodejs_compat_v2") => node_flag = Some(true),
                        Some("no_nodejs_compat") => node_flag = Some(false),
                        _ => {}
                    }
                }
                if !flags.is_empty() {
                    warnings.push(format!(
                        "compatibility_flags {} are not acted on: ssr has one behaviour for each (docs/compatibility.md says what it provides)",
                        flags.join(", ")
                    ));
                }
            }
            "rules" => {
                read_module_rules(path, v, &mut own_rules, &mut falls_through, &mut warnings)?
            }
            "vars" => {
                for (name, value) in v.as_object().into_iter().flatten() {
                    let value = match value {
                        Value::String(s) => s.clone(),
                        other => {
                            warnings.push(format!(
                                "var {name} is not a string: env.{name} holds its JSON text, {other}"
                            ));
                            other.to_string()
                        }
                    };
                    config.vars.insert(name.clone(), value);
                }
                crate::tenant::env::check(&config.vars, &Default::default())
                    .map_err(|e| config_error(path, format!("`vars`: {e}")))?;
            }
            "assets" => {
                let Value::Object(a) = v else {
                    return Err(config_error(path, "`assets` is not an object".into()));
                };
                for (k, v) in a {
                    match k.as_str() {
                        "directory" => assets = Some(dir.join(text_of("assets.directory", v)?)),
                        "binding" => config.assets_binding = Some(text_of("assets.binding", v)?),
                        "html_handling" => {
                            config.html_handling = serde_json::from_value(v.clone()).map_err(|_| {
                                config_error(path, format!("assets.html_handling {v} is not one of auto-trailing-slash, force-trailing-slash, drop-trailing-slash, none"))
                            })?
                        }
                        "not_found_handling" => {
                            config.not_found_handling = serde_json::from_value(v.clone()).map_err(|_| {
                                config_error(path, format!("assets.not_found_handling {v} is not one of none, 404-page, single-page-application"))
                            })?
                        }
                        "run_worker_first" if v == &Value::Bool(false) => {}
                        other => warnings.push(format!(
                            "assets.{other} is not supported and is ignored: ssr serves a file that matches before the renderer"
                        )),
                    }
                }
                if !a.contains_key("binding") {
                    config.assets_binding = None;
                }
            }
            "kv_namespaces" => read_bindings(path, key, v, &["id"], &mut config.kv_namespaces)?,
            "d1_databases" => {
                read_bindings(
                    path,
                    key,
                    v,
                    &["database_id", "database_name"],
                    &mut config.d1_databases,
                )?;
                for item in v.as_array().into_iter().flatten() {
                    if let Some(name) = item.get("binding").and_then(Value::as_str) {
                        let folder = item
                            .get("migrations_dir")
                            .and_then(Value::as_str)
                            .unwrap_or("migrations");
                        d1_migrations.insert(name.to_string(), dir.join(folder));
                    }
                }
            }
            "r2_buckets" => read_bindings(path, key, v, &["bucket_name"], &mut config.r2_buckets)?,
            "triggers" => config.crons = read_crons(path, v)?,
            "durable_objects" => {
                let own = top.get("name").and_then(Value::as_str);
                read_objects(path, v, own, &mut config, &mut warnings)?
            }
            // Every class is kept as a SQLite-backed one is
            // (`bindings/objects/storage.rs`): the migrations that declare
            // them need nothing more.
            "migrations" => {}
            "services" => {
                read_bindings(path, key, v, &["service"], &mut config.services)?;
                for item in v.as_array().into_iter().flatten() {
                    let (Some(name), Some(entrypoint)) = (
                        item.get("binding").and_then(Value::as_str),
                        item.get("entrypoint").and_then(Value::as_str),
                    ) else {
                        continue;
                    };
                    config
                        .service_entrypoints
                        .insert(name.into(), entrypoint.into());
                }
            }
            other => match binding_kind(other) {
                Some(kind) => {
                    for name in binding_names(v) {
                        warnings.push(format!(
                            "{other}: env.{name} ({kind}) is not provided by ssr; touching it throws"
                        ));
                        config.missing.insert(name, kind.into());
                    }
                }
                None => warnings.push(format!("`{other}` is not supported and is ignored")),
            },
        }
    }
    let entry = entry.ok_or_else(|| {
        config_error(
            path,
            "it names no `main`, the Worker's entry module that ssr runs".into(),
        )
    })?;
    // Dates compare as text: both are `YYYY-MM-DD`.
    let by_date = date
        .as_ref()
        .is_some_and(|d| d.as_str() >= NODEJS_COMPAT_DEFAULT);
    let behaviours = BEHAVIOURS
        .iter()
        .map(|(on, off, since)| {
            let flag = |f: &str| compatibility_flags.iter().any(|g| g == f);
            let chosen = if flag(off) {
                false
            } else {
                flag(on) || date.as_ref().is_none_or(|d| d.as_str() >= *since)
            };
            (on.to_string(), chosen)
        })
        .collect();
    Ok(App {
        path: path.to_path_buf(),
        entry,
        assets,
        config,
        d1_migrations,
        node_globals: node_flag.unwrap_or(by_date),
        compatibility_flags,
        behaviours,
        rules: module_rules(own_rules, &falls_through),
        warnings,
    })
}

/// `triggers`: its `crons`, each a cron expression Workers reads.
fn read_crons(path: &Path, v: &Value) -> Result<Vec<String>, BuildError> {
    let crons = match v.get("crons") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(crons)) => crons,
        Some(other) => {
            return Err(config_error(
                path,
                format!("triggers.crons: {other} is not a list of cron expressions"),
            ));
        }
    };
    crons
        .iter()
        .map(|c| {
            let expr = c.as_str().ok_or_else(|| {
                config_error(
                    path,
                    format!("triggers.crons: {c} is not a cron expression"),
                )
            })?;
            crate::cron::parse(expr)
                .map(|_| expr.to_string())
                .map_err(|e| config_error(path, format!("triggers.crons: {e}")))
        })
        .collect()
}

/// `durable_objects.bindings`: each `name` (in `env`) to its
/// `class_name`; one of another Worker's (`script_name`) is declared but
/// not provided (touching it throws), as ssr runs a tenant's own classes.
fn read_objects(
    path: &Path,
    v: &Value,
    own: Option<&str>,
    config: &mut AppConfig,
    warnings: &mut Vec<String>,
) -> Result<(), BuildError> {
    let list = v.get("bindings").unwrap_or(&Value::Null);
    for item in list.as_array().into_iter().flatten() {
        let name = item.get("name").and_then(Value::as_str).ok_or_else(|| {
            config_error(
                path,
                format!("durable_objects.bindings: {item} has no `name`, the name the Worker reads it by (env.NAME)"),
            )
        })?;
        crate::tenant::env::check_name(name)
            .map_err(|e| config_error(path, format!("durable_objects.bindings: {e}")))?;
        let class = item
            .get("class_name")
            .and_then(Value::as_str)
            .filter(|c| crate::bindings::objects::check_class(c).is_ok())
            .ok_or_else(|| {
                config_error(
                    path,
                    format!("durable_objects.bindings: {name} has no `class_name` that names a class the Worker exports"),
                )
            })?;
        let script = item.get("script_name").and_then(Value::as_str);
        if script.is_some_and(|s| own != Some(s)) {
            warnings.push(format!(
                "durable_objects: env.{name} is a class of another Worker ({}); ssr runs a tenant's own classes only, so touching it throws",
                script.unwrap_or_default()
            ));
            config.missing.insert(
                name.into(),
                "Durable Object namespace of another Worker".into(),
            );
            continue;
        }
        config.durable_objects.insert(name.into(), class.into());
    }
    Ok(())
}

/// A binding list (`kv_namespaces`, `d1_databases`, `r2_buckets`,
/// `services`) into `into`: each
/// entry's `binding` (the name in `env`) to its id, the first of `ids` it
/// has, else the name. Two bindings of one id share what it names.
fn read_bindings(
    path: &Path,
    key: &str,
    v: &Value,
    ids: &[&str],
    into: &mut BTreeMap<String, String>,
) -> Result<(), BuildError> {
    for item in v.as_array().into_iter().flatten() {
        let name = item.get("binding").and_then(Value::as_str).ok_or_else(|| {
            config_error(
                path,
                format!(
                    "{key}: {item} has no `binding`, the name the Worker reads it by (env.NAME)"
                ),
            )
        })?;
        crate::tenant::env::check_name(name)
            .map_err(|e| config_error(path, format!("{key}: {e}")))?;
        let id = ids
            .iter()
            .find_map(|k| {
                item.get(*k)
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty())
            })
            .unwrap_or(name);
        if id.len() > 256 || id.chars().any(char::is_control) {
            return Err(config_error(
                path,
                format!("{key}: the id of {name} is not 1-256 printable characters"),
            ));
        }
        into.insert(name.into(), id.into());
    }
    Ok(())
}

/// The config's `rules`: how modules that are not JavaScript import. `ssr`
/// matches them by extension (esbuild's loaders), so a glob must end in
/// `*.EXT`; one that names a directory too applies to every such file,
/// and says so. ESModule and CommonJS rules say what esbuild already
/// knows, and are taken as said.
fn read_module_rules(
    path: &Path,
    v: &Value,
    own: &mut Vec<ModuleRule>,
    falls_through: &mut Vec<ModuleKind>,
    warnings: &mut Vec<String>,
) -> Result<(), BuildError> {
    let Value::Array(list) = v else {
        return Err(config_error(path, "`rules` is not a list of rules".into()));
    };
    for rule in list {
        let kind = match rule.get("type").and_then(Value::as_str) {
            Some("Text") => ModuleKind::Text,
            Some("Data") => ModuleKind::Data,
            Some("CompiledWasm") => ModuleKind::CompiledWasm,
            Some("ESModule" | "CommonJS") => continue,
            Some(other) => {
                warnings.push(format!(
                    "rules: type {other} is not supported and is ignored"
                ));
                continue;
            }
            None => {
                return Err(config_error(
                    path,
                    format!(
                        "rules: {rule} has no `type` (Text, Data, CompiledWasm, ESModule or CommonJS)"
                    ),
                ));
            }
        };
        if rule.get("fallthrough") == Some(&Value::Bool(true)) {
            falls_through.push(kind);
        }
        let globs = rule.get("globs").and_then(Value::as_array).ok_or_else(|| {
            config_error(
                path,
                format!("rules: {rule} has no `globs`, a list of file patterns"),
            )
        })?;
        for glob in globs {
            let glob = glob.as_str().unwrap_or_default();
            let (dir, name) = glob.rsplit_once('/').unwrap_or(("", glob));
            let extension = name
                .strip_prefix("*.")
                .filter(|e| !e.is_empty() && !e.contains(['*', '?', '[', '{']));
            let Some(extension) = extension else {
                warnings.push(format!(
                    "rules: glob {glob:?} is ignored: ssr matches module rules by extension, so a glob ends in `*.EXT` (`**/*.md`)"
                ));
                continue;
            };
            if !matches!(dir, "" | "**") {
                warnings.push(format!(
                    "rules: glob {glob:?} applies to every .{extension} file: ssr matches module rules by extension"
                ));
            }
            own.push(ModuleRule {
                kind,
                extension: extension.into(),
            });
        }
    }
    Ok(())
}

/// Whether a setting declares nothing: null, `[]`, `{}`, or an object of
/// such (`"queues": {"producers": [], "consumers": []}`).
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_empty),
        _ => false,
    }
}

/// The kind of binding a config key declares, for keys `ssr` knows as
/// bindings it does not provide.
fn binding_kind(key: &str) -> Option<&'static str> {
    Some(match key {
        "kv_namespaces" => "KV namespace",
        "d1_databases" => "D1 database",
        "r2_buckets" => "R2 bucket",
        "durable_objects" => "Durable Object namespace",
        "queues" => "Queue",
        "services" => "service binding",
        "ai" => "Workers AI binding",
        "images" => "Images binding",
        "vectorize" => "Vectorize index",
        "hyperdrive" => "Hyperdrive config",
        "analytics_engine_datasets" => "Analytics Engine dataset",
        "browser" => "Browser Rendering binding",
        "send_email" => "email binding",
        "workflows" => "Workflow",
        "dispatch_namespaces" => "dispatch namespace",
        "mtls_certificates" => "mTLS certificate",
        "version_metadata" => "version metadata binding",
        "secrets_store_secrets" => "Secrets Store secret",
        "pipelines" => "Pipeline",
        "unsafe" => "unsafe binding",
        _ => return None,
    })
}

/// The `env` names a binding declaration holds: `binding` or `name` of each
/// object in it, looking into `bindings` and `producers` lists
/// (`durable_objects`, `queues`).
fn binding_names(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items.iter().flat_map(binding_names).collect(),
        Value::Object(o) => {
            if let Some(inner) = o.get("bindings").or_else(|| o.get("producers")) {
                return binding_names(inner);
            }
            o.get("binding")
                .or_else(|| o.get("name"))
                .and_then(Value::as_str)
                .map(|s| vec![s.to_string()])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// Reads `dir`'s `_headers` and `_redirects`, when present, into `config`.
pub fn read_rules(
    dir: &Path,
    config: &mut AppConfig,
    warnings: &mut Vec<String>,
) -> Result<(), BuildError> {
    let headers = dir.join("_headers");
    if let Ok(text) = std::fs::read_to_string(&headers) {
        config.headers = parse_headers(&text).map_err(|why| config_error(&headers, why))?;
    }
    let redirects = dir.join("_redirects");
    if let Ok(text) = std::fs::read_to_string(&redirects) {
        let (rules, skipped) =
            parse_redirects(&text).map_err(|why| config_error(&redirects, why))?;
        config.redirects = rules;
        warnings.extend(
            skipped
                .into_iter()
                .map(|w| format!("{}: {w}", redirects.display())),
        );
    }
    config.check().map_err(|why| config_error(dir, why))
}

/// `_headers`: a path pattern at the start of a line, then its headers on
/// indented lines (`Name: value`, or `! Name` to remove one); `#` comments.
fn parse_headers(text: &str) -> Result<Vec<HeaderRule>, String> {
    let mut rules: Vec<HeaderRule> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |why: &str| format!("line {}: {why}: {line:?}", n + 1);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            crate::app::check_pattern(trimmed).map_err(|why| at(&why))?;
            rules.push(HeaderRule {
                pattern: trimmed.to_string(),
                ..HeaderRule::default()
            });
            continue;
        }
        let rule = rules
            .last_mut()
            .ok_or_else(|| at("a header before any path"))?;
        if let Some(name) = trimmed.strip_prefix('!') {
            rule.unset.push(name.trim().to_ascii_lowercase());
        } else {
            let (name, value) = trimmed
                .split_once(':')
                .ok_or_else(|| at("not `Name: value` or `! Name`"))?;
            let name = name.trim().to_ascii_lowercase();
            if axum::http::HeaderName::try_from(name.as_str()).is_err() {
                return Err(at("not a valid header name"));
            }
            rule.set.push((name, value.trim().to_string()));
        }
    }
    Ok(rules)
}

/// `_redirects`: `FROM TO [STATUS]` per line (status 302 when left out);
/// `#` comments. Rules with status 200 (a rewrite) or from a full URL are
/// left out, with the returned warnings.
fn parse_redirects(text: &str) -> Result<(Vec<Redirect>, Vec<String>), String> {
    let mut rules = Vec::new();
    let mut skipped = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = trimmed.split_whitespace().collect();
        let (from, to, status) = match parts[..] {
            [from, to] => (from, to, 302),
            [from, to, status] => (
                from,
                to,
                status
                    .parse()
                    .map_err(|_| format!("line {}: {status:?} is not a status", n + 1))?,
            ),
            _ => return Err(format!("line {}: not `FROM TO [STATUS]`: {line:?}", n + 1)),
        };
        if status == 200 || !from.starts_with('/') {
            skipped.push(format!(
                "line {}: {trimmed:?} is left out: ssr redirects from paths with statuses {REDIRECT_STATUSES:?} only",
                n + 1
            ));
            continue;
        }
        let rule = Redirect {
            from: from.into(),
            to: to.into(),
            status,
        };
        let config = AppConfig {
            redirects: vec![rule.clone()],
            ..AppConfig::default()
        };
        config
            .check()
            .map_err(|why| format!("line {}: {why}", n + 1))?;
        rules.push(rule);
    }
    Ok((rules, skipped))
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn nodejs_compat_is_on_from_its_default_date_unless_turned_off() {
        let dir = tempfile::tempdir().unwrap();
        for (date, flags, on) in [
            ("2026-08-03", "[]", false),
            ("2026-08-04", "[]", true),
            ("2026-11-01", r#"["no_nodejs_compat"]"#, false),
            ("2024-01-01", r#"["nodejs_compat"]"#, true),
        ] {
            let path = write(
                dir.path(),
                "wrangler.json",
                &format!(
                    r#"{{ "main": "i.js", "compatibility_date": "{date}", "compatibility_flags": {flags} }}"#
                ),
            );
            let app = read(&path).unwrap();
            assert_eq!(app.node_globals, on, "{date} {flags}");
            assert!(app.warnings.is_empty(), "{:?}", app.warnings);
        }
    }

    fn behaviours_follow_the_flags_then_the_date() {
        let dir = tempfile::tempdir().unwrap();
        let getter = "diagnostics_channel_has_subscribers_getter";
        for (date, flags, on) in [
            (Some("2026-05-19"), "[]", true),
            (Some("2026-05-18"), "[]", false),
            (None, "[]", true),
            (
                Some("2024-01-01"),
                r#"["diagnostics_channel_has_subscribers_getter"]"#,
                true,
            ),
            (
                Some("2026-11-01"),
                r#"["no_diagnostics_channel_has_subscribers_getter"]"#,
                false,
            ),
        ] {
            let date = date.map_or(String::new(), |d| {
                format!(r#""compatibility_date": "{d}","#)
            });
            let text = format!(r#"{{ "main": "i.js", {date} "compatibility_flags": {flags} }}"#);
            let app = read(&write(dir.path(), "wrangler.json", &text)).unwrap();
            assert_eq!(app.behaviours, [(getter.to_string(), on)], "{text}");
            assert!(app.warnings.is_empty(), "{:?}", app.warnings);
        }
    }

    fn a_jsonc_config_gives_entry_assets_vars_and_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "wrangler.jsonc",
            r#"// comments and trailing commas, as wrangler allows
            {
              "name": "shop",
              "main": "src/index.js",
              "compatibility_date": "2026-01-01",
              "compatibility_flags": ["nodejs_compat", "no_global_navigator", "global_fetch_strictly_public"],
              "assets": { "directory": "./public", "binding": "STATIC", "not_found_handling": "404-page" },
              "vars": { "API": "https://api.test", "LIMIT": 5 },
              "kv_namespaces": [{ "binding": "SESSIONS", "id": "x" }],
              "durable_objects": { "bindings": [{ "name": "ROOMS", "class_name": "Room" }] },
              "routes": ["shop.test/*"],
            }"#,
        );
        let app = read(&path).unwrap();
        assert_eq!(app.entry, dir.path().join("src/index.js"));
        assert_eq!(app.assets, Some(dir.path().join("./public")));
        assert_eq!(app.config.assets_binding.as_deref(), Some("STATIC"));
        assert_eq!(
            app.config.not_found_handling,
            crate::app::NotFoundHandling::NotFoundPage
        );
        assert_eq!(app.config.vars["LIMIT"], "5");
        assert_eq!(app.config.kv_namespaces["SESSIONS"], "x");
        assert!(!app.config.missing.contains_key("SESSIONS"));
        assert_eq!(app.config.durable_objects["ROOMS"], "Room");
        assert!(!app.config.missing.contains_key("ROOMS"));
        assert!(app.node_globals);
        assert!(!app.warnings.join("\n").contains("nodejs_compat"));
        // What ssr always does is not named.
        assert!(
            !app.warnings
                .join("\n")
                .contains("global_fetch_strictly_public")
        );
        let all = app.warnings.join("\n");
        for named in ["no_global_navigator", "LIMIT", "`routes`"] {
            assert!(all.contains(named), "{named} in {all}");
        }
    }

    fn a_toml_config_and_bad_configs() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "wrangler.toml",
            "main = \"w.js\"\n[assets]\ndirectory = \"dist\"\n[vars]\nA = \"1\"\n",
        );
        let app = read(&path).unwrap();
        assert_eq!(app.entry, dir.path().join("w.js"));
        assert_eq!(app.config.assets_binding, None);
        assert_eq!(find(dir.path()).unwrap(), path);
        let no_main = write(dir.path(), "wrangler.json", r#"{"name": "x"}"#);
        let e = read(&no_main).unwrap_err().to_string();
        assert!(e.contains("no `main`"), "{e}");
        let bad = write(
            dir.path(),
            "bad.jsonc",
            r#"{"assets": {"html_handling": "sometimes"}, "main": "x"}"#,
        );
        let e = read(&bad).unwrap_err().to_string();
        assert!(
            e.contains("sometimes") && e.contains("auto-trailing-slash"),
            "{e}"
        );
        let e = find(&dir.path().join("nowhere")).unwrap_err().to_string();
        assert!(e.contains("wrangler.jsonc"), "{e}");
    }

    fn headers_and_redirects_files_are_parsed() {
        let rules = parse_headers(
            "# comment\n/_app/*\n  X-Robots-Tag: noindex\n\tCache-Control: no-cache\n/_app/immutable/*\n  ! Cache-Control\n",
        )
        .unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].set[1], ("cache-control".into(), "no-cache".into()));
        assert_eq!(rules[1].unset, vec!["cache-control".to_string()]);
        assert!(parse_headers("  X-A: b\n").is_err());
        let (redirects, skipped) =
            parse_redirects("/old /new 301\n/a/* /b/:splat\n/spa/* /index.html 200\n").unwrap();
        assert_eq!(redirects.len(), 2);
        assert_eq!(redirects[1].status, 302);
        assert_eq!(skipped.len(), 1);
        assert!(parse_redirects("/a /b 299\n").is_err());
    }

    fn module_rules_go_before_the_defaults_by_extension_and_say_what_they_cannot() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "wrangler.json",
            r#"{ "main": "i.js", "rules": [
                 { "type": "Data", "globs": ["src/**/*.txt", "data/x.json"] },
                 { "type": "ESModule", "globs": ["**/*.mjs"] },
                 { "type": "PythonModule", "globs": ["**/*.py"] } ] }"#,
        );
        let app = read(&path).unwrap();
        let rule = |kind, e: &str| ModuleRule {
            kind,
            extension: e.into(),
        };
        // The app's Data rule replaces the default one (`.bin`); the Text
        // and CompiledWasm defaults follow.
        assert_eq!(
            app.rules,
            [
                rule(ModuleKind::Data, "txt"),
                rule(ModuleKind::Text, "txt"),
                rule(ModuleKind::Text, "html"),
                rule(ModuleKind::Text, "sql"),
                rule(ModuleKind::CompiledWasm, "wasm"),
            ]
        );
        let warned = app.warnings.join("\n");
        for said in [
            "glob \"src/**/*.txt\" applies to every .txt file",
            "glob \"data/x.json\" is ignored",
            "type PythonModule is not supported",
        ] {
            assert!(warned.contains(said), "{said}: {warned}");
        }
        let path = write(
            dir.path(),
            "wrangler.json",
            r#"{ "main": "i.js", "rules": [{ "globs": ["*.md"] }] }"#,
        );
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("has no `type`"), "{err}");
    }

    crate::unit_tests!(
        module_rules_go_before_the_defaults_by_extension_and_say_what_they_cannot,
        nodejs_compat_is_on_from_its_default_date_unless_turned_off,
        behaviours_follow_the_flags_then_the_date,
        a_jsonc_config_gives_entry_assets_vars_and_warnings,
        a_toml_config_and_bad_configs,
        headers_and_redirects_files_are_parsed
    );
}
