//! The host refuses what is not a plugin for its contract version, with a
//! message that says what to do.

use crate::support::{plugin, ssr, text};
use contract::VERSION as CONTRACT_VERSION;

fn render_bytes(bytes: &[u8], name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ssr-contract-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = ssr().arg("render").arg(&path).arg("/").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    text(&out.stderr)
}

#[test]
fn plugin_for_another_contract_version_is_refused() {
    let p = plugin("plugins/hello/render.js");
    let mut bytes = std::fs::read(&p.plugin).unwrap();
    // Same length, so the component stays well-formed; only the version of
    // the exported interface changes.
    let ours = format!("ssr:plugin/renderer@{CONTRACT_VERSION}");
    let other = "ssr:plugin/renderer@9.9.9";
    assert_eq!(ours.len(), other.len());
    let mut n = 0;
    let mut i = 0;
    while let Some(at) = bytes[i..]
        .windows(ours.len())
        .position(|w| w == ours.as_bytes())
    {
        bytes[i + at..i + at + ours.len()].copy_from_slice(other.as_bytes());
        i += at + ours.len();
        n += 1;
    }
    assert!(n > 0);
    let err = render_bytes(&bytes, "old.wasm");
    assert!(err.contains("built for contract ssr:plugin@9.9.9"), "{err}");
    assert!(
        err.contains(&format!("this host speaks ssr:plugin@{CONTRACT_VERSION}")),
        "{err}"
    );
    assert!(err.contains("rebuild"), "{err}");
}

#[test]
fn core_module_is_refused() {
    let err = render_bytes(b"\0asm\x01\0\0\0", "core.wasm");
    assert!(
        err.contains("core WebAssembly module, not an ssr plugin"),
        "{err}"
    );
}

#[test]
fn non_wasm_is_refused() {
    let err = render_bytes(b"<html>not wasm</html>", "page.wasm");
    assert!(err.contains("not a WebAssembly file"), "{err}");
}

#[test]
fn plugin_carries_its_bundle() {
    let p = plugin("plugins/hello/render.js");
    let bytes = std::fs::read(&p.plugin).unwrap();
    let bundle = ssr::artifact::bundle(&bytes).unwrap();
    assert_eq!(bundle, std::fs::read_to_string(&p.bundle).unwrap());
    assert!(bundle.contains("function render(request)"));
}
