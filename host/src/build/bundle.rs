//! Step 1 of a build: turn the entry file into one ES module.
//!
//! An entry that imports nothing is used as it is. An entry that imports
//! other modules (JSX, npm packages) is bundled with the esbuild found in the
//! nearest `node_modules/.bin` above the entry (or the working directory),
//! else on `PATH`; without one, the error says exactly how to install it or
//! bundle by hand.
//!
//! Built-in modules: `cloudflare:workers` (`workers.js` beside this file,
//! over the prelude's `workers`) and `cloudflare:sockets` (`sockets.js`,
//! over the prelude's `connect()`) and `cloudflare:node` (`node-servers.js`,
//! over `node:http`'s servers) are resolved by esbuild's `--alias`, so the
//! apps Cloudflare's adapters build import it as they do on Workers. So are
//! Node's built-in modules, every one `workerd` has (`node.rs`), under
//! `node:NAME` and their bare names; a static import of any other `node:`
//! module fails here, naming it. An app whose wrangler config sets `nodejs_compat` also gets
//! the globals `Buffer`, `process` and `global` (esbuild's `--inject`:
//! bundled only where the code names them). A bundle that includes `node:async_hooks`
//! is bundled again for the Wasm engine with async functions lowered to
//! generators, so that an `await` resumes through `then`, which carries
//! AsyncLocalStorage's context there (the prelude's "async context"; V8
//! runs the bundle as it is, with promise hooks).
//!
//! Modules that are not JavaScript import as on Workers, by wrangler's
//! module rules (the app's `rules`, then wrangler's defaults): a Text
//! module (`.txt`, `.html`, `.sql`) is its text, a Data module (`.bin`) an
//! `ArrayBuffer` of its bytes. A CompiledWasm module (`.wasm`) is refused
//! with the reason: `ssr` runs no WebAssembly a site brings.
//!
//! JSX: esbuild compiles it as the nearest `tsconfig.json` or
//! `jsconfig.json` says, or as a `@jsxImportSource` pragma in the file says,
//! or to `React.createElement` by default. `--jsx-import-source` sets the
//! runtime. An entry that gives none of these and does not import React would
//! build and then fail at render time (`React is not defined`), so it is
//! refused here with what to add.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::BuildError;

/// One ES module, ready to evaluate.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// Module name used in stack traces (the entry's file name).
    pub name: String,
    /// What the V8 engine runs; embedded in the plugin.
    pub source: String,
    /// What the Wasm engine runs instead, where it differs: `source` with
    /// async functions lowered (see the module doc).
    pub lowered: Option<String>,
    /// esbuild's source maps of `source` and of `lowered` (none for an entry
    /// used as it is: its lines are the bundle's), their sources relative to
    /// the working directory and without their contents.
    pub maps: SourceMaps,
}

/// The source maps of a bundle, by what each engine runs.
#[derive(Clone, Debug, Default)]
pub struct SourceMaps {
    pub source: Option<String>,
    pub lowered: Option<String>,
}

/// esbuild flags: one ESM file, browser conditions (react-dom/server picks its
/// web-streams build), production mode, a target QuickJS-ng and V8 10.2 both
/// run: ES2022, which keeps a top-level `await` (ES2020 refused it).
pub const ESBUILD_FLAGS: &[&str] = &[
    "--bundle",
    "--format=esm",
    "--platform=browser",
    "--target=es2022",
    "--charset=utf8",
    "--log-level=warning",
    "--define:process.env.NODE_ENV=\"production\"",
    // A map beside the bundle, never named in it, and without the sources'
    // text: a stack is mapped to a file and line (`stack_map.rs`).
    "--sourcemap=external",
    "--sources-content=false",
];

/// Modules the host provides to every bundle: the name imported, a file
/// name for esbuild, and the source.
const BUILTIN_MODULES: &[(&str, &str, &str)] = &[
    (
        "cloudflare:workers",
        "cloudflare-workers.js",
        include_str!("workers.js"),
    ),
    (
        "cloudflare:sockets",
        "cloudflare-sockets.js",
        include_str!("sockets.js"),
    ),
    (
        "cloudflare:node",
        "cloudflare-node.js",
        include_str!("node-servers.js"),
    ),
];

/// The package the Node modules are imported through (see `bundle`).
const NODE_PACKAGE: &str = "ssr-node-modules";

/// What `--inject` adds for `nodejs_compat`: `Buffer`, `process` and
/// `global` (the global object), as the bare names code uses and as
/// properties of the global object (`globalThis.process`), plain writable,
/// enumerable ones, as `workerd` defines them there; and `node:timers`'
/// functions as the global timers (`setTimeout` gives a `Timeout`), as
/// `workerd`'s `enable_nodejs_global_timers` does (on by default).
const NODE_GLOBALS: &str = "import { Buffer } from './buffer.js';\n\
    import process from './process.js';\n\
    import { setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate } from './timers.js';\n\
    const global = globalThis;\n\
    Object.assign(globalThis, { global, process, Buffer, setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate });\n\
    export { Buffer, process, global };\n";

/// esbuild flags that lower async functions and generators to generators
/// driven by `then` (see the module doc). A top-level `await` is kept (the
/// engine runs it; OpenNext's worker awaits its handler there): it runs
/// before any request, so it has no context to carry.
const LOWER_ASYNC: &[&str] = &[
    "--supported:async-await=false",
    "--supported:async-generator=false",
    "--supported:for-await=false",
    "--supported:top-level-await=true",
];

/// How to bundle, beyond the entry.
#[derive(Clone, Debug, Default)]
pub struct BundleOptions {
    /// The package JSX compiles to (`preact`, `react`, `vue`...), with its
    /// automatic runtime (`<pkg>/jsx-runtime`).
    pub jsx_import_source: Option<String>,
    /// Global names replaced by a JSON value (esbuild `--define`), such as
    /// `SSR_CLIENT`; an entry with any is always bundled.
    pub defines: Vec<(String, String)>,
    /// The behaviours the app's compatibility date and flags chose, as a
    /// JSON object, defined as `__SSR_COMPAT__` where the entry is bundled
    /// (the Node modules read it; an entry used as it is has none).
    pub compat: Option<String>,
    /// Node's globals `Buffer` and `process` where the code names them.
    pub node_globals: bool,
    /// How files that are not JavaScript import, first match first (the
    /// app's `rules` and wrangler's defaults: [`module_rules`]); empty is
    /// wrangler's defaults alone.
    pub rules: Vec<ModuleRule>,
}

/// What a module that is not JavaScript imports as, by wrangler's rule
/// types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    /// Its text, as a string.
    Text,
    /// Its bytes, as an `ArrayBuffer`.
    Data,
    /// A `WebAssembly.Module`: refused (see the module doc).
    CompiledWasm,
}

/// Files whose names end `.{extension}` import as `kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleRule {
    pub kind: ModuleKind,
    pub extension: String,
}

/// Wrangler's default rules (`DEFAULT_MODULE_RULES` in `workers-sdk`),
/// which follow an app's own.
const DEFAULT_RULES: &[(ModuleKind, &[&str])] = &[
    (ModuleKind::Text, &["txt", "html", "sql"]),
    (ModuleKind::Data, &["bin"]),
    (ModuleKind::CompiledWasm, &["wasm"]),
];

/// An app's own rules, then the defaults, as wrangler merges them: a rule
/// of the app's without `fallthrough` removes the default of its kind.
pub fn module_rules(mut rules: Vec<ModuleRule>, falls_through: &[ModuleKind]) -> Vec<ModuleRule> {
    let replaced: Vec<ModuleKind> = rules
        .iter()
        .map(|r| r.kind)
        .filter(|kind| !falls_through.contains(kind))
        .collect();
    for (kind, extensions) in DEFAULT_RULES {
        if !replaced.contains(kind) {
            rules.extend(extensions.iter().map(|e| ModuleRule {
                kind: *kind,
                extension: (*e).into(),
            }));
        }
    }
    rules
}

/// esbuild's loader flags for `rules`, the first rule for an extension
/// winning; CompiledWasm gets none, so that esbuild stops at such an
/// import and [`unloaded`] says why.
fn loader_flags(rules: &[ModuleRule]) -> Vec<String> {
    let mut seen = Vec::new();
    let mut flags = Vec::new();
    for rule in rules {
        if seen.contains(&rule.extension) {
            continue;
        }
        seen.push(rule.extension.clone());
        let loader = match rule.kind {
            ModuleKind::Text => "text",
            ModuleKind::Data => "binary",
            ModuleKind::CompiledWasm => continue,
        };
        flags.push(format!("--loader:.{}={loader}", rule.extension));
    }
    flags
}

/// The error for esbuild's `No loader is configured for ".EXT" files`, a
/// line for each extension: WebAssembly refused, or no rule for it.
fn unloaded(stderr: &str, rules: &[ModuleRule]) -> Option<String> {
    let mut extensions: Vec<&str> = Vec::new();
    for part in stderr.split("No loader is configured for \".").skip(1) {
        if let Some((extension, _)) = part.split_once('"')
            && !extensions.contains(&extension)
        {
            extensions.push(extension);
        }
    }
    extensions.sort_unstable();
    let lines: Vec<String> = extensions
        .iter()
        .map(|extension| {
            let rule = rules.iter().find(|r| r.extension == *extension);
            match rule.map(|r| r.kind) {
                Some(ModuleKind::CompiledWasm) => format!(
                    "it imports a WebAssembly module (a .{extension} file, a CompiledWasm module on Workers): ssr runs no WebAssembly a site brings (docs/security.md), so an app that needs one cannot run on ssr"
                ),
                _ => format!(
                    "it imports a .{extension} file, and no module rule says how: add one to the wrangler config's `rules`, as on Workers: {{ \"type\": \"Text\", \"globs\": [\"**/*.{extension}\"] }} (or \"Data\" for its bytes)"
                ),
            }
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// esbuild's binary loader gives a `Uint8Array`; a Data module is an
/// `ArrayBuffer` on Workers. The loader's one helper, `__toBinary`, is
/// wrapped to give its array's buffer (a fresh one, exactly the bytes), on
/// the helper's own line so that the source map still holds.
fn data_as_array_buffers(bundle: String) -> String {
    const HELPER: &str = "var __toBinary = ";
    match bundle.find(HELPER) {
        Some(at) if at == 0 || bundle.as_bytes()[at - 1] == b'\n' => {
            let wrapped = "var __toBinary = (b) => __ssrBytes(b).buffer, __ssrBytes = ";
            format!("{}{wrapped}{}", &bundle[..at], &bundle[at + HELPER.len()..])
        }
        _ => bundle,
    }
}

pub fn bundle(entry: &Path, options: &BundleOptions) -> Result<Bundle, BuildError> {
    let source = std::fs::read_to_string(entry).map_err(|source| BuildError::ReadEntry {
        path: entry.to_path_buf(),
        source,
    })?;
    let name = entry
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle.js".into());
    let is_plain_js = matches!(
        entry.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs")
    );
    if is_plain_js && !has_imports(&source) && options.defines.is_empty() && !options.node_globals {
        let maps = SourceMaps {
            source: plain_map(entry, &name),
            lowered: None,
        };
        return Ok(Bundle {
            name,
            source,
            lowered: None,
            maps,
        });
    }
    let mut flags = jsx_flags(entry, &source, options.jsx_import_source.as_deref())?;
    flags.extend(
        options
            .defines
            .iter()
            .map(|(name, value)| format!("--define:{name}={value}")),
    );
    flags.extend(
        options
            .compat
            .iter()
            .map(|chosen| format!("--define:__SSR_COMPAT__={chosen}")),
    );
    let Some(esbuild) = find_esbuild(entry) else {
        return Err(no_esbuild(entry));
    };
    // esbuild reads a built-in module from a file: it lives as long as
    // this call.
    let builtins = tempfile::tempdir().map_err(|source| BuildError::RunBundler {
        path: esbuild.clone(),
        source,
    })?;
    let write = |file: &str, source: &str| {
        let path = builtins.path().join(file);
        std::fs::write(&path, source)
            .map(|()| path.clone())
            .map_err(|source| BuildError::RunBundler { path, source })
    };
    for (name, file, source) in BUILTIN_MODULES {
        let path = write(file, source)?;
        flags.push(format!("--alias:{name}={}", path.display()));
    }
    // Beside `cloudflare-workers.js`: the Node modules import each other
    // as `./FILE.js`. An exact alias wins over a shorter one, so
    // `node:util/types` is its own module, not a path under `node:util`.
    for (file, source) in super::node::files() {
        write(&file, &source)?;
    }
    // Each is imported through the package [`NODE_PACKAGE`] (found by
    // `NODE_PATH`), whose conditions give `require()` the module's default
    // export, as wrangler's bundle gives it on `workerd`: a plain object,
    // which code written for Node may patch (Next.js sets
    // `require('node:timers').setImmediate`). An import gets the module.
    let package = builtins.path().join(NODE_PACKAGE);
    std::fs::create_dir_all(&package).map_err(|source| BuildError::RunBundler {
        path: package.clone(),
        source,
    })?;
    let mut exports = Vec::new();
    for name in super::node::names() {
        let file = super::node::file_of(name);
        let stem = file.trim_end_matches(".js");
        write(
            &format!("{NODE_PACKAGE}/{stem}.mjs"),
            &format!("export * from '../{file}';\nexport {{ default }} from '../{file}';\n"),
        )?;
        write(
            &format!("{NODE_PACKAGE}/{stem}.cjs"),
            &format!("module.exports = require('../{file}').default;\n"),
        )?;
        // Conditions in order, `require` first: the first that applies wins.
        exports.push(format!(
            "\"./{name}\": {{ \"require\": \"./{stem}.cjs\", \"default\": \"./{stem}.mjs\" }}"
        ));
        flags.push(format!("--alias:node:{name}={NODE_PACKAGE}/{name}"));
        if super::node::bare(name) {
            flags.push(format!("--alias:{name}={NODE_PACKAGE}/{name}"));
        }
    }
    let manifest = format!(
        "{{ \"name\": \"{NODE_PACKAGE}\", \"exports\": {{ {} }} }}",
        exports.join(", ")
    );
    write(&format!("{NODE_PACKAGE}/package.json"), &manifest)?;
    let rules = match options.rules.is_empty() {
        true => module_rules(Vec::new(), &[]),
        false => options.rules.clone(),
    };
    flags.extend(loader_flags(&rules));
    if options.node_globals {
        let path = write("node-globals.js", NODE_GLOBALS)?;
        flags.push(format!("--inject:{}", path.display()));
    }
    // The metafile says what went in; esbuild writes one only with the
    // bundle in a file.
    let meta = builtins.path().join("meta.json");
    let outfile = builtins.path().join("bundle.mjs");
    flags.push(format!("--metafile={}", meta.display()));
    flags.push(format!("--outfile={}", outfile.display()));
    let run = |input: &Path, extra: &[&str]| {
        run_esbuild(
            Command::new(&esbuild)
                .env("NODE_PATH", builtins.path())
                .arg(input)
                .args(ESBUILD_FLAGS)
                .args(&flags)
                .args(extra),
            &esbuild,
            entry,
        )
        .map_err(|e| match e {
            BuildError::Bundler { path, stderr } => match unloaded(&stderr, &rules) {
                Some(why) => BuildError::Bundler {
                    path,
                    stderr: format!("{why}\n\n{stderr}"),
                },
                None => BuildError::Bundler { path, stderr },
            },
            other => other,
        })?;
        let bundle = std::fs::read_to_string(&outfile).map_err(|_| BuildError::Bundler {
            path: entry.to_path_buf(),
            stderr: format!("esbuild wrote no UTF-8 bundle at {}", outfile.display()),
        })?;
        let bundle = data_as_array_buffers(bundle);
        let map = std::fs::read_to_string(builtins.path().join("bundle.mjs.map"))
            .ok()
            .and_then(|map| relative_sources(&map, builtins.path(), &name));
        Ok::<_, BuildError>((bundle, map))
    };
    let (source, map) = run(entry, &[])?;
    let (lowered, lowered_map) = match bundles(&meta, builtins.path(), "async_hooks.js") {
        true => {
            let (lowered, map) = match run(entry, LOWER_ASYNC) {
                Err(BuildError::Bundler { stderr, .. })
                    if stderr.contains("Top-level await is not available") =>
                {
                    lower_top_level(&source, builtins.path(), |input| run(input, LOWER_ASYNC))?
                }
                other => other?,
            };
            (Some(lowered), map)
        }
        false => (None, None),
    };
    Ok(Bundle {
        name,
        source,
        lowered,
        maps: SourceMaps {
            source: map,
            lowered: lowered_map,
        },
    })
}

/// The name of the async function [`lower_top_level`] runs a bundle's body in.
const BODY: &str = "__ssr_module_body";

/// `bundle` (esbuild's output, its map beside it in `dir`) lowered by
/// `lower`, for a module with a top-level `await`, which esbuild refuses to
/// lower: its body becomes an async function (on its first line, so that
/// the map still fits), which `lower` lowers with the rest, and the module
/// awaits it at its top, which the engine runs, and exports what it
/// returns. An error where the bundle is not as esbuild writes one (a
/// last `export { … };` clause and no `import` left).
fn lower_top_level(
    bundle: &str,
    dir: &Path,
    lower: impl Fn(&Path) -> Result<(String, Option<String>), BuildError>,
) -> Result<(String, Option<String>), BuildError> {
    let refused = |why: &str| BuildError::Bundler {
        path: dir.join("bundle.mjs"),
        stderr: format!("cannot lower the bundle's top-level await for the Wasm engine: {why}"),
    };
    let (body, exports) = export_clause(bundle)
        .ok_or_else(|| refused("esbuild's bundle ends with no export clause"))?;
    if body.lines().any(|l| l.starts_with("import ")) {
        return Err(refused("the bundle still imports a module"));
    }
    // An exported name as a string literal (esbuild quotes those that are
    // not identifiers already).
    let key = |name: &str| match name.starts_with('"') {
        true => name.to_string(),
        false => format!("{name:?}"),
    };
    let returned: Vec<String> = exports
        .iter()
        .map(|(local, name)| format!("{}: {local}", key(name)))
        .collect();
    let wrapped = dir.join("wrapped.mjs");
    let io = |source| BuildError::RunBundler {
        path: wrapped.clone(),
        source,
    };
    std::fs::copy(dir.join("bundle.mjs.map"), dir.join("wrapped.mjs.map")).map_err(io)?;
    let text = format!(
        "export async function {BODY}() {{{body}\nreturn {{ {} }};\n}}\n//# sourceMappingURL=wrapped.mjs.map\n",
        returned.join(", ")
    );
    std::fs::write(&wrapped, text).map_err(io)?;
    let (lowered, map) = lower(&wrapped)?;
    let (lowered, _) = export_clause(&lowered)
        .ok_or_else(|| refused("the lowered bundle ends with no export clause"))?;
    let mut module = format!("{lowered}\nconst {BODY}_exports = await {BODY}();\n");
    let mut clause = Vec::new();
    for (i, (_, name)) in exports.iter().enumerate() {
        let key = key(name);
        module.push_str(&format!("const {BODY}_{i} = {BODY}_exports[{key}];\n"));
        clause.push(format!("{BODY}_{i} as {name}"));
    }
    module.push_str(&format!("export {{ {} }};\n", clause.join(", ")));
    Ok((module, map))
}

/// `bundle` split before its last `export { … };` clause (the end of an
/// esbuild bundle), and the clause's (local, exported) names.
fn export_clause(bundle: &str) -> Option<(&str, Vec<(String, String)>)> {
    let at = bundle.rfind("\nexport {")?;
    let inner = &bundle[at + "\nexport {".len()..];
    let close = inner.find("};")?;
    if !inner[close + 2..].trim().is_empty() {
        return None;
    }
    let names = inner[..close]
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once(" as ") {
            Some((local, name)) => (local.trim().to_string(), name.trim().to_string()),
            None => (e.to_string(), e.to_string()),
        })
        .collect();
    Some((&bundle[..at], names))
}

/// Whether esbuild's metafile at `meta` lists `dir`'s `file` among its
/// inputs. Their paths are relative to the working directory, so one is
/// matched by its last two parts: `dir` is a fresh temporary directory,
/// whose name nothing else has.
fn bundles(meta: &Path, dir: &Path, file: &str) -> bool {
    let Some(dir_name) = dir.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let tail = format!("{dir_name}/{file}");
    std::fs::read(meta)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v.get("inputs")?
                .as_object()
                .map(|i| i.keys().any(|k| k.ends_with(&tail)))
        })
        .unwrap_or(false)
}

/// esbuild's JSX flags for `entry`: the automatic runtime of
/// `import_source` if given; none if the entry or its tsconfig says, or it
/// imports React; else an error saying what to add (see the module doc).
pub(super) fn jsx_flags(
    entry: &Path,
    source: &str,
    import_source: Option<&str>,
) -> Result<Vec<String>, BuildError> {
    let is_jsx = matches!(
        entry.extension().and_then(|e| e.to_str()),
        Some("jsx" | "tsx")
    );
    if let Some(source) = import_source {
        return Ok(vec![
            "--jsx=automatic".to_string(),
            format!("--jsx-import-source={source}"),
        ]);
    }
    if is_jsx && !says_jsx_runtime(entry, source) && !imports(source, "react") {
        let runtime = ["preact", "vue", "solid-js", "hono"]
            .into_iter()
            .find(|pkg| imports(source, pkg))
            .unwrap_or("preact");
        return Err(BuildError::JsxRuntime(format!(
            "{} uses JSX but does not say what it compiles to, and does not import React: esbuild would compile it to React.createElement, and rendering would fail with `React is not defined`.\n\
             Add at its top:  /** @jsxImportSource {runtime} */\n\
             or build with:   ssr build {} --jsx-import-source {runtime} ...\n\
             or set \"jsx\": \"react-jsx\" and \"jsxImportSource\": \"{runtime}\" in the compilerOptions of a tsconfig.json or jsconfig.json beside it",
            entry.display(),
            entry.display(),
        )));
    }
    Ok(Vec::new())
}

/// Runs `command`, the esbuild at `esbuild`, on `entry`: its complaint, if
/// it fails, is the error.
pub(super) fn run_esbuild(
    command: &mut Command,
    esbuild: &Path,
    entry: &Path,
) -> Result<(), BuildError> {
    let out = command.output().map_err(|source| BuildError::RunBundler {
        path: esbuild.to_path_buf(),
        source,
    })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    Err(BuildError::Bundler {
        path: entry.to_path_buf(),
        stderr: match missing_node_modules(&stderr) {
            missing if missing.is_empty() => stderr,
            missing => format!(
                "{} {} not provided by ssr: it provides every Node module workerd has, which are {} (docs/compatibility.md). Remove the import, or import it only where the code runs under Node.\n\n{stderr}",
                missing.join(", "),
                if missing.len() == 1 { "is" } else { "are" },
                super::node::names()
                    .map(|name| format!("node:{name}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        },
    })
}

/// The Node built-in modules esbuild could not resolve, from its errors:
/// each `Could not resolve "node:NAME"`, and each `"NAME"` that it says
/// is built into Node.
fn missing_node_modules(stderr: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for part in stderr.split("Could not resolve \"").skip(1) {
        let Some((name, rest)) = part.split_once('"') else {
            continue;
        };
        let next = rest.split("Could not resolve").next().unwrap_or("");
        let label = match name.strip_prefix("node:") {
            Some(_) => name.to_string(),
            None => format!("node:{name}"),
        };
        let node = name.starts_with("node:") || next.contains("built into node");
        if node && !missing.contains(&label) {
            missing.push(label);
        }
    }
    missing
}

/// The error for an entry that needs esbuild where none is installed.
pub(super) fn no_esbuild(entry: &Path) -> BuildError {
    let dir = entry
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    BuildError::NeedsBundler(format!(
        "{} imports other modules (or needs compiling), so it must be bundled, and no esbuild was found in a node_modules above it.\n\
             Either install esbuild next to it:  (cd {} && npm install --save-dev esbuild)\n\
             or bundle it yourself and build the bundle:\n  npx esbuild {} {} --outfile=bundle.mjs && ssr build bundle.mjs -o plugin.wasm",
        entry.display(),
        dir.display(),
        entry.display(),
        ESBUILD_FLAGS
            .iter()
            .map(|f| if f.contains('"') {
                format!("'{f}'")
            } else {
                f.to_string()
            })
            .collect::<Vec<_>>()
            .join(" "),
    ))
}

/// Whether a module's source has static or dynamic imports (or re-exports).
/// A quick scan: false positives cost an esbuild run, or an error where
/// there is none, so comment lines (a JSDoc type's `import('...')`) are
/// not read.
fn has_imports(source: &str) -> bool {
    source.lines().any(|l| {
        let l = l.trim_start();
        if l.starts_with("//") || l.starts_with("/*") || l.starts_with('*') {
            return false;
        }
        (l.starts_with("import") && !l.starts_with("import.meta"))
            || (l.starts_with("export") && l.contains(" from "))
            || l.contains("import(")
            || l.contains("require(")
    })
}

/// Whether the module imports package `pkg` (or a path inside it).
fn imports(source: &str, pkg: &str) -> bool {
    ['\'', '"']
        .iter()
        .any(|q| source.contains(&format!("{q}{pkg}{q}")) || source.contains(&format!("{q}{pkg}/")))
}

/// Whether the entry, or the `tsconfig.json`/`jsconfig.json` esbuild will
/// read for it (the nearest above it), says how to compile JSX.
fn says_jsx_runtime(entry: &Path, source: &str) -> bool {
    if source.contains("@jsx") {
        return true;
    }
    let Some(dir) = std::fs::canonicalize(entry)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    else {
        return false;
    };
    dir.ancestors()
        .find_map(|d| {
            ["tsconfig.json", "jsconfig.json"]
                .iter()
                .find_map(|f| std::fs::read_to_string(d.join(f)).ok())
        })
        .is_some_and(|config| config.contains("\"jsx"))
}

/// The nearest `node_modules/.bin/esbuild` above the entry, then above the
/// working directory, then on `PATH`.
pub(super) fn find_esbuild(entry: &Path) -> Option<PathBuf> {
    let entry_dir = std::fs::canonicalize(entry)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let cwd = std::env::current_dir().ok();
    let nearest = [entry_dir, cwd].into_iter().flatten().find_map(|start| {
        start
            .ancestors()
            .map(|d| d.join("node_modules/.bin/esbuild"))
            .find(|p| p.is_file())
    });
    // Else one installed globally (`npm install -g esbuild`).
    nearest.or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join("esbuild"))
            .find(|p| p.is_file())
    })
}

/// The map of a plain entry, bundled as written: no mappings, and its one
/// source the entry's path from the working directory, as esbuild's maps
/// name files, so that its stacks name it as a bundled site's name its
/// files (`stack_map` renames its frames and keeps their places).
fn plain_map(entry: &Path, name: &str) -> Option<String> {
    let path = std::fs::canonicalize(entry).ok()?;
    let map = serde_json::json!({
        "version": 3,
        "sources": [path.display().to_string()],
        "names": [],
        "mappings": "",
    });
    relative_sources(&map.to_string(), Path::new("/"), name)
}

/// A source map whose `sources` are relative to `out` (esbuild's output
/// directory), with them relative to the working directory instead (or
/// absolute, outside it), as esbuild's own messages name files; its `file`
/// is `name`.
fn relative_sources(map: &str, out: &Path, name: &str) -> Option<String> {
    let mut map: serde_json::Value = serde_json::from_str(map).ok()?;
    let base = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .ok()?;
    let sources = map.get_mut("sources")?.as_array_mut()?;
    for source in sources {
        let Some(text) = source.as_str() else {
            continue;
        };
        let mut path = PathBuf::new();
        for part in out.join(text).components() {
            match part {
                std::path::Component::ParentDir => {
                    path.pop();
                }
                std::path::Component::CurDir => {}
                other => path.push(other),
            }
        }
        let shown = path.strip_prefix(&base).unwrap_or(&path);
        *source = serde_json::Value::String(shown.display().to_string());
    }
    let fields = map.as_object_mut()?;
    fields.remove("sourceRoot");
    // The bundle's name as the Wasm engine's stacks show it.
    fields.insert("file".into(), serde_json::Value::String(name.to_string()));
    serde_json::to_string(&map).ok()
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::{export_clause, has_imports, imports};

    fn the_export_clause_of_an_esbuild_bundle_is_split_off() {
        let bundle =
            "var a = 1;\nvar b2 = 2;\nexport {\n  a as default,\n  b2 as b,\n  c as \"d-e\"\n};\n";
        let (body, names) = export_clause(bundle).unwrap();
        assert_eq!(body, "var a = 1;\nvar b2 = 2;");
        let names: Vec<(&str, &str)> = names
            .iter()
            .map(|(l, n)| (l.as_str(), n.as_str()))
            .collect();
        assert_eq!(names, [("a", "default"), ("b2", "b"), ("c", "\"d-e\"")]);
        // Anything after the clause: not a bundle as esbuild writes one.
        assert!(export_clause("export { a };\nvar late = 1;").is_none());
    }

    fn detects_imports() {
        assert!(has_imports("import React from 'react';\n"));
        assert!(has_imports("export { x } from './x.js';"));
        assert!(!has_imports("export function render() { return 'hi' }"));
        assert!(!has_imports("const u = import.meta.url;"));
        assert!(!has_imports(
            "/** @type {import('@ssr/types').Render} */\nexport function render() {}"
        ));
        assert!(!has_imports(
            "/**\n * @param {import('x').Y} y\n */\n// import('z')\nexport const a = 1;"
        ));
        assert!(has_imports("/* a */\nconst m = await import('./m.js');"));
    }

    fn names_imported_packages() {
        let src = "import { h } from 'preact';\nimport x from \"react-dom/server\";";
        assert!(imports(src, "preact") && imports(src, "react-dom"));
        assert!(!imports(src, "react") && !imports(src, "vue"));
    }

    crate::unit_tests!(
        the_export_clause_of_an_esbuild_bundle_is_split_off,
        detects_imports,
        names_imported_packages
    );
}
