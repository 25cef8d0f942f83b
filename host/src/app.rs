//! What a plugin says about its app beyond code and files: the parts of the
//! app's Workers config (`wrangler.jsonc`, read by `build/wrangler.rs`) and
//! of its assets directory's `_headers` and `_redirects` files that the host
//! acts on. The build writes it as JSON into the plugin's `ssr-app` section;
//! the host reads it back with the assets ([`crate::assets::Assets`]), once
//! per tenant version.
//!
//! A plugin without the section (built from an entry file, not a config)
//! gets [`AppConfig::default`]: an `ASSETS` binding, Workers' default HTML
//! handling, no vars, no rules.
//!
//! Invariants:
//! - The section is checked when it is read: a malformed one refuses the
//!   plugin at registration (`AssetError::Corrupt`), as a bad asset table
//!   does. Every rule's pattern and target is an absolute path.
//! - Nothing here overrides an operator: the vars are defaults, under the
//!   tenant's registered vars and secrets (`engine::Grants::with_env`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Custom section holding an [`AppConfig`] as JSON.
pub const APP_SECTION: &str = "ssr-app";

/// The binding name Workers' docs use, and the one a plugin built without a
/// config gets.
pub const DEFAULT_ASSETS_BINDING: &str = "ASSETS";

/// What the host does for an app beyond running its renderer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct AppConfig {
    /// The app's name in its config (shown by the build only).
    pub name: Option<String>,
    /// Vars its config declares: defaults of the handler's `env`.
    pub vars: BTreeMap<String, String>,
    /// The `env` binding that fetches its assets; none: no binding.
    pub assets_binding: Option<String>,
    pub html_handling: HtmlHandling,
    pub not_found_handling: NotFoundHandling,
    /// `_headers`: headers set on asset responses, by path pattern.
    pub headers: Vec<HeaderRule>,
    /// `_redirects`: redirects answered before assets and the renderer.
    pub redirects: Vec<Redirect>,
    /// Bindings its config declares that `ssr` does not provide, by name,
    /// with their kind ("KV namespace"): touching one throws, naming it.
    pub missing: BTreeMap<String, String>,
}

impl Default for AppConfig {
    fn default() -> Self {
        AppConfig {
            name: None,
            vars: BTreeMap::new(),
            assets_binding: Some(DEFAULT_ASSETS_BINDING.into()),
            html_handling: HtmlHandling::default(),
            not_found_handling: NotFoundHandling::default(),
            headers: Vec::new(),
            redirects: Vec::new(),
            missing: BTreeMap::new(),
        }
    }
}

/// Workers' `assets.html_handling`: how a path without `.html` finds an
/// HTML file, and which form of a page's path is the one served.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HtmlHandling {
    /// `/about` is `about.html`, `/blog/` is `blog/index.html`; the other
    /// forms redirect to those.
    #[default]
    AutoTrailingSlash,
    /// Every page is served at a path ending in `/`.
    ForceTrailingSlash,
    /// Every page is served at a path without a trailing `/`.
    DropTrailingSlash,
    /// Exact file names only.
    None,
}

/// Workers' `assets.not_found_handling`: what `env.ASSETS.fetch` answers
/// for a path that names no file.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub enum NotFoundHandling {
    /// An empty `404`.
    #[default]
    #[serde(rename = "none")]
    None,
    /// The nearest `404.html` up the path, with status `404`.
    #[serde(rename = "404-page")]
    NotFoundPage,
    /// `/index.html`, with status `200`.
    #[serde(rename = "single-page-application")]
    SinglePageApplication,
}

/// One `_headers` rule: for paths matching `pattern`, remove `unset`, then
/// set `set` (a value may name the pattern's `:placeholder`s and `:splat`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HeaderRule {
    pub pattern: String,
    pub unset: Vec<String>,
    pub set: Vec<(String, String)>,
}

/// One `_redirects` rule.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Redirect {
    pub from: String,
    pub to: String,
    pub status: u16,
}

impl AppConfig {
    /// The config in `plugin`'s section, or the default without one.
    pub fn from_plugin(plugin: &[u8]) -> Result<AppConfig, String> {
        let Some(data) =
            crate::artifact::custom_section(plugin, APP_SECTION).map_err(|e| e.to_string())?
        else {
            return Ok(AppConfig::default());
        };
        let config: AppConfig = serde_json::from_slice(data)
            .map_err(|e| format!("its `{APP_SECTION}` section is not valid: {e}"))?;
        config.check()?;
        Ok(config)
    }

    /// Refuses rules that could not have come from a build: too many, a
    /// pattern that is not a path as [`check_pattern`] says, a target that
    /// is not a path or URL, a status that is not a redirect.
    pub fn check(&self) -> Result<(), String> {
        if self.headers.len() > MAX_HEADER_RULES || self.redirects.len() > MAX_REDIRECTS {
            return Err(format!(
                "more than {MAX_HEADER_RULES} header rules or {MAX_REDIRECTS} redirects"
            ));
        }
        for rule in &self.headers {
            check_pattern(&rule.pattern)?;
        }
        for r in &self.redirects {
            check_pattern(&r.from)?;
            let target = r.to.starts_with('/')
                || r.to.starts_with("https://")
                || r.to.starts_with("http://");
            if !target || !REDIRECT_STATUSES.contains(&r.status) {
                return Err(format!(
                    "the redirect {} {} {} is not valid",
                    r.from, r.to, r.status
                ));
            }
        }
        Ok(())
    }

    /// The redirect for `path`, if a rule matches: its status and location.
    pub fn redirect(&self, path: &str) -> Option<(u16, String)> {
        self.redirects.iter().find_map(|r| {
            let captures = matches(&r.from, path)?;
            Some((r.status, substitute(&r.to, &captures)))
        })
    }

    /// The `_headers` changes for `path`, in rule order: each is a header
    /// to remove (`None`) or a value to set.
    pub fn header_changes(&self, path: &str) -> Vec<(&str, Option<String>)> {
        let mut out = Vec::new();
        for rule in &self.headers {
            let Some(captures) = matches(&rule.pattern, path) else {
                continue;
            };
            out.extend(rule.unset.iter().map(|n| (n.as_str(), None)));
            out.extend(
                rule.set
                    .iter()
                    .map(|(n, v)| (n.as_str(), Some(substitute(v, &captures)))),
            );
        }
        out
    }
}

/// The statuses a `_redirects` rule may give.
pub const REDIRECT_STATUSES: &[u16] = &[301, 302, 303, 307, 308];

/// Rules one app may have, as Workers allows: each request is matched
/// against every rule, on the host's threads.
pub const MAX_HEADER_RULES: usize = 100;
pub const MAX_REDIRECTS: usize = 2100;

/// A pattern is an absolute path with at most one `*`, whose `:name`
/// placeholders are whole segments: so matching a path backtracks through
/// it once at most ([`matches`]).
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("the rule {pattern:?} is not valid: {why}"));
    if !pattern.starts_with('/') {
        return bad("it does not start with /");
    }
    if pattern.matches('*').count() > 1 {
        return bad("it has more than one *");
    }
    let placeholder = |seg: &str| {
        seg.strip_prefix(':').is_some_and(|name| {
            name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    };
    if pattern
        .split('/')
        .any(|seg| seg.contains(':') && !placeholder(seg))
    {
        return bad("a :placeholder must be a whole segment");
    }
    Ok(())
}

/// The captures of `path` against `pattern` (checked by
/// [`check_pattern`]), where `*` matches any run of characters (captured
/// as `splat`) and `:name` one whole, non-empty path segment; `None` if it
/// does not match.
pub fn matches(pattern: &str, path: &str) -> Option<Vec<(String, String)>> {
    let mut captures = Vec::new();
    walk(pattern.as_bytes(), path.as_bytes(), &mut captures).then_some(captures)
}

fn walk(pattern: &[u8], path: &[u8], captures: &mut Vec<(String, String)>) -> bool {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match pattern.first() {
        None => path.is_empty(),
        Some(b'*') => (0..=path.len()).rev().any(|n| {
            let mark = captures.len();
            captures.push(("splat".into(), text(&path[..n])));
            walk(&pattern[1..], &path[n..], captures) || {
                captures.truncate(mark);
                false
            }
        }),
        Some(b':') if pattern.get(1).is_some_and(u8::is_ascii_alphabetic) => {
            let name_len = pattern[1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            let segment = path.iter().take_while(|b| **b != b'/').count();
            if segment == 0 {
                return false;
            }
            captures.push((text(&pattern[1..1 + name_len]), text(&path[..segment])));
            walk(&pattern[1 + name_len..], &path[segment..], captures)
        }
        Some(&b) => path.first() == Some(&b) && walk(&pattern[1..], &path[1..], captures),
    }
}

/// `template` with each `:name` it holds replaced by that capture.
fn substitute(template: &str, captures: &[(String, String)]) -> String {
    let mut out = template.to_string();
    // Longest names first, so `:id` does not eat the start of `:identity`.
    let mut by_length: Vec<&(String, String)> = captures.iter().collect();
    by_length.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    for (name, value) in by_length {
        out = out.replace(&format!(":{name}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_splats_and_placeholders() {
        assert_eq!(matches("/a", "/a"), Some(vec![]));
        assert_eq!(matches("/a", "/ab"), None);
        assert_eq!(
            matches("/blog/*", "/blog/2024/post"),
            Some(vec![("splat".into(), "2024/post".into())])
        );
        assert_eq!(
            matches("/u/:id/edit", "/u/42/edit"),
            Some(vec![("id".into(), "42".into())])
        );
        assert_eq!(matches("/u/:id/edit", "/u/4/2/edit"), None);
        assert_eq!(matches("/u/:id", "/u/"), None);
    }

    #[test]
    fn redirects_substitute_captures_and_headers_apply_in_order() {
        let config = AppConfig {
            redirects: vec![Redirect {
                from: "/old/:id/*".into(),
                to: "/new/:id?rest=:splat".into(),
                status: 301,
            }],
            headers: vec![
                HeaderRule {
                    pattern: "/_app/*".into(),
                    unset: vec![],
                    set: vec![("cache-control".into(), "no-cache".into())],
                },
                HeaderRule {
                    pattern: "/_app/immutable/*".into(),
                    unset: vec!["cache-control".into()],
                    set: vec![("cache-control".into(), "immutable".into())],
                },
            ],
            ..AppConfig::default()
        };
        config.check().unwrap();
        assert_eq!(
            config.redirect("/old/7/a/b"),
            Some((301, "/new/7?rest=a/b".into()))
        );
        assert_eq!(config.redirect("/other"), None);
        assert_eq!(
            config.header_changes("/_app/immutable/x.js"),
            vec![
                ("cache-control", Some("no-cache".into())),
                ("cache-control", None),
                ("cache-control", Some("immutable".into())),
            ]
        );
    }

    #[test]
    fn a_section_that_no_build_writes_is_refused() {
        let bad = AppConfig {
            redirects: vec![Redirect {
                from: "old".into(),
                to: "/new".into(),
                status: 301,
            }],
            ..AppConfig::default()
        };
        assert!(bad.check().is_err());
        let bad = AppConfig {
            redirects: vec![Redirect {
                from: "/old".into(),
                to: "/new".into(),
                status: 200,
            }],
            ..AppConfig::default()
        };
        assert!(bad.check().is_err());
        for pattern in ["/a/*/b/*", "/u/x:id", "/u/:id.json", "no-slash"] {
            assert!(check_pattern(pattern).is_err(), "{pattern}");
        }
        assert!(check_pattern("/u/:id/*").is_ok());
    }
}
