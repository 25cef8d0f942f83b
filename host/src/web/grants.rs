//! What a tenant version's renderer was given ([`Grants`]), and how the
//! host keeps its secrets out of what it writes.
//!
//! Invariant: a secret's value is redacted in every form the host writes
//! it ([`written_forms`]), and `Debug` prints names only.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use contract::RenderError;

use super::fetch::FetchGrant;
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
    pub stack_map: Option<Arc<crate::stack_map::StackMap>>,
    /// Its bindings (KV namespaces), by name in `env`.
    pub bindings: crate::bindings::Bindings,
    /// The secrets by name and value.
    secrets: Vec<(String, String)>,
    /// Every form a secret's value can take in text the host writes (see
    /// [`written_forms`]), with its name, longest first (redacted in that
    /// order, so a secret containing another is replaced whole).
    hidden: Vec<(String, String)>,
}

/// What a renderer reaches besides its `env`: each part as [`Grants`]
/// holds it.
#[derive(Default)]
pub struct Reach {
    pub fetch: FetchGrant,
    pub cache: Option<CacheApi>,
    pub assets: Option<Arc<crate::assets::Assets>>,
    pub stack_map: Option<Arc<crate::stack_map::StackMap>>,
    pub bindings: crate::bindings::Bindings,
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
    /// that reaches what `reach` gives.
    pub fn with_env(
        tenant: &str,
        vars: &BTreeMap<String, String>,
        secrets: &BTreeMap<String, String>,
        reach: Reach,
    ) -> Arc<Grants> {
        let Reach {
            fetch,
            cache,
            assets,
            stack_map,
            bindings,
        } = reach;
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
            bindings,
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

    /// A render's error with no secret in its message or stack.
    pub fn redact_error(&self, e: RenderError) -> RenderError {
        if self.hidden.is_empty() {
            return e;
        }
        RenderError {
            kind: e.kind,
            message: self.redact(&e.message).into_owned(),
            stack: e.stack.map(|s| self.redact(&s).into_owned()),
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

/// The forms a secret's value takes in text that reaches the log or an
/// error page: as it is; escaped as JSON (`JSON.stringify`, and the
/// console's formatting of a string inside an object or a thrown
/// non-`Error`), once and twice (a JSON document logged as a string); as
/// Rust's `Debug` escapes it; and as the log's own escaping
/// (`logs::escape`) writes it. A secret with a newline or a quote (a
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
        crate::logs::escape(value).into_owned(),
        crate::logs::escape(&once).into_owned(),
        once,
    ];
    let mut out: Vec<String> = forms.into_iter().filter(|f| !f.is_empty()).collect();
    out.sort();
    out.dedup();
    out
}
