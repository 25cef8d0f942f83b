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

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

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
    /// `redirects` indexed, made on first use: a request costs one look-up
    /// for the exact rules and a pass over the dynamic ones alone, not a
    /// visit to every rule.
    #[serde(skip)]
    pub index: RedirectIndex,
    /// Bindings its config declares that `ssr` does not provide, by name,
    /// with their kind ("Queue"): touching one throws, naming it.
    pub missing: BTreeMap<String, String>,
    /// KV namespaces its config binds (`kv_namespaces`): the name in
    /// `env`, to the namespace's id (its `id`, else the name). Kept per
    /// tenant (`bindings/`).
    pub kv_namespaces: BTreeMap<String, String>,
    /// D1 databases its config binds (`d1_databases`): the name in `env`,
    /// to the database's id (its `database_id`, else its
    /// `database_name`, else the name).
    pub d1_databases: BTreeMap<String, String>,
    /// R2 buckets its config binds (`r2_buckets`): the name in `env`, to
    /// the bucket's name (its `bucket_name`, else the name).
    pub r2_buckets: BTreeMap<String, String>,
    /// Its cron triggers (`triggers.crons`), each checked by `cron::parse`
    /// when built: the `scheduled` handler runs at each.
    pub crons: Vec<String>,
    /// Service bindings its config declares (`services`): the name in
    /// `env`, to the Worker (tenant) it reaches; the app's own `name` is
    /// itself.
    pub services: BTreeMap<String, String>,
    /// The services bound to a named entrypoint (a service's
    /// `entrypoint`): the name in `env`, to the class's export name, whose
    /// methods RPC calls reach; the others reach the default export.
    pub service_entrypoints: BTreeMap<String, String>,
    /// Durable Object namespaces its config binds
    /// (`durable_objects.bindings`): the name in `env`, to the class (its
    /// `class_name`, an export of the Worker's own module).
    pub durable_objects: BTreeMap<String, String>,
    /// Its prelude reads a request body that goes on past the tenant's
    /// `max_request_kib` as it arrives (`web/upload.rs`). Every build
    /// since says so; a plugin built before gets its body whole, up to
    /// `max_request_kib`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub streamed_requests: bool,
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
            index: RedirectIndex::default(),
            missing: BTreeMap::new(),
            kv_namespaces: BTreeMap::new(),
            d1_databases: BTreeMap::new(),
            r2_buckets: BTreeMap::new(),
            crons: Vec::new(),
            services: BTreeMap::new(),
            service_entrypoints: BTreeMap::new(),
            durable_objects: BTreeMap::new(),
            streamed_requests: false,
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
        let dynamic = self
            .redirects
            .iter()
            .filter(|r| is_dynamic(&r.from))
            .count();
        if self.headers.len() > MAX_HEADER_RULES
            || self.redirects.len() > MAX_REDIRECTS
            || dynamic > MAX_DYNAMIC_REDIRECTS
        {
            return Err(format!(
                "more than {MAX_HEADER_RULES} header rules, {MAX_REDIRECTS} redirects, or {MAX_DYNAMIC_REDIRECTS} redirects with `*` or `:placeholder` (Workers' limits)"
            ));
        }
        let mut lines = 0;
        for rule in &self.headers {
            check_pattern(&rule.pattern)?;
            lines += rule.unset.len() + rule.set.len();
            let names = rule.unset.iter().chain(rule.set.iter().map(|(n, _)| n));
            for name in names {
                if crate::framing::is_framing(name) {
                    return Err(format!(
                        "the rule for {:?} sets `{name}`, which frames the response or its connection: only the server writes it; remove that line",
                        rule.pattern
                    ));
                }
            }
            if let Some((name, _)) = rule
                .set
                .iter()
                .find(|(n, v)| n.len() + v.len() > MAX_HEADER_LINE)
            {
                return Err(format!(
                    "the rule for {:?} sets `{name}` to a value over {MAX_HEADER_LINE} bytes",
                    rule.pattern
                ));
            }
        }
        if lines > MAX_HEADER_LINES {
            return Err(format!(
                "the header rules have {lines} lines, over the limit of {MAX_HEADER_LINES}"
            ));
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
    /// The first matching rule wins: the exact rules are one look-up, and
    /// only the (at most [`MAX_DYNAMIC_REDIRECTS`]) rules with `*` or
    /// `:placeholder` before it are matched, each in one pass over the
    /// path ([`matches`]). A location whose captures would make it over
    /// [`MAX_SUBSTITUTED`] bytes is no redirect.
    pub fn redirect(&self, path: &str) -> Option<(u16, String)> {
        let index = self.index.0.get_or_init(|| {
            let mut index = Indexed::default();
            for (i, r) in self.redirects.iter().enumerate() {
                match is_dynamic(&r.from) {
                    true => index.dynamic.push(i),
                    false => {
                        index.exact.entry(r.from.clone()).or_insert(i);
                    }
                }
            }
            index
        });
        let first_exact = index.exact.get(path).copied();
        let before = first_exact.unwrap_or(self.redirects.len());
        let (rule, captures) = index
            .dynamic
            .iter()
            .take_while(|i| **i < before)
            .map(|i| &self.redirects[*i])
            .find_map(|r| Some((r, matches(&r.from, path)?)))
            .or_else(|| Some((&self.redirects[first_exact?], Vec::new())))?;
        let to = substitute(&rule.to, &captures)?;
        Some((rule.status, one_leading_slash(to)))
    }

    /// The `_headers` changes for `path`, in rule order: each is a header
    /// to remove (`None`) or a value to set. A value whose captures would
    /// make it over [`MAX_SUBSTITUTED`] bytes is left out, and so is every
    /// value past [`MAX_HEADER_BYTES`] in all: the work per request is
    /// bounded by the rules' count and those bytes, not by the path.
    pub fn header_changes(&self, path: &str) -> Vec<(&str, Option<String>)> {
        let mut out = Vec::new();
        let mut bytes = 0;
        for rule in &self.headers {
            let Some(captures) = matches(&rule.pattern, path) else {
                continue;
            };
            out.extend(rule.unset.iter().map(|n| (n.as_str(), None)));
            for (name, template) in &rule.set {
                let Some(value) = substitute(template, &captures) else {
                    continue;
                };
                bytes += name.len() + value.len();
                if bytes > MAX_HEADER_BYTES {
                    return out;
                }
                out.push((name.as_str(), Some(value)));
            }
        }
        out
    }
}

/// [`AppConfig::redirects`]' index: made from them, so every config is
/// equal to another whatever their indexes hold.
#[derive(Clone, Debug, Default)]
pub struct RedirectIndex(OnceLock<Indexed>);

/// The exact rules by path (the first of each), and the places of the
/// dynamic ones, in order.
#[derive(Clone, Debug, Default)]
struct Indexed {
    exact: HashMap<String, usize>,
    dynamic: Vec<usize>,
}

impl PartialEq for RedirectIndex {
    fn eq(&self, _: &RedirectIndex) -> bool {
        true
    }
}

/// Whether a rule's pattern has a `*` or a `:placeholder`.
fn is_dynamic(pattern: &str) -> bool {
    pattern.contains(['*', ':'])
}

/// A location that is a path starts with one `/`: `//host` (or `/\host`,
/// which browsers read the same) would send the visitor off the site, as a
/// splat of `/r//evil.example` would make `/:splat` do.
fn one_leading_slash(location: String) -> String {
    match location.strip_prefix('/') {
        Some(rest) if rest.starts_with(['/', '\\']) => {
            format!("/{}", rest.trim_start_matches(['/', '\\']))
        }
        _ => location,
    }
}

/// The statuses a `_redirects` rule may give.
pub const REDIRECT_STATUSES: &[u16] = &[301, 302, 303, 307, 308];

/// Rules one app may have, as Workers allows (2,000 exact redirects and
/// 100 with `*` or `:placeholder`; 100 header rules). A request is matched
/// on the host's threads against the header rules and the dynamic
/// redirects, each in one pass, and looks the exact redirects up.
pub const MAX_HEADER_RULES: usize = 100;
pub const MAX_REDIRECTS: usize = 2100;
pub const MAX_DYNAMIC_REDIRECTS: usize = 100;
/// `_headers` lines (headers set or removed) in all rules together.
pub const MAX_HEADER_LINES: usize = 1000;
/// One `_headers` line, name and value (Workers' limit for a line).
pub const MAX_HEADER_LINE: usize = 2000;
/// A header value or location once its captures are put in.
pub const MAX_SUBSTITUTED: usize = 8 << 10;
/// What the header rules may add to one response, names and values.
pub const MAX_HEADER_BYTES: usize = 64 << 10;

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
///
/// One pass, no backtracking: the part before the `*` is matched from the
/// start, the part after it from the end. A `:name` is a whole segment, so
/// where it ends (forwards) or starts (backwards) is the next `/`: each
/// part matches in one way at most, and the splat is what lies between.
pub fn matches(pattern: &str, path: &str) -> Option<Vec<(String, String)>> {
    let path = path.as_bytes();
    let mut captures = Vec::new();
    let Some((head, tail)) = pattern.split_once('*') else {
        let end = forwards(&tokens(pattern), path, &mut captures)?;
        return (end == path.len()).then_some(captures);
    };
    let start = forwards(&tokens(head), path, &mut captures)?;
    let mut after = Vec::new();
    let end = backwards(&tokens(tail), path, start, &mut after)?;
    captures.push(("splat".into(), text(&path[start..end])));
    captures.extend(after.into_iter().rev());
    Some(captures)
}

/// A pattern's parts between `*`s: literal bytes and `:name`s.
enum Token<'a> {
    Literal(&'a [u8]),
    Name(&'a [u8]),
}

fn tokens(pattern: &str) -> Vec<Token<'_>> {
    let p = pattern.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut literal) = (0, 0);
    while i < p.len() {
        if p[i] == b':' && p.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            if literal < i {
                out.push(Token::Literal(&p[literal..i]));
            }
            let len = p[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            out.push(Token::Name(&p[i + 1..i + 1 + len]));
            i += 1 + len;
            literal = i;
        } else {
            i += 1;
        }
    }
    if literal < p.len() {
        out.push(Token::Literal(&p[literal..]));
    }
    out
}

/// Matches `tokens` at the start of `path`: where the match ends.
fn forwards(tokens: &[Token], path: &[u8], captures: &mut Vec<(String, String)>) -> Option<usize> {
    let mut at = 0;
    for token in tokens {
        match token {
            Token::Literal(l) => {
                if !path[at..].starts_with(l) {
                    return None;
                }
                at += l.len();
            }
            Token::Name(name) => {
                let segment = path[at..].iter().take_while(|b| **b != b'/').count();
                if segment == 0 {
                    return None;
                }
                captures.push((text(name), text(&path[at..at + segment])));
                at += segment;
            }
        }
    }
    Some(at)
}

/// Matches `tokens` at the end of `path`, not before `floor`: where the
/// match starts. Captures come last first.
fn backwards(
    tokens: &[Token],
    path: &[u8],
    floor: usize,
    captures: &mut Vec<(String, String)>,
) -> Option<usize> {
    let mut at = path.len();
    for token in tokens.iter().rev() {
        match token {
            Token::Literal(l) => {
                if at - floor < l.len() || !path[..at].ends_with(l) {
                    return None;
                }
                at -= l.len();
            }
            Token::Name(name) => {
                let segment = path[floor..at]
                    .iter()
                    .rev()
                    .take_while(|b| **b != b'/')
                    .count();
                if segment == 0 {
                    return None;
                }
                captures.push((text(name), text(&path[at - segment..at])));
                at -= segment;
            }
        }
    }
    Some(at)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `template` with each `:name` it holds replaced by that capture (the
/// longest name that fits, so `:id` does not eat the start of
/// `:identity`), in one pass: a capture's own text is never read for
/// names. `None` when the result would be over [`MAX_SUBSTITUTED`] bytes.
fn substitute(template: &str, captures: &[(String, String)]) -> Option<String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(colon) = rest.find(':') {
        out.push_str(&rest[..colon]);
        let after = &rest[colon + 1..];
        let capture = captures
            .iter()
            .filter(|(name, _)| after.starts_with(name.as_str()))
            .max_by_key(|(name, _)| name.len());
        match capture {
            Some((name, value)) => {
                out.push_str(value);
                rest = &after[name.len()..];
            }
            None => {
                out.push(':');
                rest = after;
            }
        }
        if out.len() > MAX_SUBSTITUTED {
            return None;
        }
    }
    out.push_str(rest);
    (out.len() <= MAX_SUBSTITUTED).then_some(out)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

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
        // After the `*`: matched from the end, the splat between.
        assert_eq!(
            matches("/a/*/:id/end", "/a/x/y/42/end"),
            Some(vec![
                ("splat".into(), "x/y".into()),
                ("id".into(), "42".into())
            ])
        );
        assert_eq!(
            matches("/a/*/:id/end", "/a//42/end"),
            Some(vec![
                ("splat".into(), "".into()),
                ("id".into(), "42".into())
            ])
        );
        assert_eq!(matches("/a/*/:id/end", "/a/42/end"), None);
        assert_eq!(
            matches("/*.html", "/x/y.html"),
            Some(vec![("splat".into(), "x/y".into())])
        );
        assert_eq!(matches("/ab*ba", "/aba"), None);
        assert_eq!(
            matches("/ab*ba", "/abba"),
            Some(vec![("splat".into(), "".into())])
        );
    }

    fn substitution_is_one_pass_and_bounded() {
        let captures = vec![
            ("id".to_string(), ":idx".to_string()),
            ("identity".to_string(), "me".to_string()),
        ];
        // A capture's own text is never read for names.
        assert_eq!(
            substitute("/u/:id/:identity/:other", &captures).as_deref(),
            Some("/u/:idx/me/:other")
        );
        let long = vec![("splat".to_string(), "x".repeat(MAX_SUBSTITUTED))];
        assert_eq!(substitute("/:splat", &long), None);
        assert_eq!(one_leading_slash("//evil.example".into()), "/evil.example");
        assert_eq!(one_leading_slash("/\\\\evil".into()), "/evil");
        assert_eq!(
            one_leading_slash("https://a.test/".into()),
            "https://a.test/"
        );
    }

    fn the_first_matching_redirect_wins_exact_or_not() {
        let rule = |from: &str, to: &str| Redirect {
            from: from.into(),
            to: to.into(),
            status: 301,
        };
        let config = AppConfig {
            redirects: vec![
                rule("/a/*", "/dynamic"),
                rule("/a/b", "/exact"),
                rule("/c", "/exact-c"),
                rule("/c", "/second-c"),
                rule("/:x", "/any"),
            ],
            ..AppConfig::default()
        };
        config.check().unwrap();
        let to = |p: &str| config.redirect(p).map(|(_, to)| to);
        assert_eq!(to("/a/b").as_deref(), Some("/dynamic"));
        assert_eq!(to("/c").as_deref(), Some("/exact-c"));
        assert_eq!(to("/d").as_deref(), Some("/any"));
        assert_eq!(to("/d/e"), None);
    }

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

    crate::unit_tests!(
        patterns_match_splats_and_placeholders,
        substitution_is_one_pass_and_bounded,
        the_first_matching_redirect_wins_exact_or_not,
        redirects_substitute_captures_and_headers_apply_in_order,
        a_section_that_no_build_writes_is_refused
    );
}
