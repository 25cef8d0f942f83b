//! A site's settings, in one place: `ssr.toml` in the site's directory, read
//! on top of its Workers config (`wrangler.jsonc`, `wrangler.json` or
//! `wrangler.toml`, as `ssr build` reads it: `build/wrangler.rs`). The
//! Workers config says what Workers says (name, main, assets, vars,
//! compatibility flags); `ssr.toml` says what only `ssr` has (engine, mode,
//! hostnames, fetch grants, limits) and may name the entry itself, so a site
//! needs no Workers config. `ssr deploy` reads it.
//!
//! Invariants:
//! - [`SiteConfig`] is the one definition of the file: the parser, and the
//!   JSON schema editors complete it with (`docs/ssr.schema.json`, checked by
//!   a test and rewritten with `SSR_BLESS=1`), come from it.
//! - An unknown key, a wrong type or a bad value is refused with the file
//!   and the line that holds it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::build::wrangler;
use crate::engine::{EngineKind, Mode};
use crate::tenant::LimitOverrides;
use crate::web::fetch::Origin;

/// The file's name.
pub const FILE: &str = "ssr.toml";

/// `ssr.toml`: what a site asks of `ssr`. Paths are relative to the file.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "ssr.toml",
    description = "A site's settings for ssr (ssr deploy)."
)]
pub struct SiteConfig {
    /// The tenant id the site deploys as: 1-63 characters of a-z, 0-9 and
    /// `-` [default: the Workers config's `name`, else the directory's name].
    pub name: Option<String>,
    /// The entry module [default: the Workers config's `main`].
    pub main: Option<PathBuf>,
    /// A directory of static files served at their paths [default: the
    /// Workers config's `assets.directory`].
    pub assets: Option<PathBuf>,
    /// The browser's entry module, bundled for the browser (hydration).
    pub client: Option<PathBuf>,
    /// The package JSX compiles to (`react`, `preact`, `hono/jsx`...).
    pub jsx_import_source: Option<String>,
    /// The engine that runs the site [default: wasm].
    pub engine: Option<EngineKind>,
    /// `reuse`: a warm instance serves many requests; `fresh`: one instance
    /// per request [default: the server's].
    pub mode: Option<Mode>,
    /// Hostnames routed to the site [default: those registered now]. With a
    /// tenant token they are the operator's: the same, or left out.
    pub hosts: Option<Vec<String>>,
    /// Origins the site may `fetch`, like `https://api.example.com`; none:
    /// every fetch is refused.
    #[serde(default)]
    pub allow_fetch: Vec<String>,
    /// Other tenants the site's service bindings may call, by id (itself it
    /// may always call). The operator's grant: with a tenant token, the
    /// same as registered, or left out.
    #[serde(default)]
    pub allow_service: Vec<String>,
    /// Error pages carry the site's own failures' detail.
    #[serde(default)]
    pub debug: bool,
    /// Vars of the handler's `env`, registered with the site (over the
    /// Workers config's `vars`). Secrets stay `ssr tenant secret put`.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The site's limits, the server's for those not set [default: those
    /// registered now]. With a tenant token they are the operator's.
    #[schemars(schema_with = "limits_schema")]
    pub limits: Option<BTreeMap<String, u64>>,
}

/// The limits' schema: each of [`LimitOverrides::NAMES`], a whole number.
fn limits_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let properties: serde_json::Map<String, serde_json::Value> = LimitOverrides::NAMES
        .split(", ")
        .map(|n| {
            let n = n.trim_matches('`');
            (
                n.to_string(),
                serde_json::json!({"type": "integer", "minimum": 1}),
            )
        })
        .collect();
    schemars::json_schema!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    })
}

/// The JSON schema of `ssr.toml`.
pub fn schema() -> String {
    let schema = schemars::schema_for!(SiteConfig);
    serde_json::to_string_pretty(&schema).expect("a schema is JSON") + "\n"
}

/// A site, resolved: its config, its Workers config, and what they name.
#[derive(Debug)]
pub struct Site {
    /// `ssr.toml`, when the site has one.
    pub file: Option<PathBuf>,
    pub config: SiteConfig,
    /// The Workers config, when the site has one.
    pub app: Option<wrangler::App>,
    /// The tenant id.
    pub name: String,
    /// The entry module.
    pub entry: PathBuf,
    /// The limits, checked.
    pub limits: LimitOverrides,
    /// The fetch grants, checked.
    pub allow_fetch: Vec<Origin>,
}

/// Why a site cannot be read: the message names the file and the line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SiteError(pub String);

impl From<crate::build::BuildError> for SiteError {
    fn from(e: crate::build::BuildError) -> SiteError {
        SiteError(crate::report::Chain(&e).to_string())
    }
}

/// Reads the site in `dir`.
pub fn load(dir: &Path) -> Result<Site, SiteError> {
    let path = dir.join(FILE);
    let (file, text, config) = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let config: SiteConfig =
                toml::from_str(&text).map_err(|e| SiteError(format!("{}: {e}", path.display())))?;
            (Some(path.clone()), text, config)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            (None, String::new(), SiteConfig::default())
        }
        Err(e) => return Err(SiteError(format!("cannot read {}: {e}", path.display()))),
    };
    let at = |key: &str| match line_of(&text, key) {
        Some(n) => format!("{}, line {n}", path.display()),
        None => path.display().to_string(),
    };
    let app = match wrangler::find(dir) {
        Ok(found) => Some(wrangler::read(&found)?),
        Err(_) => None,
    };
    let entry = match (&config.main, &app) {
        (Some(main), _) => dir.join(main),
        (None, Some(app)) => app.entry.clone(),
        (None, None) => {
            return Err(SiteError(format!(
                "{} has no {FILE} naming `main` and no Workers config ({}): say which module is the site's entry, e.g. `main = \"src/index.js\"` in {FILE}",
                dir.display(),
                wrangler::CONFIG_NAMES.join(", ")
            )));
        }
    };
    if !entry.is_file() {
        return Err(SiteError(format!(
            "{}: the entry {} does not exist",
            at("main"),
            entry.display()
        )));
    }
    let name = config
        .name
        .clone()
        .or_else(|| app.as_ref().and_then(|a| a.config.name.clone()))
        .unwrap_or_else(|| name_of_dir(dir));
    if crate::tenant::validate_id(&name).is_err() {
        return Err(SiteError(format!(
            "{}: the site's name `{name}` is not a tenant id (1-63 characters of a-z, 0-9 and `-`); set `name` in {FILE}",
            at("name")
        )));
    }
    let mut limits = LimitOverrides::default();
    for (key, value) in config.limits.iter().flatten() {
        match limits.set(key, &value.to_string()) {
            Ok(true) => {}
            Ok(false) => {
                return Err(SiteError(format!(
                    "{}: unknown limit `{key}`; the limits are {}",
                    at(key),
                    LimitOverrides::NAMES
                )));
            }
            Err(why) => return Err(SiteError(format!("{}: {why}", at(key)))),
        }
    }
    let allow_fetch = config
        .allow_fetch
        .iter()
        .map(|o| {
            o.parse::<Origin>()
                .map_err(|why| SiteError(format!("{}: {why}", at("allow_fetch"))))
        })
        .collect::<Result<_, _>>()?;
    Ok(Site {
        file,
        config,
        app,
        name,
        entry,
        limits,
        allow_fetch,
    })
}

/// The 1-based line where `key` is set in a TOML text.
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|i| i + 1)
}

impl Site {
    /// What `ssr build` would be given for this site.
    pub fn build_options(&self) -> crate::build::Options {
        let dir = self
            .file
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        crate::build::Options {
            jsx_import_source: self.config.jsx_import_source.clone(),
            assets: self
                .config
                .assets
                .as_ref()
                .map(|a| dir.join(a))
                .or_else(|| self.app.as_ref().and_then(|a| a.assets.clone())),
            client: self.config.client.as_ref().map(|c| dir.join(c)),
            limits: Default::default(),
            app: self.app.as_ref().map(|a| a.config.clone()),
            node_globals: self.app.as_ref().is_some_and(|a| a.node_globals),
            behaviours: self
                .app
                .as_ref()
                .map(|a| a.behaviours.clone())
                .unwrap_or_default(),
            rules: self
                .app
                .as_ref()
                .map(|a| a.rules.clone())
                .unwrap_or_default(),
            v8_only: false,
            code_cache: None,
        }
    }

    /// The registration's settings, as admin API query pairs; the
    /// hostnames and limits `current` has (the tenant as the admin API
    /// shows it) where the config names none.
    pub fn settings(&self, current: Option<&serde_json::Value>) -> Vec<(String, String)> {
        let mut q: Vec<(String, String)> = Vec::new();
        let hosts = match (&self.config.hosts, current) {
            (Some(hosts), _) => hosts.clone(),
            (None, Some(t)) => t["hosts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect(),
            (None, None) => Vec::new(),
        };
        q.extend(hosts.into_iter().map(|h| ("host".into(), h)));
        if let Some(mode) = self.config.mode {
            q.push(("mode".into(), format!("{mode:?}").to_ascii_lowercase()));
        }
        if let Some(engine) = self.config.engine {
            q.push(("engine".into(), format!("{engine:?}").to_ascii_lowercase()));
        }
        q.extend(
            self.allow_fetch
                .iter()
                .map(|o| ("allow_fetch".into(), o.to_string())),
        );
        q.extend(
            self.config
                .allow_service
                .iter()
                .map(|t| ("allow_service".into(), t.clone())),
        );
        q.extend(
            self.config
                .vars
                .iter()
                .map(|(k, v)| ("var".into(), format!("{k}={v}"))),
        );
        if self.config.debug {
            q.push(("debug".into(), "true".into()));
        }
        let limits: Vec<(String, String)> = match (&self.config.limits, current) {
            (Some(limits), _) => limits
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect(),
            (None, Some(t)) => t["limits"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect(),
            (None, None) => Vec::new(),
        };
        q.extend(limits);
        q
    }
}

/// The tenant id a site's directory makes, when nothing names the site
/// (`ssr init`, `ssr deploy`): its name in lower case, with `-` for each
/// character an id cannot have, at most 63 characters.
pub fn name_of_dir(dir: &Path) -> String {
    let base = std::fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let name: String = base
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.trim_matches('-').chars().take(63).collect()
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn a_directory_name_becomes_a_tenant_id() {
        let root = std::env::temp_dir().join(format!("ssr-name-{}", std::process::id()));
        let dir = root.join("My_Site.v2");
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(name_of_dir(&dir), "my-site-v2");
        assert_eq!(
            name_of_dir(&dir.join("..").join("My_Site.v2")),
            "my-site-v2"
        );
        // Not made yet (ssr init's directory).
        assert_eq!(name_of_dir(&root.join("-New Blog-")), "new-blog");
        assert_eq!(name_of_dir(&root.join("x".repeat(80))).len(), 63);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// docs/ssr.schema.json is what [`schema`] gives (`SSR_BLESS=1`
    /// rewrites it).
    fn the_schema_in_docs_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ssr.schema.json");
        let now = schema();
        if std::env::var_os("SSR_BLESS").is_some() {
            std::fs::write(&path, &now).unwrap();
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == now,
            "docs/ssr.schema.json is out of date: run SSR_BLESS=1 cargo test -p ssr --lib site"
        );
    }

    fn site(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<Site, SiteError>) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let site = load(dir.path());
        (dir, site)
    }

    fn a_bad_key_type_or_value_is_refused_with_its_line() {
        let entry = (
            "index.js",
            "export default { fetch() { return new Response('') } }",
        );
        for (toml, says) in [
            ("name = \"a\"\nmain = \"index.js\"\nbogus = 1\n", "line 3"),
            (
                "name = \"a\"\nmain = \"index.js\"\nhosts = \"x\"\n",
                "line 3",
            ),
            (
                "name = \"a\"\nmain = \"index.js\"\nengine = \"spidermonkey\"\n",
                "line 3",
            ),
            (
                "name = \"a\"\nmain = \"index.js\"\n\n[limits]\nrender_deadline = 5\n",
                "line 5",
            ),
            (
                "name = \"a\"\nmain = \"index.js\"\n[limits]\nmax_concurrency = 0\n",
                "line 4",
            ),
            (
                "name = \"a\"\nmain = \"index.js\"\nallow_fetch = [\"ftp://x\"]\n",
                "line 3",
            ),
            ("name = \"Not An Id\"\nmain = \"index.js\"\n", "line 1"),
            ("name = \"a\"\nmain = \"missing.js\"\n", "line 2"),
        ] {
            let (_dir, got) = site(&[entry, ("ssr.toml", toml)]);
            let err = got.expect_err(toml).0;
            assert!(
                err.contains("ssr.toml") && err.contains(says),
                "{toml}: {err}"
            );
        }
        let (_dir, got) = site(&[entry]);
        assert!(got.unwrap_err().0.contains("main = "));
    }

    fn ssr_toml_adds_to_the_workers_config() {
        let (_dir, got) = site(&[
            ("src.js", "export default {}"),
            (
                "wrangler.jsonc",
                "{ \"name\": \"shop\", \"main\": \"src.js\" }",
            ),
            (
                "ssr.toml",
                "engine = \"v8\"\nhosts = [\"shop.example.com\"]\nallow_service = [\"billing\"]\n[vars]\nA = \"1\"\n[limits]\nmax_concurrency = 2\n",
            ),
        ]);
        let site = got.unwrap();
        assert_eq!(site.name, "shop");
        assert!(site.entry.ends_with("src.js"));
        let q = site.settings(None);
        for pair in [
            ("host", "shop.example.com"),
            ("engine", "v8"),
            ("var", "A=1"),
            ("allow_service", "billing"),
            ("max_concurrency", "2"),
        ] {
            assert!(q.contains(&(pair.0.into(), pair.1.into())), "{q:?}");
        }
    }

    crate::unit_tests!(
        a_directory_name_becomes_a_tenant_id,
        the_schema_in_docs_is_current,
        a_bad_key_type_or_value_is_refused_with_its_line,
        ssr_toml_adds_to_the_workers_config
    );
}
