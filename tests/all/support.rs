//! Shared helpers: paths, building plugins once per run, running `ssr` and
//! Node.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn ssr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssr"))
}

fn out_dir() -> PathBuf {
    let dir = root().join("target/test-plugins");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A plugin built by `ssr build`, and the bundle it was built from.
#[derive(Clone, Debug)]
pub struct Built {
    pub plugin: PathBuf,
    pub bundle: PathBuf,
}

/// Builds `entry` (relative to the repository root) once per test run.
pub fn plugin(entry: &str) -> Built {
    static BUILT: OnceLock<Mutex<HashMap<String, Arc<OnceLock<Built>>>>> = OnceLock::new();
    let slot = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(entry.to_string())
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let stem = entry.replace(['/', '.'], "_");
        let plugin = out_dir().join(format!("{stem}.wasm"));
        let bundle = out_dir().join(format!("{stem}.mjs"));
        let out = ssr()
            .arg("build")
            .arg(root().join(entry))
            .arg("-o")
            .arg(&plugin)
            .arg("--emit-bundle")
            .arg(&bundle)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ssr build {entry} failed:\n{}",
            text(&out.stderr)
        );
        Built { plugin, bundle }
    })
    .clone()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `ssr render <plugin> <url> [-H ..]`.
pub fn render(plugin: &Path, url: &str, headers: &[(&str, &str)]) -> Output {
    let mut cmd = ssr();
    cmd.arg("render")
        .arg(plugin)
        .arg(url)
        .arg("--tenant")
        .arg("acme");
    for (k, v) in headers {
        cmd.arg("-H").arg(format!("{k}: {v}"));
    }
    cmd.output().unwrap()
}

/// The request object `ssr render` hands to a renderer, as JSON, for Node.
pub fn request_json(url: &str, headers: &[(&str, &str)]) -> String {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs: Vec<(String, String)> = ssr::engine::form_urlencoded_pairs(query);
    let mut q = Vec::new();
    for (k, v) in &pairs {
        if !q.iter().any(|(n, _): &(String, String)| n == k) {
            q.push((k.clone(), v.clone()));
        }
    }
    let obj = |pairs: &[(String, String)]| {
        let fields: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}:{}", json(k), json(v)))
            .collect();
        format!("{{{}}}", fields.join(","))
    };
    let h: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    format!(
        "{{\"method\":\"GET\",\"url\":{},\"path\":{},\"query\":{},\"headers\":{},\"tenant\":\"acme\"}}",
        json(url),
        json(path),
        obj(&q),
        obj(&h)
    )
}

fn json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Node rendering `bundle` for the same request: the expected bytes.
pub fn node_render(bundle: &Path, url: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let out = Command::new("node")
        .arg(root().join("tests/node/render.mjs"))
        .arg(bundle)
        .arg(request_json(url, headers))
        .output()
        .expect("running node (the tests need Node.js 18 or newer on PATH)");
    assert!(out.status.success(), "node failed:\n{}", text(&out.stderr));
    out.stdout
}

/// Asserts that `ssr render` and Node produce the same bytes.
pub fn assert_same_as_node(entry: &str, url: &str, headers: &[(&str, &str)]) {
    let built = plugin(entry);
    let ours = render(&built.plugin, url, headers);
    assert!(
        ours.status.success(),
        "ssr render {entry} {url} failed:\n{}",
        text(&ours.stderr)
    );
    let theirs = node_render(&built.bundle, url, headers);
    assert!(
        !theirs.is_empty(),
        "node rendered nothing for {entry} {url}"
    );
    if ours.stdout != theirs {
        let at = ours
            .stdout
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{entry} {url}: ssr and node differ at byte {at} (lengths {} and {})\nssr:  {}\nnode: {}",
            ours.stdout.len(),
            theirs.len(),
            text(&ours.stdout[at.saturating_sub(40)..(at + 80).min(ours.stdout.len())]),
            text(&theirs[at.saturating_sub(40)..(at + 80).min(theirs.len())]),
        );
    }
}
