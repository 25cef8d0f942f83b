//! The types package (`guest-sdk/types`, `@ssr/types`): the example
//! plugins type-check against it; a TypeScript site that uses it, installed
//! as `npm install PATH` installs it, checks, builds and serves on both
//! engines; and a site that breaks the contract is refused by `tsc` at the
//! lines that break it.

use std::path::{Path, PathBuf};
use std::process::Command;

use ssr::engine::EngineKind;

use crate::support::{root, ssr, tempdir, text, with_esbuild};

/// `tsc -p project` with the examples' TypeScript: success, its complaints.
fn tsc(project: &Path) -> (bool, String) {
    let out = Command::new(root().join("plugins/node_modules/.bin/tsc"))
        .arg("-p")
        .arg(project)
        .args(["--pretty", "false"])
        .output()
        .unwrap();
    (out.status.success(), text(&out.stdout) + &text(&out.stderr))
}

/// A site with `source` as `src/index.ts`, the package linked into its
/// `node_modules` (what `npm install ../ssr/guest-sdk/types` makes) and the
/// tsconfig.json of the package's README.
fn site(tag: &str, source: &str) -> PathBuf {
    let dir = tempdir(tag);
    std::fs::create_dir_all(dir.join("node_modules/@ssr")).unwrap();
    std::os::unix::fs::symlink(
        root().join("guest-sdk/types"),
        dir.join("node_modules/@ssr/types"),
    )
    .unwrap();
    let readme = std::fs::read_to_string(root().join("guest-sdk/types/README.md")).unwrap();
    let tsconfig = readme
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the package's README gives a tsconfig.json");
    std::fs::write(dir.join("tsconfig.json"), tsconfig).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/index.ts"), source).unwrap();
    dir
}

#[test]
fn the_example_plugins_type_check_against_the_package() {
    for project in [
        "plugins/tsconfig.check.json",
        "plugins/hono/tsconfig.check.json",
    ] {
        let (ok, out) = tsc(&root().join(project));
        assert!(ok && out.is_empty(), "{project}:\n{out}");
    }
}

/// A handler that uses what the package types: its own `Env`, `ctx`, the
/// class form's base from `cloudflare:workers`, `caches.default` and
/// `crypto.subtle.timingSafeEqual`.
const TYPED: &str = r#"import type { Handler } from '@ssr/types';
import { WorkerEntrypoint } from 'cloudflare:workers';

interface Env { GREETING: string }

// The class form, typed (not the handler served here).
export class Page extends WorkerEntrypoint<Env> {
  async fetch(request: Request) {
    const cached = await caches.default.match(request);
    return cached ?? new Response(`${this.env.GREETING} ${request.url}`);
  }
}

export default {
  async fetch(request, env, ctx) {
    ctx.waitUntil(Promise.resolve());
    const name = new URL(request.url).searchParams.get('name') ?? 'world';
    const same: boolean = crypto.subtle.timingSafeEqual(new Uint8Array([1]), new Uint8Array([1]));
    return new Response(`<h1>${env.GREETING}, ${name}</h1><p>${same}</p>`, {
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
  },
} satisfies Handler<Env>;
"#;

#[test]
fn a_typescript_site_checks_builds_and_serves_on_both_engines() {
    let dir = site("types-ok", TYPED);
    let (ok, out) = tsc(&dir);
    assert!(ok && out.is_empty(), "{out}");
    let plugin = dir.join("site.wasm");
    let out = ssr()
        .args(["build", "src/index.ts", "-o"])
        .arg(&plugin)
        .current_dir(&dir)
        .env("PATH", with_esbuild())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    for engine in [EngineKind::Wasm, EngineKind::V8] {
        let out = ssr()
            .arg("render")
            .arg(&plugin)
            .args(["/?name=Ada", "--var", "GREETING=Hello", "--engine"])
            .arg(engine.as_str())
            .output()
            .unwrap();
        let html = text(&out.stdout);
        assert!(out.status.success(), "{engine:?}: {}", text(&out.stderr));
        assert_eq!(html, "<h1>Hello, Ada</h1><p>true</p>", "{engine:?}");
    }
}

#[test]
fn a_site_that_breaks_the_contract_is_refused_at_its_lines() {
    let dir = site(
        "types-bad",
        "import type { Handler, Render } from '@ssr/types';\n\
         export const render: Render = (request) => ({ status: 200, html: request.pathname });\n\
         export default { fetch(request, env, ctx) { ctx.waitUntill(fetch(request)); return 'hi'; } } satisfies Handler;\n",
    );
    let (ok, out) = tsc(&dir);
    assert!(!ok, "{out}");
    for expected in [
        // The render's answer is neither HTML nor a response with a body.
        "src/index.ts(2,",
        "Property 'body' is missing",
        "Property 'pathname' does not exist on type 'RenderRequest'",
        // A handler answers a Response, and ctx has waitUntil.
        "src/index.ts(3,",
        "Type 'string' is not assignable to type",
        "Property 'waitUntill' does not exist on type 'ExecutionContext'",
    ] {
        assert!(out.contains(expected), "{expected}:\n{out}");
    }
}
