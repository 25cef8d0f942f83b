//! Density: plugins share the runtime's compiled code (`engine::wasm::split`)
//! and nothing else.

use std::path::PathBuf;

use crate::support::{Client, Server, plugin, root, tempdir};

const HELLO: &str = "plugins/hello/render.js";

/// A plugin of `tests/plugins/secret.js` holding `secret` in its snapshot.
fn secret_plugin(name: &str, secret: &str) -> Vec<u8> {
    let source = std::fs::read_to_string(root().join("tests/plugins/secret.js")).unwrap();
    let entry = format!("target/test-plugins/secret-{name}.js");
    std::fs::write(
        root().join(&entry),
        source.replace("NAME", name).replace("SECRET", secret),
    )
    .unwrap();
    std::fs::read(plugin(&entry).plugin).unwrap()
}

fn files(dir: PathBuf, ext: &str) -> Vec<(PathBuf, u64)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == ext))
        .map(|e| (e.path(), e.metadata().unwrap().len()))
        .collect();
    out.sort();
    out
}

#[test]
fn two_tenants_share_compiled_code_but_never_their_heaps() {
    let dir = tempdir("density");
    let data = dir.to_str().unwrap();
    let s = Server::stored(data);
    let secrets = [("alpha", "a1pha-7c1d94"), ("beta", "b3ta-e2f805")];
    for (name, secret) in secrets {
        let bytes = secret_plugin(name, secret);
        assert_eq!(s.put_bytes(name, &bytes, "mode=reuse").0, 201);
    }
    // One compiled copy of each shared piece for both tenants: the
    // runtime's code, the WASI adapter, two small modules of
    // wit-component's, and the component that wires them.
    let shared = files(dir.join("code"), "cwasm");
    assert_eq!(shared.len(), 5, "{shared:?}");
    let runtime = shared.iter().map(|(_, len)| *len).max().unwrap();
    // A tenant's own part is its heap's snapshot (the prelude's objects and
    // bytecode, 2.1 MB since Web Crypto's drafts joined the prelude) and
    // its own code: the runtime's code is not in it.
    for (path, len) in files(dir.join("plugins"), "cwasm") {
        assert!(
            len < runtime,
            "{} ({len} bytes) is a tenant's own part, less than the shared runtime ({runtime} bytes)",
            path.display()
        );
    }

    // Interleaved on the same workers, warm instances reused: each sees its
    // own secret only.
    let check = |s: &Server, round: usize| {
        for (name, secret) in secrets {
            let r = s.get(&format!("/t/{name}/"), &[]);
            assert_eq!(r.status, 200, "{}", r.text());
            let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
            let mine = format!("{secret}:{name}:{}", secret.len());
            assert_eq!(body["mine"], mine.as_str(), "round {round}: {body}");
            assert_eq!(
                body["seen"],
                serde_json::json!([mine]),
                "round {round}: {body}"
            );
            let other = secrets.iter().find(|(n, _)| *n != name).unwrap().1;
            assert!(
                !r.text().contains(other),
                "round {round}: {name} saw the other tenant's secret: {body}"
            );
        }
    };
    for round in 0..20 {
        check(&s, round);
    }

    // A restart loads the tenants' parts and the shared modules as stored:
    // nothing is compiled again, and each still has its own heap. Shared
    // code that no tenant links (another version's, say) is removed.
    assert!(s.stop("TERM").success());
    let stale = dir.join("code").join(format!("{}.cwasm", "0".repeat(64)));
    std::fs::write(&stale, b"old").unwrap();
    // Code another engine compiled (another Wasmtime, CPU or setting) is
    // named by its key: never opened, and removed.
    let (linked, _) = &shared[0];
    let name = linked.file_name().unwrap().to_string_lossy();
    let digest = name.split('.').next().unwrap();
    let foreign = dir
        .join("code")
        .join(format!("{digest}.0000000000000000.cwasm"));
    std::fs::write(&foreign, b"another engine's").unwrap();
    let s = Server::stored(data);
    check(&s, 20);
    assert_eq!(files(dir.join("code"), "cwasm"), shared);
    let log = s.log.lock().unwrap().clone();
    assert!(!log.contains("compiling again"), "{log}");
}

/// The plugin with its runtime module (the component's first core module)
/// rewritten by `edit`; every other section as it is.
fn with_runtime(plugin: &[u8], edit: impl FnOnce(&[u8]) -> Vec<u8>) -> Vec<u8> {
    use wasmparser::{Parser, Payload};
    let mut out = wasm_encoder::Component::new();
    let mut edit = Some(edit);
    let mut parser = Parser::new(0);
    let mut rest = plugin;
    loop {
        let wasmparser::Chunk::Parsed { consumed, payload } = parser.parse(rest, true).unwrap()
        else {
            unreachable!("the whole plugin is given")
        };
        let mut skip = 0;
        match &payload {
            Payload::Version { .. } => {}
            Payload::End(_) => break,
            Payload::ModuleSection {
                unchecked_range, ..
            } => {
                skip = unchecked_range.len();
                let module = &plugin[unchecked_range.clone()];
                let module = match edit.take() {
                    Some(edit) => edit(module),
                    None => module.to_vec(),
                };
                out.section(&wasm_encoder::RawSection {
                    id: wasm_encoder::ComponentSectionId::CoreModule as u8,
                    data: &module,
                });
            }
            other => {
                let (id, range) = other.as_section().unwrap();
                if let Payload::ComponentSection { .. } = other {
                    skip = range.len();
                }
                out.section(&wasm_encoder::RawSection {
                    id,
                    data: &plugin[range],
                });
            }
        }
        rest = &rest[consumed + skip..];
    }
    out.finish()
}

/// `module` with each section `edit` maps to `Some` replaced.
fn with_sections(
    module: &[u8],
    mut edit: impl FnMut(&wasmparser::Payload) -> Option<(u8, Vec<u8>)>,
) -> Vec<u8> {
    let mut out = wasm_encoder::Module::new();
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload.unwrap();
        let Some((id, range)) = payload.as_section() else {
            continue;
        };
        match edit(&payload) {
            Some((id, data)) => out.section(&wasm_encoder::RawSection { id, data: &data }),
            None => out.section(&wasm_encoder::RawSection {
                id,
                data: &module[range],
            }),
        };
    }
    out.finish()
}

fn encoded(section: &impl wasm_encoder::Section) -> (u8, Vec<u8>) {
    let mut bytes = Vec::new();
    wasm_encoder::Encode::encode(section, &mut bytes);
    // `Encode` writes the length first; a raw section wants the contents.
    let mut reader = wasmparser::BinaryReader::new(&bytes, 0);
    let len = reader.read_var_u32().unwrap() as usize;
    (section.id(), bytes[bytes.len() - len..].to_vec())
}

#[test]
fn plugins_whose_parts_do_not_fit_are_refused_at_registration() {
    let s = Server::start(&[]);
    let hello = std::fs::read(plugin(HELLO).plugin).unwrap();
    assert_eq!(s.put_bytes("fine", &hello, "").0, 201);

    // The heap snapshot in a memory too small for it.
    let small_memory = with_runtime(&hello, |module| {
        with_sections(module, |payload| match payload {
            wasmparser::Payload::MemorySection(_) => {
                let mut memories = wasm_encoder::MemorySection::new();
                memories.memory(wasm_encoder::MemoryType {
                    minimum: 1,
                    maximum: None,
                    memory64: false,
                    shared: false,
                    page_size_log2: None,
                });
                Some(encoded(&memories))
            }
            _ => None,
        })
    });
    let (status, body) = s.put_bytes("small", &small_memory, "");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("heap snapshot does not fit its memory") && body.contains("1 pages"),
        "{body}"
    );

    // The runtime importing the host's capabilities from elsewhere than the
    // contract: the component no longer gives it what it imports.
    let rewired = with_runtime(&hello, |module| {
        with_sections(module, |payload| match payload {
            wasmparser::Payload::ImportSection(reader) => {
                let mut imports = wasm_encoder::ImportSection::new();
                for import in reader.clone().into_imports() {
                    let import = import.unwrap();
                    let from = import.module.replace("ssr:plugin/host", "ssr:plugin/hoax");
                    let ty = wasm_encoder::reencode::Reencode::entity_type(
                        &mut wasm_encoder::reencode::RoundtripReencoder,
                        import.ty,
                    )
                    .unwrap();
                    imports.import(&from, import.name, ty);
                }
                Some(encoded(&imports))
            }
            _ => None,
        })
    });
    let (status, body) = s.put_bytes("rewired", &rewired, "");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("ssr:plugin/hoax"), "{body}");

    // Neither was registered, and the tenant registered before still serves.
    let (_, list) = s.admin("GET", "/_ssr/admin/tenants");
    assert!(
        !list.contains("small") && !list.contains("rewired"),
        "{list}"
    );
    assert_eq!(s.get("/t/fine/?name=x", &[]).status, 200);
}

#[test]
fn a_tenant_without_traffic_keeps_no_warm_instance() {
    let s = Server::start(&["--warm-idle", "1"]);
    assert_eq!(s.add("idle", HELLO, "mode=reuse").0, 201);
    assert_eq!(s.get("/t/idle/?name=a", &[]).status, 200);
    assert_eq!(s.metric("ssr_warm_instances"), 1.0);
    // Unused for a second, then dropped within a quarter of that.
    let dropped = (0..40).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        s.metric("ssr_warm_instances") == 0.0
    });
    assert!(dropped, "{}", s.metrics_text());
    // The next request instantiates again.
    let r = s.get("/t/idle/?name=b", &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("Hello, b!"));
}

/// `plugin` with a custom section holding `n`: its own SHA-256, so it is
/// compiled and mapped as a plugin of its own (`benches/common.sh`'s
/// `variant`).
fn variant(plugin: &[u8], n: usize) -> Vec<u8> {
    let name = b"ssr-density";
    let payload = n.to_string();
    let mut out = plugin.to_vec();
    out.push(0);
    out.push((1 + name.len() + payload.len()) as u8);
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    out.extend_from_slice(payload.as_bytes());
    out
}

/// KiB resident in the server's read-only mappings of its tenants'
/// compiled plugins (`<data>/plugins/*.cwasm`), from `/proc/<pid>/smaps`;
/// not the instance slots' copy-on-write mappings of them, which the pool
/// bounds.
fn plugin_pages_kib(s: &Server, data: &std::path::Path) -> u64 {
    let smaps = std::fs::read_to_string(format!("/proc/{}/smaps", s.child.id())).unwrap();
    let plugins = data.join("plugins");
    let mut ours = false;
    let mut kib = 0;
    for line in smaps.lines() {
        if let Some(rss) = line.strip_prefix("Rss:") {
            if ours {
                kib += rss
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .unwrap();
            }
        } else if line
            .split_whitespace()
            .nth(1)
            .is_some_and(|p| p.contains('-') && p.len() == 4)
        {
            // A mapping's first line: range, perms, offset, dev, inode, path.
            ours = line.contains(" r--p ")
                && line.contains(plugins.to_str().unwrap())
                && line.ends_with(".cwasm");
        }
    }
    kib
}

#[test]
fn tenants_that_served_and_went_idle_give_back_their_plugins_pages() {
    let dir = tempdir("idle");
    let data = dir.to_str().unwrap();
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--data-dir",
        data,
        "--warm-idle",
        "1",
    ]);
    let hello = std::fs::read(plugin(HELLO).plugin).unwrap();
    const TENANTS: usize = 8;
    for n in 0..TENANTS {
        let (status, body) = s.put_bytes(&format!("d-{n}"), &variant(&hello, n), "mode=fresh");
        assert_eq!(status, 201, "{body}");
    }
    for n in 0..TENANTS {
        assert_eq!(s.get(&format!("/t/d-{n}/"), &[]).status, 200);
    }
    // Resetting a freed instance's memory (in fresh mode, after each
    // render) reads its snapshot from the plugin's mapping (2 MiB each for
    // hello); a plugin with no instance for 1 s gives those pages back.
    let served = plugin_pages_kib(&s, &dir);
    assert!(served > 1024 * TENANTS as u64, "{served} KiB after serving");
    let trimmed = crate::support::within(std::time::Duration::from_secs(10), || {
        plugin_pages_kib(&s, &dir) < 64 * TENANTS as u64
    });
    assert!(
        trimmed,
        "the idle tenants' plugins still hold {} KiB (after serving: {served} KiB)",
        plugin_pages_kib(&s, &dir)
    );
    // And they serve again, reading them back.
    for n in 0..TENANTS {
        let page = s.get(&format!("/t/d-{n}/"), &[]);
        assert!(page.text().contains("Hello, world!"), "{}", page.text());
    }
}
