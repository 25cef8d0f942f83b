//! Node's built-in modules, as `ssr build` gives them to a bundle: every
//! one that `workerd` has, with the export names `workerd` has.
//!
//! What `workerd` exports is data, not code: `node/workerd.json`, written by
//! `benches/node-exports.sh` from a running `workerd` (each module's export
//! names and kinds, the values that are plain data, and the error a
//! function throws where `workerd` does not implement it). A module is
//! made of two parts ([`module_source`]):
//! - what `ssr` implements, by hand, in `node/FILE.js` ([`OURS`]; `FILE` is
//!   the name with `/` as `-`: `node/timers-promises.js`);
//! - the rest of `workerd`'s names, made here from the data: a function or
//!   class that throws the error `workerd` throws (`ERR_METHOD_NOT_IMPLEMENTED`
//!   where it says it is not implemented; where `workerd` implements it and
//!   `ssr` does not yet, an error that says so), and plain data as it is.
//!
//! Invariants:
//! - every module names exactly `workerd`'s exports, no more
//!   (`tests/all/node_modules.rs` checks all of them on both engines);
//! - nothing here reaches the host: the modules run in the tenant's
//!   sandbox and use only what the prelude gives them;
//! - an export name is checked to be an identifier before it is written
//!   into a module, so the data cannot inject code.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::Deserialize;

/// The modules `ssr` implements (in part or whole), by name, with their
/// sources. Each may import the others as `./FILE.js`.
pub const OURS: &[(&str, &str)] = &[
    ("_http_agent", include_str!("node/_http_agent.js")),
    ("_http_client", include_str!("node/_http_client.js")),
    ("_http_common", include_str!("node/_http_common.js")),
    ("_http_incoming", include_str!("node/_http_incoming.js")),
    ("_http_outgoing", include_str!("node/_http_outgoing.js")),
    ("_http_server", include_str!("node/_http_server.js")),
    ("_stream_duplex", include_str!("node/_stream_duplex.js")),
    (
        "_stream_passthrough",
        include_str!("node/_stream_passthrough.js"),
    ),
    ("_stream_readable", include_str!("node/_stream_readable.js")),
    (
        "_stream_transform",
        include_str!("node/_stream_transform.js"),
    ),
    ("_stream_writable", include_str!("node/_stream_writable.js")),
    ("_tls_common", include_str!("node/_tls_common.js")),
    ("_tls_wrap", include_str!("node/_tls_wrap.js")),
    ("assert", include_str!("node/assert.js")),
    ("assert/strict", include_str!("node/assert-strict.js")),
    ("async_hooks", include_str!("node/async_hooks.js")),
    ("buffer", include_str!("node/buffer.js")),
    ("child_process", include_str!("node/child_process.js")),
    ("cluster", include_str!("node/cluster.js")),
    ("console", include_str!("node/console.js")),
    ("crypto", include_str!("node/crypto.js")),
    ("dgram", include_str!("node/dgram.js")),
    (
        "diagnostics_channel",
        include_str!("node/diagnostics_channel.js"),
    ),
    ("dns", include_str!("node/dns.js")),
    ("dns/promises", include_str!("node/dns-promises.js")),
    ("domain", include_str!("node/domain.js")),
    ("events", include_str!("node/events.js")),
    ("fs", include_str!("node/fs.js")),
    ("fs/promises", include_str!("node/fs-promises.js")),
    ("http", include_str!("node/http.js")),
    ("http2", include_str!("node/http2.js")),
    ("https", include_str!("node/https.js")),
    ("inspector", include_str!("node/inspector.js")),
    ("module", include_str!("node/module.js")),
    ("net", include_str!("node/net.js")),
    ("os", include_str!("node/os.js")),
    ("path", include_str!("node/path.js")),
    ("path/posix", include_str!("node/path-posix.js")),
    ("path/win32", include_str!("node/path-win32.js")),
    ("perf_hooks", include_str!("node/perf_hooks.js")),
    ("process", include_str!("node/process.js")),
    ("punycode", include_str!("node/punycode.js")),
    ("querystring", include_str!("node/querystring.js")),
    ("readline", include_str!("node/readline.js")),
    (
        "readline/promises",
        include_str!("node/readline-promises.js"),
    ),
    ("repl", include_str!("node/repl.js")),
    ("sqlite", include_str!("node/sqlite.js")),
    ("stream", include_str!("node/stream.js")),
    ("stream/consumers", include_str!("node/stream-consumers.js")),
    ("stream/promises", include_str!("node/stream-promises.js")),
    ("stream/web", include_str!("node/stream-web.js")),
    ("string_decoder", include_str!("node/string_decoder.js")),
    ("sys", include_str!("node/sys.js")),
    ("test", include_str!("node/test.js")),
    ("timers", include_str!("node/timers.js")),
    ("timers/promises", include_str!("node/timers-promises.js")),
    ("tls", include_str!("node/tls.js")),
    ("trace_events", include_str!("node/trace_events.js")),
    ("tty", include_str!("node/tty.js")),
    ("url", include_str!("node/url.js")),
    ("util", include_str!("node/util.js")),
    ("util/types", include_str!("node/util-types.js")),
    ("v8", include_str!("node/v8.js")),
    ("vm", include_str!("node/vm.js")),
    ("wasi", include_str!("node/wasi.js")),
    ("worker_threads", include_str!("node/worker_threads.js")),
    ("zlib", include_str!("node/zlib.js")),
];

/// The helpers beside the modules: what the made parts import (the error a
/// function that is not implemented throws), and Node's argument errors,
/// deep equality, MIME types and the servers that listen, which our parts
/// (and `cloudflare:node`) import.
const HELPERS: &[(&str, &str)] = &[
    ("_stubs.js", include_str!("node/_stubs.js")),
    ("_errors.js", include_str!("node/_errors.js")),
    ("_comparisons.js", include_str!("node/_comparisons.js")),
    ("_mime.js", include_str!("node/_mime.js")),
    ("_serving.js", include_str!("node/_serving.js")),
    ("_crypto_keys.js", include_str!("node/_crypto_keys.js")),
    ("_crypto_sign.js", include_str!("node/_crypto_sign.js")),
    ("_crypto_cipher.js", include_str!("node/_crypto_cipher.js")),
    ("_crypto_dh.js", include_str!("node/_crypto_dh.js")),
    ("_crypto_x509.js", include_str!("node/_crypto_x509.js")),
    ("_dns.js", include_str!("node/_dns.js")),
    ("_glob.js", include_str!("node/_glob.js")),
];

/// `benches/node-exports.sh`'s record of `workerd`.
const WORKERD: &str = include_str!("node/workerd.json");

#[derive(Deserialize)]
struct Facts {
    modules: BTreeMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    exports: BTreeMap<String, Export>,
    default: DefaultExport,
    /// Node has it only as `node:NAME` (`node:test`, `node:sqlite`): the
    /// bare name is left to the app's own packages.
    #[serde(default)]
    prefix_only: bool,
}

#[derive(Deserialize)]
struct Export {
    kind: String,
    #[serde(default)]
    value: Option<serde_json::Value>,
    #[serde(default)]
    throws: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct DefaultExport {
    kind: String,
    keys: Vec<String>,
    /// The keys that are not also named exports, described as those are.
    only: BTreeMap<String, Export>,
    /// Every property is read-only (`node:constants`').
    #[serde(default)]
    readonly: bool,
}

fn facts() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| {
        serde_json::from_str(WORKERD)
            .expect("node/workerd.json is benches/node-exports.sh's output")
    })
}

/// The names of every module a bundle may import as `node:NAME`.
pub fn names() -> impl Iterator<Item = &'static str> {
    facts().modules.keys().map(String::as_str)
}

/// Whether a bundle may import `name` by its bare name too.
pub fn bare(name: &str) -> bool {
    facts().modules.get(name).is_some_and(|m| !m.prefix_only)
}

/// The file a module is written to, beside the others.
pub fn file_of(name: &str) -> String {
    format!("{}.js", name.replace('/', "-"))
}

/// Every file the modules need, as (file name, source): each module, our
/// parts under `ours-FILE.js`, and the helpers.
pub fn files() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = HELPERS
        .iter()
        .map(|(file, source)| ((*file).to_string(), (*source).to_string()))
        .collect();
    for (name, source) in OURS {
        out.push((format!("ours-{}", file_of(name)), (*source).to_string()));
    }
    for name in names() {
        out.push((file_of(name), module_source(name)));
    }
    out
}

/// The module `name` as a bundle sees it: our part re-exported, and the
/// rest of `workerd`'s names made from the data.
fn module_source(name: &str) -> String {
    let module = &facts().modules[name];
    let ours = OURS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s);
    let ours_names = ours.map(exported_names).unwrap_or_default();
    let mut js = format!(
        "// node:{name}, as `ssr build` makes it (host/src/build/node.rs).\nimport {{ stubFunction, stubClass, fill, readOnly, register }} from './_stubs.js';\n"
    );
    let ours_file = format!("./ours-{}", file_of(name));
    if ours.is_some() {
        js += &format!("import * as ours from '{ours_file}';\nexport * from '{ours_file}';\n");
    }
    let mut made = Vec::new();
    for (key, export) in &module.exports {
        if ours_names.contains(key.as_str()) || !is_identifier(key) {
            continue;
        }
        let value = made_value(name, key, export);
        js += &format!("const ${key} = {value};\nexport {{ ${key} as {key} }};\n");
        made.push(key.as_str());
    }
    // The default export: ours, or an object (or a function, where
    // `workerd`'s is one), given the made names `workerd`'s default has
    // where ours has none of its own.
    let base = if ours.is_some() {
        "ours.default ?? {}".to_string()
    } else if module.default.kind == "function" {
        format!(
            "stubFunction('{name}', '{}', null)",
            name.rsplit('/').next().unwrap_or(name)
        )
    } else {
        "{}".to_string()
    };
    let mut keys: Vec<String> = module
        .default
        .keys
        .iter()
        .filter(|k| made.contains(&k.as_str()))
        .map(|k| format!("{k}: ${k}"))
        .collect();
    for (key, export) in &module.default.only {
        if is_identifier(key) {
            keys.push(format!("{key}: {}", made_value(name, key, export)));
        }
    }
    let filled = format!("fill({base}, {{ {} }})", keys.join(", "));
    let filled = if module.default.readonly {
        format!("readOnly({filled})")
    } else {
        filled
    };
    js += &format!(
        "const $default = {filled};\nexport default $default;\nregister('{name}', $default);\n"
    );
    js
}

/// The JavaScript expression for one export `ssr` does not implement.
fn made_value(module: &str, key: &str, export: &Export) -> String {
    let thrown = export
        .throws
        .as_ref()
        .map_or_else(|| "null".to_string(), |t| t.to_string());
    match export.kind.as_str() {
        "function" => format!("stubFunction('{module}', '{key}', {thrown})"),
        "class" => format!("stubClass('{module}', '{key}', {thrown})"),
        "undefined" => "undefined".to_string(),
        "null" => "null".to_string(),
        "symbol" => format!("Symbol('{key}')"),
        // Plain data, as `workerd` has it; an object that is not (a
        // handle, a map of functions) is an empty one.
        _ => match &export.value {
            Some(v) => format!("{v}"),
            None if export.kind == "object" => "{}".to_string(),
            None => "undefined".to_string(),
        },
    }
}

/// The names a hand-written module exports, read from its `export`
/// statements (ours are written so: each starts a line; a list or a
/// destructuring may span lines; no `export *`).
fn exported_names(source: &str) -> BTreeSet<&str> {
    let mut names = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find("export ") {
        let line_start = at == 0 || rest[..at].ends_with('\n');
        let after = &rest[at + "export ".len()..];
        rest = after;
        if !line_start {
            continue;
        }
        let decl = after.trim_start_matches("async ");
        let keyword = [
            "function* ",
            "function ",
            "const ",
            "let ",
            "var ",
            "class ",
        ]
        .into_iter()
        .find(|k| decl.starts_with(k));
        let body = keyword.map_or(decl, |k| &decl[k.len()..]);
        if let Some(list) = body.strip_prefix('{') {
            // `export { a, b as c }` or `export const { a, b: c } = x`.
            let list = list.split('}').next().unwrap_or("");
            for item in list.split(',') {
                let item = item.trim();
                let name = item.rsplit([' ', ':']).next().unwrap_or(item).trim();
                if !name.is_empty() {
                    names.insert(name);
                }
            }
        } else if keyword.is_some() {
            let end = body
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(body.len());
            names.insert(&body[..end]);
        }
    }
    names
}

/// Whether `name` can be written as a binding name (no reserved word is
/// among Node's export names; an odd one is left out, and the names test
/// would say so).
fn is_identifier(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "default", "delete", "function", "class", "new", "return", "this", "var", "let", "const",
        "import", "export", "in", "of", "typeof", "void", "with", "yield", "await", "enum",
    ];
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !RESERVED.contains(&name)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn every_module_of_workerd_is_made_and_ours_are_among_them() {
        // Node's 54 (`module.builtinModules` without the `_` ones), the
        // two it has only as `node:NAME`, and its 14 internal `_` ones,
        // which workerd has as `node:NAME` only.
        assert_eq!(names().count(), 70);
        assert!(!bare("test") && !bare("sqlite") && bare("fs"));
        for (name, _) in OURS {
            assert!(
                facts().modules.contains_key(*name),
                "{name} is not one of workerd's"
            );
        }
        for name in names() {
            assert!(module_source(name).contains("export default"), "{name}");
        }
    }

    fn export_names_are_read_from_each_form_of_export() {
        let names = exported_names(
            "export const a = 1;\nexport function b() {}\nexport async function c() {}\nexport class D {}\nexport { e, f as g };\nexport default a;\n",
        );
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["D", "a", "b", "c", "e", "g"]
        );
    }

    fn a_name_that_is_not_an_identifier_is_never_written() {
        assert!(is_identifier("_debug") && is_identifier("EOL"));
        for bad in ["a'b", "x;alert(1)", "1a", "default", ""] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }

    crate::unit_tests!(
        every_module_of_workerd_is_made_and_ours_are_among_them,
        export_names_are_read_from_each_form_of_export,
        a_name_that_is_not_an_identifier_is_never_written
    );
}
