//! Bindings (`env.X` of the app's wrangler config) on both engines,
//! compared with what `wrangler dev` (Miniflare) answers for the same
//! calls: KV's and D1's every method, limit and error; state kept per
//! tenant, across requests, restarts and a `kill -9` in the middle of
//! writes.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ssr::engine::Engines;

use crate::node_modules::build_app;
use crate::support::*;

/// `tests/plugins/NAME.js` as an app whose wrangler config has
/// `bindings` (its JSON members).
pub(crate) fn bound_app(name: &str, bindings: &str) -> PathBuf {
    let source = std::fs::read_to_string(root().join(format!("tests/plugins/{name}.js"))).unwrap();
    let config = format!(
        r#"{{ "name": "{name}", "main": "index.js", "compatibility_date": "2026-11-01", {bindings} }}"#
    );
    let (plugin, out) = build_app(name, &[("wrangler.jsonc", &config), ("index.js", &source)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    plugin
}

/// `tests/plugins/kv.js` as an app whose wrangler config binds `env.KV`.
pub(crate) fn kv_app() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let bindings = r#""kv_namespaces": [{ "binding": "KV", "id": "kvtest" }]"#;
    BUILT.get_or_init(|| bound_app("kv", bindings)).clone()
}

/// `plugin`'s `/suite` under `ssr render` (its bindings in memory) on both
/// engines answers `wrangler dev`'s `expected`.
fn suite_renders_as_wrangler_dev(plugin: &std::path::Path, expected: &str) {
    for &engine in Engines::KINDS {
        let out = render_command(engine, plugin, "/suite", &[])
            .args(["--timeout-ms", "20000"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected, "{engine}");
    }
}

/// `tests/plugins/d1.js` as an app whose wrangler config binds `env.DB`.
pub(crate) fn d1_app() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let bindings = r#""d1_databases": [{ "binding": "DB", "database_name": "d1test", "database_id": "d1test" }]"#;
    BUILT.get_or_init(|| bound_app("d1", bindings)).clone()
}

/// Registers `plugin` on `s` as `PREFIX-ENGINE` on each engine, and checks
/// that its `/suite` answers `wrangler dev`'s `expected` there.
pub(crate) fn suite_serves_as_wrangler_dev(
    s: &impl Client,
    prefix: &str,
    plugin: &[u8],
    expected: &str,
) {
    for engine in Engines::KINDS {
        let id = format!("{prefix}-{engine}");
        let (status, body) = s.put_bytes(&id, plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        let suite = s.get(&format!("/t/{id}/suite"), &[]);
        assert_eq!(suite.text(), expected, "{engine}");
    }
}

/// `/suite` of `tests/plugins/d1.js` as `wrangler dev` 4.164.0 answered it
/// (Miniflare's D1, on loopback, with the same config).
const WRANGLER_DEV_D1: &str = r#"{"exec":[["count","duration"],1,"number"],"insert":[{"keys":["success","meta","results"],"success":true,"results":[],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":1,"last_row_id":1,"changed_db":true,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},{"keys":["success","meta","results"],"success":true,"results":[],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":1,"last_row_id":2,"changed_db":true,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},{"keys":["success","meta","results"],"success":true,"results":[],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":1,"last_row_id":3,"changed_db":true,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}}],"all":{"keys":["success","meta","results"],"success":true,"results":[{"id":1,"name":"ann","age":31,"score":1.5,"avatar":[1,2,3],"active":1},{"id":2,"name":"bob","age":null,"score":2,"avatar":[9],"active":0},{"id":3,"name":"cy","age":40,"score":null,"avatar":null,"active":null}],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":0,"last_row_id":3,"changed_db":false,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},"first":[{"id":1,"name":"ann","age":31,"score":1.5,"avatar":[1,2,3],"active":1},"bob",null,null,["threw","Error","D1_COLUMN_NOTFOUND: Column not found (nope)"]],"raw":[[[1,"ann"],[2,"bob"],[3,"cy"]],[["id","name"],[1,"ann"],[2,"bob"],[3,"cy"]],[["id"]]],"types":{"keys":["success","meta","results"],"success":true,"results":[{"i":1,"r":1.5,"t":"x","b":[1,2],"n":null,"big":9007199254740992,"z":0,"u":"é"}],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":0,"last_row_id":3,"changed_db":false,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},"bound":{"a":1,"b":2.5,"c":"text","d":null,"e":"real","f":"real"},"update":{"keys":["success","meta","results"],"success":true,"results":[],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":2,"last_row_id":3,"changed_db":true,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},"batch":[{"keys":["success","meta","results"],"success":true,"results":[],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":1,"last_row_id":4,"changed_db":true,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},{"keys":["success","meta","results"],"success":true,"results":[],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":1,"last_row_id":4,"changed_db":true,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}},{"keys":["success","meta","results"],"success":true,"results":[{"n":3}],"meta":{"keys":["served_by","served_by_primary","total_attempts","timings","duration","changes","last_row_id","changed_db","size_after","rows_read","rows_written"],"changes":0,"last_row_id":4,"changed_db":false,"rows_read":"number","rows_written":"number","duration":"number","size_after":"number","timings":["sql_duration_ms"]}}],"rolledBack":[["threw","Error","D1_ERROR: no such table: nope: SQLITE_ERROR"],0],"errors":[["threw","Error","D1_ERROR: near \"SELEC\": syntax error at offset 0: SQLITE_ERROR"],["threw","Error","D1_ERROR: no such table: missing: SQLITE_ERROR"],["threw","Error","D1_TYPE_ERROR: Type 'undefined' not supported for value 'undefined'"],["threw","Error","D1_ERROR: UNIQUE constraint failed: users.name: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)"],["threw","Error","D1_ERROR: NOT NULL constraint failed: users.name: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_NOTNULL)"],["threw","Error","D1_TYPE_ERROR: Type 'object' not supported for value '[object Object]'"],["threw","Error","D1_TYPE_ERROR: Type 'bigint' not supported for value '1'"],["threw","Error","D1_EXEC_ERROR: Error in line 1: : No SQL statements detected."],["threw","Error","D1_ERROR: No SQL statements detected."],["threw","Error","D1_ERROR: Wrong number of parameter bindings for SQL query."],{"statement":"","params":[]},["threw","Error","D1_EXEC_ERROR: Error in line 1: SELECT 1; SELEC 2: near \"SELEC\": syntax error at offset 0: SQLITE_ERROR"]],"session":["function",3,"string",1],"shape":[["all","bind","constructor","first","raw","run"],"{\"statement\":\"SELECT ?\",\"params\":[1]}",["success","meta","results"],[{"x":1}],null]}"#;

/// Every D1 method, its results' shapes and `meta`, its type conversions
/// and its errors, as `wrangler dev` gives them, under `ssr render` (a
/// database in memory) on both engines.
#[test]
fn d1_answers_as_wrangler_dev_on_both_engines() {
    suite_renders_as_wrangler_dev(&d1_app(), WRANGLER_DEV_D1);
}

/// Under `ssr serve` with a data dir: the same answers on both engines; a
/// database is the tenant's own, though two tenants' configs give it the
/// same id; its rows are there after a restart.
#[test]
fn d1_keeps_each_tenants_rows_across_requests_and_restarts_on_both_engines() {
    let data = tempdir("d1-data");
    let plugin = std::fs::read(d1_app()).unwrap();
    let s = Server::stored(data.to_str().unwrap());
    suite_serves_as_wrangler_dev(&s, "d1", &plugin, WRANGLER_DEV_D1);
    for engine in Engines::KINDS {
        for note in ["one", "two"] {
            s.get(&format!("/t/d1-{engine}/note?text={engine}-{note}"), &[]);
        }
    }
    drop(s);
    let s = Server::stored(data.to_str().unwrap());
    for engine in Engines::KINDS {
        let notes = s.get(&format!("/t/d1-{engine}/notes"), &[]).text();
        assert_eq!(notes, format!("{engine}-one,{engine}-two\n"));
    }
    let (status, body) = s.put_bytes("d1-other", &plugin, "");
    assert_eq!(status, 201, "{body}");
    assert_eq!(s.get("/t/d1-other/note?text=mine", &[]).text(), "1\n");
    assert_eq!(s.get("/t/d1-other/notes", &[]).text(), "mine\n");
}

/// `/suite` of `tests/plugins/kv.js` as `wrangler dev` 4.164.0 answered it
/// (Miniflare's KV, on loopback, with the same config).
pub(crate) const WRANGLER_DEV_KV: &str = r#"{"absent":[null,{"value":null,"metadata":null,"cacheStatus":null},null],"text":["hello KV","hello KV","hello KV",[104,101,108,108,111,32,75,86],"hello KV","SyntaxError"],"json":[{"a":[1,2],"b":"x"},{"a":[1,2],"b":"x"}],"binary":[[0,1,254,255],[5,6,7],"from a stream"],"metadata":[{"value":"with metadata","metadata":{"owner":"ann","n":1},"cacheStatus":null},"SyntaxError",[[104,101,108,108,111,32,75,86],null]],"replaced":{"value":"replaced","metadata":null,"cacheStatus":null},"metadataDropped":{"value":"metadata dropped","metadata":null,"cacheStatus":null},"ttl":["ttl",true],"bulk":[["Map",[["text","replaced"],["json","{\"a\":[1,2],\"b\":\"x\"}"],["absent",null]]],["Map",[["json",{"a":[1,2],"b":"x"}]]],["Map",[["json","{\"a\":[1,2],\"b\":\"x\"}"],["text","replaced"]]],["Map",[["meta",{"value":"metadata dropped","metadata":null}],["text",{"value":"replaced","metadata":null}]]],["threw","Error","KV GET_BULK failed: 400 You can request a maximum of 100 keys"],["threw","Error","KV GET_BULK failed: 400 \"arrayBuffer\" is not a valid type. Use \"json\" or \"text\""],["threw","Error","KV GET_BULK failed: 400 At least one of the requested keys corresponds to a non-json value"]],"deleted":[null,null],"list":[["Z","a/1","a/2","a/3","b/1","json","meta","stream","text","ttl","z","~","é"],true,null,null],"listMeta":[{"name":"a/1"},{"name":"a/2","metadata":{"tag":2}},{"name":"a/3"}],"pages":[[["a/1","a/2"],false,"string"],[["a/3"],true,"undefined"]],"listNone":{"keys":[],"list_complete":true,"cacheStatus":null},"refused":[["threw","Error","KV PUT failed: 414 UTF-8 encoded length of 513 exceeds key length limit of 512."],["threw","Error","KV PUT failed: 414 UTF-8 encoded length of 514 exceeds key length limit of 512."],["threw","Error","KV GET failed: 414 UTF-8 encoded length of 513 exceeds key length limit of 512."],["threw","TypeError","Key name cannot be empty."],["threw","TypeError","Key name cannot be empty."],["threw","TypeError","\".\" is not allowed as a key name."],["threw","TypeError","\"..\" is not allowed as a key name."],["threw","Error","KV PUT failed: 413 Metadata length of 1034 exceeds limit of 1024."],["threw","Error","KV PUT failed: 400 Invalid expiration_ttl of 59. Expiration TTL must be at least 60."],["threw","Error","KV PUT failed: 400 Invalid expiration_ttl of 0. Please specify integer greater than 0."],["threw","Error","KV PUT failed: 400 Invalid expiration of 1000. Please specify integer greater than the current number of seconds since the UNIX epoch."],null,["threw","TypeError","Unknown response type. Possible types are \"text\", \"arrayBuffer\", \"json\", and \"stream\"."],["threw","TypeError","Unknown response type. Possible types are \"text\", \"arrayBuffer\", \"json\", and \"stream\"."],null,null,["threw","Error","KV GET failed: 400 Invalid cache_ttl of 10. Cache TTL must be at least 30."],["threw","Error","KV GET failed: 400 Invalid key_count_limit of 1001. Please specify an integer less than 1000."],[14,true],{"keys":[],"list_complete":true,"cacheStatus":null},["threw","Error","KV PUT failed: 413 Value length of 26214401 exceeds limit of 26214400."],null,["threw","Error","KV DELETE failed: 414 UTF-8 encoded length of 513 exceeds key length limit of 512."]],"afterRefused":[null,{"value":"v","metadata":"plain","cacheStatus":null},null,"42"],"shape":["[object KvNamespace]",["constructor","delete","get","getWithMetadata","list","put"],"KvNamespace"]}"#;

/// Every KV method, option and limit, as `wrangler dev` gives them, under
/// `ssr render` (a namespace in memory) on both engines.
#[test]
fn kv_answers_as_wrangler_dev_on_both_engines() {
    suite_renders_as_wrangler_dev(&kv_app(), WRANGLER_DEV_KV);
}

/// Under `ssr serve` with a data dir: the same answers on both engines;
/// a namespace is the tenant's own, though two tenants' configs give it the
/// same id; what was put is there after a restart.
#[test]
fn kv_keeps_each_tenants_keys_across_requests_and_restarts_on_both_engines() {
    let data = tempdir("kv-data");
    let plugin = std::fs::read(kv_app()).unwrap();
    let s = Server::stored(data.to_str().unwrap());
    suite_serves_as_wrangler_dev(&s, "kv", &plugin, WRANGLER_DEV_KV);
    assert_eq!(
        s.get("/t/kv-wasm/put?key=who&value=wasm", &[]).text(),
        "stored\n"
    );
    assert_eq!(
        s.get("/t/kv-v8/put?key=who&value=v8", &[]).text(),
        "stored\n"
    );
    assert_eq!(s.get("/t/kv-wasm/get?key=who", &[]).text(), "wasm\n");
    assert_eq!(s.get("/t/kv-v8/get?key=who", &[]).text(), "v8\n");
    drop(s);
    let s = Server::stored(data.to_str().unwrap());
    assert_eq!(s.get("/t/kv-wasm/get?key=who", &[]).text(), "wasm\n");
    assert_eq!(s.get("/t/kv-v8/get?key=who", &[]).text(), "v8\n");
    assert_eq!(s.get("/t/kv-v8/get?key=text", &[]).text(), "replaced\n");
    // A third tenant of the same config reaches a namespace of its own.
    let (status, body) = s.put_bytes("kv-other", &plugin, "");
    assert_eq!(status, 201, "{body}");
    assert_eq!(s.get("/t/kv-other/get?key=who", &[]).text(), "null\n");
}

/// A page that reads a binding depends on state its URL does not name:
/// the page cache keeps it only for a TTL the response sets itself, never
/// under the host's default, on both engines; a streamed page that reads
/// one after its head went out is not kept either.
#[test]
fn a_page_that_reads_a_binding_is_cached_only_for_a_ttl_of_its_own_on_both_engines() {
    let data = tempdir("kv-cached");
    let s = Server::stored(data.to_str().unwrap());
    let plugin = std::fs::read(kv_app()).unwrap();
    for engine in Engines::KINDS {
        let id = format!("kv-cached-{engine}");
        let (status, body) = s.put_bytes(&id, &plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        let put = |v: &str| {
            let said = s.get(&format!("/t/{id}/put?key=k&value={v}"), &[]);
            assert_eq!(said.text(), "stored\n");
        };
        let get = |path: &str| {
            let r = s.get(&format!("/t/{id}/{path}?key=k"), &[]);
            (r.text(), r.header("x-cache").unwrap_or("").to_string())
        };
        put("one");
        for path in ["plain-get", "kept-get", "late-get"] {
            let said = get(path).0;
            assert!(said.ends_with("one\n"), "{engine} {path}: {said}");
        }
        put("two");
        for path in ["plain-get", "late-get"] {
            let (said, cache) = get(path);
            assert!(said.ends_with("two\n"), "{engine} {path}: {said} ({cache})");
            assert_ne!(cache, "hit", "{engine} {path}");
        }
        assert_eq!(get("kept-get"), ("one\n".into(), "hit".into()), "{engine}");
    }
}

/// `kill -9` of the server while many puts are in flight loses none that
/// was acknowledged: each answered `stored` is read back after a restart.
#[test]
fn a_kill_during_kv_puts_loses_no_acknowledged_write() {
    let data = tempdir("kv-kill");
    let plugin = std::fs::read(kv_app()).unwrap();
    let s = Server::stored(data.to_str().unwrap());
    assert_eq!(s.put_bytes("kill", &plugin, "").0, 201);
    let acked = Arc::new(Mutex::new(Vec::new()));
    let base = s.url("/t/kill");
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let (acked, base) = (acked.clone(), base.clone());
            std::thread::spawn(move || {
                let agent = Server::agent();
                for i in 0..125 {
                    let key = format!("w{w}-{i}");
                    let reply = agent
                        .get(&format!("{base}/put?key={key}&value=v{i}"))
                        .call();
                    match reply.map(|mut r| r.body_mut().read_to_string()) {
                        Ok(Ok(body)) if body == "stored\n" => acked.lock().unwrap().push(key),
                        _ => return,
                    }
                }
            })
        })
        .collect();
    // Kill once a good part of the thousand puts has been acknowledged.
    assert!(within(patience(30), || acked.lock().unwrap().len() >= 300));
    s.stop("KILL");
    for w in writers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    let s = Server::stored(data.to_str().unwrap());
    for key in &acked {
        let i = key.split('-').nth(1).unwrap();
        assert_eq!(
            s.get(&format!("/t/kill/get?key={key}"), &[]).text(),
            format!("v{i}\n"),
            "{key} was acknowledged"
        );
    }
}

/// `ssr kv key` and `ssr d1 execute|migrations apply` reach a tenant's
/// state through the admin API, with the operator's token or the tenant's
/// own (which reaches no other tenant's): what they write the Worker
/// reads, and the reverse; a migration applies once, and one that fails
/// leaves nothing of itself.
#[test]
fn the_cli_reads_and_writes_kv_and_d1_and_applies_migrations_once() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    assert_eq!(
        s.put_bytes("kvc", &std::fs::read(kv_app()).unwrap(), "").0,
        201
    );
    assert_eq!(
        s.put_bytes("d1c", &std::fs::read(d1_app()).unwrap(), "").0,
        201
    );
    let (own, _) = crate::tokens::make_token(&s, "tenant=kvc");
    let cli = |token: &str, args: &[&str]| {
        let out = ssr()
            .args(args)
            .args(["--server", &s.url(""), "--token", token])
            .output()
            .unwrap();
        (out.status.success(), text(&out.stdout) + &text(&out.stderr))
    };
    let kv = |args: &[&str]| {
        cli(
            &s.token,
            &[&["kv", "key"], args, &["--binding", "KV"]].concat(),
        )
    };
    assert_eq!(
        kv(&["put", "kvc", "greeting", "hello"]),
        (true, String::new())
    );
    assert_eq!(s.get("/t/kvc/get?key=greeting", &[]).text(), "hello\n");
    s.get("/t/kvc/put?key=from-worker&value=hi", &[]);
    assert_eq!(kv(&["get", "kvc", "from-worker"]), (true, "hi\n".into()));
    let (ok, listed) = kv(&["list", "kvc", "--prefix", "from"]);
    assert!(ok, "{listed}");
    assert_eq!(
        listed,
        "{\"keys\":[{\"name\":\"from-worker\"}],\"list_complete\":true}\n"
    );
    assert!(kv(&["delete", "kvc", "greeting"]).0);
    assert_eq!(s.get("/t/kvc/get?key=greeting", &[]).text(), "null\n");
    let (ok, said) = kv(&["get", "kvc", "greeting"]);
    assert!(
        !ok && said.contains("404") && said.contains("no key `greeting`"),
        "{said}"
    );
    let (ok, said) = kv(&["put", "kvc", "x", "v", "--ttl", "30"]);
    assert!(
        !ok && said.contains("Expiration TTL must be at least 60"),
        "{said}"
    );
    let (ok, said) = cli(
        &s.token,
        &["kv", "key", "get", "kvc", "x", "--binding", "NOPE"],
    );
    assert!(
        !ok && said.contains("binds no KV namespace `NOPE`"),
        "{said}"
    );
    // The tenant's own token reaches its own namespace, and no other
    // tenant's bindings.
    assert_eq!(
        cli(
            &own,
            &["kv", "key", "get", "kvc", "from-worker", "--binding", "KV"]
        ),
        (true, "hi\n".into())
    );
    let execute = |token: &str, sql: &str| {
        cli(
            token,
            &["d1", "execute", "d1c", "--binding", "DB", "--command", sql],
        )
    };
    let (ok, said) = execute(&own, "SELECT 1");
    assert!(!ok && said.contains("403"), "{said}");

    let dir = tempdir("d1-migrations");
    std::fs::write(dir.join("0001_init.sql"), "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);\nINSERT INTO notes (text) VALUES ('seeded');\n").unwrap();
    std::fs::write(
        dir.join("0002_more.sql"),
        "INSERT INTO notes (text) VALUES ('second; with a semicolon');",
    )
    .unwrap();
    let dir_arg = dir.to_str().unwrap();
    let apply = || {
        cli(
            &s.token,
            &[
                "d1",
                "migrations",
                "apply",
                "d1c",
                "--binding",
                "DB",
                "--dir",
                dir_arg,
            ],
        )
    };
    assert_eq!(
        apply(),
        (
            true,
            "0001_init.sql: applied\n0002_more.sql: applied\n".into()
        )
    );
    assert_eq!(
        apply(),
        (
            true,
            "0001_init.sql: already applied\n0002_more.sql: already applied\n".into()
        )
    );
    assert_eq!(
        s.get("/t/d1c/notes", &[]).text(),
        "seeded,second; with a semicolon\n"
    );
    std::fs::write(
        dir.join("0003_bad.sql"),
        "INSERT INTO notes (text) VALUES ('half');\nINSERT INTO nope VALUES (1);",
    )
    .unwrap();
    let (ok, said) = apply();
    assert!(
        !ok && said.contains("0003_bad.sql failed") && said.contains("no such table: nope"),
        "{said}"
    );
    assert_eq!(
        s.get("/t/d1c/notes", &[]).text(),
        "seeded,second; with a semicolon\n"
    );
    let (ok, said) = execute(
        &s.token,
        "SELECT count(*) AS n FROM notes; SELECT name FROM d1_migrations ORDER BY id",
    );
    assert!(ok, "{said}");
    assert!(said.contains(r#""columns":["n"],"rows":[[2]]"#), "{said}");
    assert!(
        said.contains(r#""rows":[["0001_init.sql"],["0002_more.sql"]]"#),
        "{said}"
    );
    // An export makes the database again elsewhere: here, in a second
    // tenant's, through `execute --file`.
    let dump = dir.join("dump.sql");
    let dump_arg = dump.to_str().unwrap();
    let (ok, said) = cli(
        &s.token,
        &[
            "d1",
            "export",
            "d1c",
            "--binding",
            "DB",
            "--output",
            dump_arg,
        ],
    );
    assert!(ok, "{said}");
    let sql = std::fs::read_to_string(&dump).unwrap();
    assert!(
        sql.contains("INSERT INTO \"notes\" VALUES(2,'second; with a semicolon');"),
        "{sql}"
    );
    assert_eq!(
        s.put_bytes("d1copy", &std::fs::read(d1_app()).unwrap(), "")
            .0,
        201
    );
    let (ok, said) = cli(
        &s.token,
        &[
            "d1",
            "execute",
            "d1copy",
            "--binding",
            "DB",
            "--file",
            dump_arg,
        ],
    );
    assert!(ok, "{said}");
    assert_eq!(
        s.get("/t/d1copy/notes", &[]).text(),
        "seeded,second; with a semicolon\n"
    );
}

/// `--kv-tenant-mib`: a tenant that fills its quota is refused writes that
/// add bytes, with an error naming the quota; its reads and deletes, and
/// the other tenants' writes, go on. On the embedded store and on Redis,
/// where an entry Redis expired leaves the count at the tenant's next put.
#[test]
fn a_tenant_that_fills_its_kv_quota_is_refused_and_its_neighbours_are_not() {
    fills_its_kv_quota(&[]);
    let redis = crate::cluster::Redis::start();
    let data = tempdir("kv-quota");
    let on_redis = ["--store", &redis.url, "--data-dir", data.to_str().unwrap()];
    fills_its_kv_quota(&on_redis);
    // An entry Redis expired (as Redis does at its expiration: the hash
    // goes, its place among the tenant's expiring entries is past) stops
    // counting at the tenant's next put.
    let quota = ["--demo=false", "--path-routing", "--kv-tenant-mib", "1"];
    let s = Server::start(&[&quota[..], &on_redis].concat());
    assert_eq!(
        s.put_bytes("exp", &std::fs::read(kv_app()).unwrap(), "").0,
        201
    );
    let path = "/_ssr/admin/tenants/exp/kv/KV/values/old?expiration_ttl=3600";
    assert_eq!(s.admin_with("PUT", path, &vec![b'x'; 900 << 10]).0, 204);
    let entry = "ssr:kv:10:exp/kvtest:v:old";
    let mut conn = redis::Client::open(redis.url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut cmd = |args: &[&str]| -> i64 {
        redis::cmd(args[0])
            .arg(&args[1..])
            .query(&mut conn)
            .unwrap()
    };
    assert_eq!(cmd(&["EXISTS", entry]), 1);
    assert_eq!(s.get("/t/exp/put?key=b&value=x", &[]).text(), "stored\n");
    let small = s.admin_with(
        "PUT",
        "/_ssr/admin/tenants/exp/kv/KV/values/new",
        &vec![b'y'; 300 << 10],
    );
    assert_eq!(small.0, 400, "{}", small.1);
    assert_eq!(cmd(&["DEL", entry]), 1);
    assert_eq!(cmd(&["ZADD", "ssr:kvq:3:exp:e", "1", entry]), 0);
    let small = s.admin_with(
        "PUT",
        "/_ssr/admin/tenants/exp/kv/KV/values/new",
        &vec![b'y'; 300 << 10],
    );
    assert_eq!(small.0, 204, "{}", small.1);
}

fn fills_its_kv_quota(store: &[&str]) {
    let quota = ["--demo=false", "--path-routing", "--kv-tenant-mib", "1"];
    let s = Server::start(&[&quota[..], store].concat());
    let plugin = std::fs::read(kv_app()).unwrap();
    for id in ["full", "next"] {
        assert_eq!(s.put_bytes(id, &plugin, "").0, 201);
    }
    let put = |id: &str, key: &str, len: usize| {
        let path = format!("/_ssr/admin/tenants/{id}/kv/KV/values/{key}");
        s.admin_with("PUT", &path, &vec![b'x'; len])
    };
    assert_eq!(put("full", "a", 600 << 10).0, 204);
    let (status, said) = put("full", "b", 600 << 10);
    assert_eq!(status, 400, "{said}");
    assert!(
        said.contains("quota of 1048576 bytes") && said.contains("--kv-tenant-mib"),
        "{said}"
    );
    // Filled to 4 bytes short (a key's bytes count too): the Worker's own
    // put of 5 fails, and its reads go on.
    assert_eq!(put("full", "b", (1 << 20) - (600 << 10) - 2 - 4).0, 204);
    assert_eq!(s.get("/t/full/put?key=c&value=more", &[]).status, 500);
    assert_eq!(
        s.get("/t/full/get?key=b", &[]).text().len(),
        (1 << 20) - (600 << 10) - 6 + 1
    );
    assert_eq!(s.get("/t/full/get?key=c", &[]).text(), "null\n");
    assert_eq!(put("next", "a", 600 << 10).0, 204);
    assert_eq!(
        s.get("/t/next/put?key=c&value=more", &[]).text(),
        "stored\n"
    );
    // A delete gives the room back.
    assert_eq!(
        s.admin("DELETE", "/_ssr/admin/tenants/full/kv/KV/values/a")
            .0,
        204
    );
    assert_eq!(
        s.get("/t/full/put?key=c&value=more", &[]).text(),
        "stored\n"
    );
}

/// `tests/plugins/r2.js` as an app whose wrangler config binds
/// `env.BUCKET`.
pub(crate) fn r2_app() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let bindings = r#""r2_buckets": [{ "binding": "BUCKET", "bucket_name": "r2test" }]"#;
    BUILT.get_or_init(|| bound_app("r2", bindings)).clone()
}

/// `/suite` of `tests/plugins/r2.js` as `wrangler dev` 4.164.0 answered it
/// (Miniflare's R2, on loopback, with the same config).
pub(crate) const WRANGLER_DEV_R2: &str = r#"{"absent":[null,null],"put":{"class":"HeadResult","key":"text","size":8,"etag":"f72d07b94a21055895f22e25c0dd3ee8","httpEtag":"\"f72d07b94a21055895f22e25c0dd3ee8\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"f72d07b94a21055895f22e25c0dd3ee8"},"storageClass":"","hasBody":false,"headers":[]},"get":[{"class":"GetResult","key":"text","size":8,"etag":"f72d07b94a21055895f22e25c0dd3ee8","httpEtag":"\"f72d07b94a21055895f22e25c0dd3ee8\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"f72d07b94a21055895f22e25c0dd3ee8"},"range":{"offset":0,"length":8},"storageClass":"","hasBody":true,"headers":[]},"hello R2",true],"bodies":[[104,101,108,108,111,32,82,50],"hello R2",[8,""],"SyntaxError"],"head":{"class":"HeadResult","key":"text","size":8,"etag":"f72d07b94a21055895f22e25c0dd3ee8","httpEtag":"\"f72d07b94a21055895f22e25c0dd3ee8\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"f72d07b94a21055895f22e25c0dd3ee8"},"range":{"offset":0,"length":8},"storageClass":"","hasBody":false,"headers":[]},"unknownLength":["threw","TypeError","Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)"],"types":[[0,1,254,255],[5,6,7],"from a stream","a response body","a blob",[0,""],[0,""]],"metadata":[{"class":"HeadResult","key":"meta","size":13,"etag":"f21d45cc70f858e2d5296bd73b5a9861","httpEtag":"\"f21d45cc70f858e2d5296bd73b5a9861\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{"contentType":"text/plain; charset=utf-8","contentLanguage":"en","contentDisposition":"attachment; filename=\"a.txt\"","contentEncoding":"identity","cacheControl":"max-age=60","cacheExpiry":"2033-05-18T03:33:20.000Z"},"customMetadata":{"owner":"ann","n":"1"},"checksums":{"md5":"f21d45cc70f858e2d5296bd73b5a9861"},"storageClass":"","hasBody":false,"headers":[["cache-control","max-age=60"],["content-disposition","attachment; filename=\"a.txt\""],["content-encoding","identity"],["content-language","en"],["content-type","text/plain; charset=utf-8"],["expires","Wed, 18 May 2033 03:33:20 GMT"]]},{"class":"HeadResult","key":"meta","size":13,"etag":"f21d45cc70f858e2d5296bd73b5a9861","httpEtag":"\"f21d45cc70f858e2d5296bd73b5a9861\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{"contentType":"text/plain; charset=utf-8","contentLanguage":"en","contentDisposition":"attachment; filename=\"a.txt\"","contentEncoding":"identity","cacheControl":"max-age=60","cacheExpiry":"2033-05-18T03:33:20.000Z"},"customMetadata":{"owner":"ann","n":"1"},"checksums":{"md5":"f21d45cc70f858e2d5296bd73b5a9861"},"range":{"offset":0,"length":13},"storageClass":"","hasBody":false,"headers":[["cache-control","max-age=60"],["content-disposition","attachment; filename=\"a.txt\""],["content-encoding","identity"],["content-language","en"],["content-type","text/plain; charset=utf-8"],["expires","Wed, 18 May 2033 03:33:20 GMT"]]}],"metadataFromHeaders":{"class":"HeadResult","key":"headers","size":1,"etag":"2510c39011c5be704182423e3a695e91","httpEtag":"\"2510c39011c5be704182423e3a695e91\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{"contentType":"image/png","cacheControl":"no-cache"},"customMetadata":{},"checksums":{"md5":"2510c39011c5be704182423e3a695e91"},"storageClass":"","hasBody":false,"headers":[["cache-control","no-cache"],["content-type","image/png"]]},"checksums":[{"class":"HeadResult","key":"md5","size":7,"etag":"3793ea52a7be2d7deafd858fda50775c","httpEtag":"\"3793ea52a7be2d7deafd858fda50775c\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"3793ea52a7be2d7deafd858fda50775c"},"storageClass":"","hasBody":false,"headers":[]},{"class":"HeadResult","key":"md5hex","size":7,"etag":"3793ea52a7be2d7deafd858fda50775c","httpEtag":"\"3793ea52a7be2d7deafd858fda50775c\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"3793ea52a7be2d7deafd858fda50775c"},"storageClass":"","hasBody":false,"headers":[]},{"class":"HeadResult","key":"sha1","size":7,"etag":"3793ea52a7be2d7deafd858fda50775c","httpEtag":"\"3793ea52a7be2d7deafd858fda50775c\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"3793ea52a7be2d7deafd858fda50775c","sha1":"75e4aedce48faf384f3535ffeb842e9a0718a25c"},"storageClass":"","hasBody":false,"headers":[]},{"class":"HeadResult","key":"sha256","size":7,"etag":"3793ea52a7be2d7deafd858fda50775c","httpEtag":"\"3793ea52a7be2d7deafd858fda50775c\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"3793ea52a7be2d7deafd858fda50775c","sha256":"e61a3d78c65133c7260c43e719d97c46e16bd50c64ee7800536cf14c6407a617"},"storageClass":"","hasBody":false,"headers":[]},["threw","Error","put: The MD5 checksum you specified did not match what we received.\nYou provided a MD5 checksum with value: 75e4aedce48faf384f3535ffeb842e9a\nActual MD5 was: 3793ea52a7be2d7deafd858fda50775c (10037)"],["threw","Error","put: The SHA-256 checksum you specified did not match what we received.\nYou provided a SHA-256 checksum with value: 0000000000000000000000000000000000000000000000000000000000000000\nActual SHA-256 was: e61a3d78c65133c7260c43e719d97c46e16bd50c64ee7800536cf14c6407a617 (10037)"],["threw","TypeError","You cannot specify multiple hashing algorithms."],["threw","TypeError","MD5 is 32 hex characters, not 7"],null],"ranges":[["defg",{"offset":3,"length":4}],["uvwxyz",{"offset":20,"length":6}],["abcde",{"offset":0,"length":5}],["xyz",{"offset":23,"length":3}],["abcdefghijklmnopqrstuvwxyz",{"offset":0,"length":26}],["yz",{"offset":24,"length":2}],["cdef",{"offset":2,"length":4}],["wxyz",{"offset":22,"length":4}],["xyz",{"offset":23,"length":3}],["threw","Error","get: The requested range is not satisfiable (10039)"],["threw","Error","get: The requested range is not satisfiable (10039)"],["threw","Error","get: The requested range is not satisfiable (10039)"],["threw","RangeError","Invalid range. Starting offset (-1) must be greater than or equal to 0."],["abcdefghijklmnopqrstuvwxyz",{"offset":0,"length":26}],["abcdefghijklmnopqrstuvwxyz",{"offset":0,"length":26}],["threw","TypeError","Suffix is incompatible with offset."]],"conditions":[[true,"abcdefghijklmnopqrstuvwxyz"],[false,"range"],["threw","TypeError","Conditional ETag should not be wrapped in quotes (\"c3fcd3d76192e4007dfb496cca67e13b\")."],[true,"abcdefghijklmnopqrstuvwxyz"],[false,"range"],[true,"abcdefghijklmnopqrstuvwxyz"],[true,"abcdefghijklmnopqrstuvwxyz"],[false,"range"],[false,"range"],[true,"abcdefghijklmnopqrstuvwxyz"],[false,"range"],[true,"abcdefghijklmnopqrstuvwxyz"],[false,"range"],null],"conditionalPuts":[{"class":"HeadResult","key":"range","size":8,"etag":"91bb248359043fe98416e259c9bdf10d","httpEtag":"\"91bb248359043fe98416e259c9bdf10d\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"91bb248359043fe98416e259c9bdf10d"},"storageClass":"","hasBody":false,"headers":[]},null,"created",null,"replaced","new"],"deleted":[null,null,null,null],"list":[["Z","a/1","a/2","a/b/3","a/b/4","a/c/5","b/1","z","~","é"],false,null,[]],"listObject":{"class":"HeadResult","key":"a/2","size":3,"etag":"08a3a0ab38cac589c7231d171c88091f","httpEtag":"\"08a3a0ab38cac589c7231d171c88091f\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{"md5":"08a3a0ab38cac589c7231d171c88091f"},"storageClass":"","hasBody":false,"headers":[]},"listInclude":[{"contentType":"text/x"},{"tag":"2"}],"delimited":[["a/1","a/2"],["a/b/","a/c/"],false],"startAfter":["b/1","z","~","é"],"pages":[[["a/1","a/2"],true,"string"],[["a/b/3","a/b/4"],true,"string"],[["a/c/5"],false,"undefined"]],"delimitedPages":[[["Z"],["a/"],true],[["z"],["b/"],true],[["~","é"],[],false]],"listNone":{"objects":[],"truncated":false,"delimitedPrefixes":[]},"multipartUpload":["R2MultipartUpload","multi","string",["abort","complete","constructor","uploadPart"]],"parts":[[1,"string",["partNumber","etag"]],[2,"string",["partNumber","etag"]],[3,"string",["partNumber","etag"]]],"partsNotOnList":[],"outOfOrder":["threw","Error","completeMultipartUpload: Your proposed upload is smaller than the minimum allowed object size. (10011)"],"completed":{"class":"HeadResult","key":"multi","size":10485773,"etag":"a64d24031fe9410a4fe7794f448eabe4-3","httpEtag":"\"a64d24031fe9410a4fe7794f448eabe4-3\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{"contentType":"text/plain"},"customMetadata":{"parts":"3"},"checksums":{},"storageClass":"","hasBody":false,"headers":[["content-type","text/plain"]]},"multipart":[10485773,"aaacbc","bcband the third"],"multipartRange":"cband the ","completeAgain":["threw","Error","completeMultipartUpload: The specified multipart upload does not exist. (10024)"],"multipartRefused":[["threw","Error","completeMultipartUpload: Your proposed upload is smaller than the minimum allowed object size. (10011)"],["threw","Error","completeMultipartUpload: One or more of the specified parts could not be found. (10025)"],["threw","TypeError","Part number must be between 1 and 10000 (inclusive). Actual value was: 0"],["threw","TypeError","Part number must be between 1 and 10000 (inclusive). Actual value was: 10001"],["threw","Error","uploadPart: The specified multipart upload does not exist. (10024)"],["threw","Error","completeMultipartUpload: We encountered an internal error. Please try again. (10001)"]],"aborted":[["threw","Error","uploadPart: The specified multipart upload does not exist. (10024)"],["threw","Error","completeMultipartUpload: The specified multipart upload does not exist. (10024)"],null,null],"singlePart":{"class":"HeadResult","key":"single","size":8,"etag":"8a3b4fd112339f3af0558e0a0937ed63-1","httpEtag":"\"8a3b4fd112339f3af0558e0a0937ed63-1\"","version":["string",32],"uploaded":"[object Date]","httpMetadata":{},"customMetadata":{},"checksums":{},"storageClass":"","hasBody":false,"headers":[]},"refused":[["threw","Error","put: The specified object name is not valid. (10020)"],["threw","Error","get: The specified object name is not valid. (10020)"],["threw","Error","head: The specified object name is not valid. (10020)"],["threw","Error","put: Your metadata headers exceed the maximum allowed metadata size. (10012)"],["threw","Error","list: MaxKeys params must be positive integer <= 1000. (10022)"],["threw","Error","list: MaxKeys params must be positive integer <= 1000. (10022)"],["threw","RangeError","Unsupported include value nope"],["threw","TypeError","Failed to execute 'put' on 'R2Bucket': parameter 2 is not of type 'JsReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'."],["threw","TypeError","Failed to execute 'put' on 'R2Bucket': parameter 2 is not of type 'JsReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'."],["threw","TypeError","Incorrect type for the 'range' field on 'GetOptions': the provided value is not of type 'Range or Headers'."],"",["threw","Error","createMultipartUpload: The specified object name is not valid. (10020)"]],"afterRefused":[null,null],"shape":["[object R2Bucket]",["constructor","createMultipartUpload","delete","get","head","list","put","resumeMultipartUpload"],"R2Bucket",["arrayBuffer","blob","body","bodyUsed","bytes","constructor","json","text"],["constructor","writeHttpMetadata"]]}"#;

/// Every R2 method and option (ranges, conditions, checksums, metadata,
/// listing with delimiters and cursors, multipart uploads), and R2's
/// limits and errors, as `wrangler dev` answers them, on both engines.
#[test]
fn r2_answers_as_wrangler_dev_on_both_engines() {
    suite_renders_as_wrangler_dev(&r2_app(), WRANGLER_DEV_R2);
}

/// Under `ssr serve` with a data dir: the same answers on both engines; a
/// bucket is the tenant's own; objects stream both ways (40 MiB written
/// from a stream and read back whole, a piece at a time); what was put is
/// there, byte for byte, after a restart; a range and a condition of the
/// request's headers answer as HTTP does.
#[test]
fn r2_keeps_each_tenants_objects_across_requests_and_restarts_on_both_engines() {
    let data = tempdir("r2-data");
    let plugin = std::fs::read(r2_app()).unwrap();
    let s = Server::stored(data.to_str().unwrap());
    suite_serves_as_wrangler_dev(&s, "r2", &plugin, WRANGLER_DEV_R2);
    let x40 = {
        use sha2::Digest as _;
        ssr::artifact::hex(&sha2::Sha256::digest(vec![b'x'; 40 << 20]))
    };
    for engine in Engines::KINDS {
        let id = format!("r2-{engine}");
        let body = format!("from {engine}");
        let headers = [("content-type", "text/x")];
        let put = s.send(
            "POST",
            &format!("/t/{id}/put?key=up"),
            &headers,
            body.as_bytes(),
        );
        assert_eq!(put.status, 200, "{engine}: {}", put.text());
        let got = s.get(&format!("/t/{id}/big?key=big&mib=40"), &[]);
        assert_eq!(got.status, 200, "{engine}: {}", got.text());
        assert_eq!(got.text(), format!("41943040 {x40}\n"), "{engine}");
    }
    drop(s);
    let s = Server::stored(data.to_str().unwrap());
    for engine in Engines::KINDS {
        let id = format!("r2-{engine}");
        let got = s.get(&format!("/t/{id}/get?key=up"), &[]);
        assert_eq!(got.text(), format!("from {engine}"));
        assert_eq!(got.header("content-type"), Some("text/x"));
        let etag = got.header("etag").unwrap().to_string();
        let ranged = s.get(&format!("/t/{id}/get?key=up"), &[("range", "bytes=0-3")]);
        assert_eq!((ranged.status, ranged.text()), (206, "from".to_string()));
        let unchanged = s.get(&format!("/t/{id}/get?key=up"), &[("if-none-match", &etag)]);
        assert_eq!(unchanged.status, 304);
        assert_eq!(s.get(&format!("/t/{id}/get?key=text"), &[]).status, 404);
    }
    // A third tenant of the same config reaches a bucket of its own.
    assert_eq!(s.put_bytes("r2-other", &plugin, "").0, 201);
    assert_eq!(s.get("/t/r2-other/get?key=up", &[]).status, 404);
}

/// Quotas the operator sets at registration (`kv_mib`, `r2_mib`,
/// `d1_mib`) hold for that tenant alone, and the bindings API shows what
/// each binding holds against them.
#[test]
fn quotas_set_at_registration_hold_for_that_tenant_and_the_bindings_api_shows_them() {
    let data = tempdir("quotas");
    let s = Server::stored(data.to_str().unwrap());
    let usage = |id: &str| {
        let (status, body) = s.admin("GET", &format!("/_ssr/admin/tenants/{id}/bindings"));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()
    };
    let (status, said) = s.put_bytes("kv-zero", &std::fs::read(kv_app()).unwrap(), "kv_mib=0");
    assert_eq!(status, 400, "{said}");
    assert!(said.contains("`kv_mib`"), "{said}");

    let kv = std::fs::read(kv_app()).unwrap();
    assert_eq!(s.put_bytes("kv-small", &kv, "kv_mib=1").0, 201);
    assert_eq!(s.put_bytes("kv-big", &kv, "").0, 201);
    let put = |id: &str, key: &str| {
        let path = format!("/_ssr/admin/tenants/{id}/kv/KV/values/{key}");
        s.admin_with("PUT", &path, &vec![b'x'; 600 << 10])
    };
    for id in ["kv-small", "kv-big"] {
        assert_eq!(put(id, "a").0, 204);
    }
    let (status, said) = put("kv-small", "b");
    assert_eq!(status, 400, "{said}");
    assert!(
        said.contains("quota of 1048576 bytes") && said.contains("kv_mib"),
        "{said}"
    );
    assert_eq!(put("kv-big", "b").0, 204);
    let small = usage("kv-small");
    assert_eq!(small["kv"]["bytes"], (600 << 10) + 1, "{small}");
    assert_eq!(small["kv"]["quota_bytes"], 1 << 20, "{small}");
    assert_eq!(small["kv"]["namespaces"][0]["binding"], "KV", "{small}");
    assert_eq!(usage("kv-big")["kv"]["bytes"], 2 * ((600 << 10) + 1));
    let (_, shown) = s.admin("GET", "/_ssr/admin/tenants/kv-small");
    assert!(shown.contains("\"kv_mib\":1"), "{shown}");

    let r2 = std::fs::read(r2_app()).unwrap();
    assert_eq!(s.put_bytes("r2-small", &r2, "r2_mib=1").0, 201);
    let refused = s.get("/t/r2-small/big?key=a&mib=2", &[]);
    assert_eq!(refused.status, 507, "{}", refused.text());
    assert!(refused.text().contains("r2_mib"), "{}", refused.text());
    let path = "/_ssr/admin/tenants/r2-small/r2/BUCKET/objects/kept";
    assert_eq!(s.admin_with("PUT", path, &[b'y'; 1000]).0, 200);
    let small = usage("r2-small");
    assert_eq!(small["r2"]["bytes"], 1000, "{small}");
    assert_eq!(small["r2"]["quota_bytes"], 1 << 20, "{small}");

    let d1 = std::fs::read(d1_app()).unwrap();
    assert_eq!(s.put_bytes("d1-small", &d1, "d1_mib=1").0, 201);
    let exec = |sql: &str| {
        s.admin_with(
            "POST",
            "/_ssr/admin/tenants/d1-small/d1/DB/execute",
            sql.as_bytes(),
        )
    };
    let (status, said) =
        exec("CREATE TABLE big (b BLOB); INSERT INTO big VALUES (zeroblob(700000))");
    assert_eq!(status, 200, "{said}");
    let (status, said) = exec("INSERT INTO big VALUES (zeroblob(700000))");
    assert_eq!(status, 400, "{said}");
    assert!(said.contains("full"), "{said}");
    let small = usage("d1-small");
    let bytes = small["d1"]["databases"][0]["bytes"].as_u64().unwrap();
    assert!((700_000..=1 << 20).contains(&bytes), "{small}");
}

/// A tenant at its R2 quota: a streamed put that would pass it is refused
/// before a byte is written (a 4 GiB stream on a 64 MiB tenant ends at
/// once), its reads go on, and a neighbour's writes do.
#[test]
fn a_tenant_past_its_r2_quota_is_refused_at_once_and_its_neighbours_are_not() {
    let s = Server::start(&["--demo=false", "--path-routing", "--r2-tenant-mib", "64"]);
    let plugin = std::fs::read(r2_app()).unwrap();
    for id in ["full", "next"] {
        assert_eq!(s.put_bytes(id, &plugin, "").0, 201);
    }
    let big =
        |id: &str, key: &str, mib: u32| s.get(&format!("/t/{id}/big?key={key}&mib={mib}"), &[]);
    assert_eq!(big("full", "a", 40).status, 200);
    let refused = big("full", "b", 4 << 10);
    assert_eq!(refused.status, 507, "{}", refused.text());
    assert!(
        refused.text().contains("quota") && refused.text().contains("--r2-tenant-mib"),
        "{}",
        refused.text()
    );
    let refused = big("full", "b", 30);
    assert_eq!(refused.status, 507, "{}", refused.text());
    assert_eq!(
        big("full", "a", 20).status,
        200,
        "a replacement within the quota"
    );
    assert_eq!(big("next", "a", 40).status, 200);
    assert_eq!(
        s.get("/t/full/get?key=a", &[("range", "bytes=-3")]).text(),
        "xxx"
    );
}

/// `tests/plugins/scheduled.js` as an app with a cron trigger of every
/// minute and a KV namespace its handler records its runs in.
pub(crate) fn scheduled_app() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let bindings = r#""kv_namespaces": [{ "binding": "KV", "id": "runs" }], "triggers": { "crons": ["* * * * *"] }"#;
    BUILT
        .get_or_init(|| bound_app("scheduled", bindings))
        .clone()
}

/// `ssr tenant trigger` runs a tenant's `scheduled` handler as a cron
/// trigger would, on both engines: the handler sees its controller and
/// `env`, its `ctx.waitUntil` work is done; one that throws and one that
/// never ends are bounded and said, and the next run goes on.
#[test]
fn a_scheduled_handler_runs_by_hand_and_its_failures_are_bounded_on_both_engines() {
    let s = Server::start(&["--demo=false", "--path-routing", "--render-deadline", "300"]);
    let plugin = std::fs::read(scheduled_app()).unwrap();
    for engine in Engines::KINDS {
        let id = format!("cron-{engine}");
        assert_eq!(
            s.put_bytes(&id, &plugin, &format!("engine={engine}")).0,
            201
        );
        let trigger = |args: &[&str]| {
            let out = ssr()
                .args(["tenant", "trigger", &id])
                .args(args)
                .args(["--server", &s.url(""), "--token", &s.token])
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
        };
        let ran = trigger(&["--cron", "*/5 * * * *", "--time", "1795955400000"]);
        assert_eq!(ran["outcome"], "ok", "{engine}: {ran}");
        let runs = s
            .get(&format!("/t/{id}/runs?minute=1795955400000"), &[])
            .text();
        assert_eq!(
            runs,
            r#"[{"cron":"*/5 * * * *","scheduledTime":1795955400000,"type":"scheduled","controller":"[object ScheduledController]","noRetry":"function","env":["KV"],"waitedUntil":true}]"#,
            "{engine}"
        );
        let threw = trigger(&["--cron", "0 0 1 1 *"]);
        assert_eq!(threw["outcome"], "error", "{engine}: {threw}");
        assert!(
            threw["error"]
                .as_str()
                .unwrap()
                .contains("the scheduled handler threw"),
            "{engine}: {threw}"
        );
        let looped = trigger(&["--cron", "0 0 2 1 *"]);
        assert_eq!(looped["outcome"], "error", "{engine}: {looped}");
        // The app's own trigger (which the server also fires each
        // minute): it runs, and requests are served.
        assert_eq!(
            trigger(&["--time", "1795955460000"])["outcome"],
            "ok",
            "{engine}"
        );
        let runs = s
            .get(&format!("/t/{id}/runs?minute=1795955460000"), &[])
            .text();
        assert!(
            runs.contains(r#""cron":"* * * * *","scheduledTime":1795955460000"#),
            "{runs}"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/"), &[]).text(),
            "a Worker of cron triggers\n"
        );
    }
    let bad = s.admin(
        "POST",
        "/_ssr/admin/tenants/cron-wasm/scheduled?cron=61+*+*+*+*",
    );
    assert_eq!(bad.0, 400, "{}", bad.1);
    assert!(
        bad.1.contains("is not a cron expression Workers reads"),
        "{}",
        bad.1
    );
}

/// An app whose cron trigger Workers would not read is refused by the
/// build, naming it.
#[test]
fn a_cron_trigger_workers_would_refuse_is_refused_by_the_build() {
    let source = std::fs::read_to_string(root().join("tests/plugins/scheduled.js")).unwrap();
    let config =
        r#"{ "name": "bad-cron", "main": "index.js", "triggers": { "crons": ["*/5 * * *"] } }"#;
    let (_, out) = build_app(
        "bad-cron",
        &[("wrangler.jsonc", config), ("index.js", &source)],
    );
    assert!(!out.status.success());
    let said = text(&out.stderr);
    assert!(
        said.contains("triggers.crons: `*/5 * * *` is not a cron expression of five fields"),
        "{said}"
    );
}

/// `tests/plugins/services.js`'s `/rpc` as `wrangler dev` answers it: RPC
/// to a `WorkerEntrypoint`'s methods through a named entrypoint, values
/// structured clone carries, a thrown error's class and message, a method
/// the receiver lacks, a receiver that is no entrypoint, and properties
/// read by RPC (a getter's value, its throw, one the receiver lacks).
const WRANGLER_DEV_RPC: &str = r#"{"add":5,"echo":{"text":"é","list":[1,"two",null,true],"date":["Date","1970-01-01T00:00:00.000Z"],"re":["RegExp","/a+b/gi"],"map":["Map",[[1,"one"],["k",{"deep":[1]}]]],"set":["Set",["a",2]],"bytes":["Uint8Array",[0,1,255]],"floats":["Float64Array",[0,0,0,0,0,0,248,63,0,0,0,0,0,0,0,192]],"buffer":["ArrayBuffer",[7,8]],"big":["bigint","12345678901234567890"],"nan":["number","NaN"],"inf":["number","-Infinity"],"negZero":["-0"],"missing":["undefined"],"error":["TypeError","TypeError","carried"],"a":{"n":1},"b":{"n":1}},"shared":true,"greeting":"hi from Counter","inherited":"from the base class","fail":["threw","RangeError","out of range on purpose"],"failClass":true,"nope":["threw","TypeError","The RPC receiver does not implement the method \"nope\"."],"notEntrypoint":["threw","TypeError","The RPC receiver does not implement the method \"add\"."],"property":"the counter of hi","propertyThrows":["threw","SyntaxError","a getter that throws"],"propertyMissing":["threw","TypeError","The RPC receiver does not implement the method \"nothing\"."],"then":"undefined","awaited":"[object Fetcher]"}"#;

/// A service binding to the app itself (its own name in `services`, as
/// OpenNext's WORKER_SELF_REFERENCE): the request, its method, URL,
/// headers and body, reach the tenant's own handler in the caller's
/// instance, sharing its module state, and its response comes back, on
/// both engines; a chain of calls is bounded in depth.
#[test]
fn a_service_binding_reaches_the_app_itself_on_both_engines() {
    let bindings = r#""vars": { "GREETING": "hi" }, "services": [{ "binding": "SELF", "service": "services" }, { "binding": "COUNTER", "service": "services", "entrypoint": "Counter" }, { "binding": "CHILD", "service": "services", "entrypoint": "Child" }]"#;
    let plugin = std::fs::read(bound_app("services", bindings)).unwrap();
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--tenant-concurrency",
        "20",
    ]);
    for engine in Engines::KINDS {
        let id = format!("svc-{engine}");
        assert_eq!(
            s.put_bytes(&id, &plugin, &format!("engine={engine}")).0,
            201
        );
        assert_eq!(
            s.get(&format!("/t/{id}/call"), &[]).text(),
            "201 Created callee hello POST https://self.internal/hello?q=1 yes a body",
            "{engine}"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/shape"), &[]).text(),
            r#"["[object Fetcher]","function",["CHILD","COUNTER","GREETING","SELF"]]"#,
            "{engine}"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/deep?n=3"), &[]).text(),
            "3 > 2 > 1 > bottom"
        );
        // The call is answered in the caller's instance, as `workerd`
        // answers it in the caller's isolate: its module state is the
        // caller's.
        for mark in ["m1", "m2"] {
            assert_eq!(
                s.get(&format!("/t/{id}/state?mark={mark}"), &[]).text(),
                format!("fetch saw {mark}, rpc saw {mark}"),
                "{engine}"
            );
        }
        // `Fetcher.scheduled()`, as `workerd` has it: the app's own
        // `scheduled` handler runs, and a throw is its outcome.
        assert_eq!(
            s.get(&format!("/t/{id}/scheduled"), &[]).text(),
            r#"["function",{"outcome":"ok","noRetry":false},{"outcome":"exception","noRetry":false},[["0 0 * * *",5000],["throw",6000]]]"#,
            "{engine}"
        );
        let deep = s.get(&format!("/t/{id}/deep?n=18"), &[]).text();
        assert!(
            deep.contains("a chain of service calls is at most 16 deep"),
            "{engine}: {deep}"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/rpc"), &[]).text(),
            WRANGLER_DEV_RPC,
            "{engine}"
        );
        // A request to a named entrypoint reaches that class's `fetch`
        // (`wrangler dev` 4.164.0 answered the same); a client cannot
        // name one.
        assert_eq!(
            s.get(&format!("/t/{id}/entrypoint"), &[]).text(),
            "200 the counter's fetch: PUT /count hi",
            "{engine}"
        );
        let forged = s.get(
            &format!("/t/{id}/hello"),
            &[("x-ssr-service-entrypoint", "Counter")],
        );
        assert!(forged.text().starts_with("hello GET"), "{engine}");
        // A chain waits only for slots one level deeper than its own: one
        // render at a time per level is enough, for one chain and for two
        // at once.
        let narrow = format!("svc-narrow-{engine}");
        let query = format!("engine={engine}&max_concurrency=1");
        assert_eq!(s.put_bytes(&narrow, &plugin, &query).0, 201);
        assert_eq!(
            s.get(&format!("/t/{narrow}/deep?n=5"), &[]).text(),
            "5 > 4 > 3 > 2 > 1 > bottom",
            "{engine}"
        );
        std::thread::scope(|scope| {
            let calls: Vec<_> = (0..2)
                .map(|_| scope.spawn(|| s.get(&format!("/t/{narrow}/deep?n=2"), &[]).text()))
                .collect();
            for call in calls {
                assert_eq!(call.join().unwrap(), "2 > 1 > bottom", "{engine}");
            }
        });
        // A client cannot say how deep it is.
        let forged = s.get(
            &format!("/t/{id}/deep?n=1"),
            &[("x-ssr-service-depth", "16")],
        );
        assert_eq!(forged.text(), "1 > bottom", "{engine}");
    }
}

/// A service binding to another tenant works only where the operator
/// granted it (`allow_service`), which the caller's own token cannot
/// change; the callee runs as itself (its own vars), by RPC and by fetch.
#[test]
fn a_service_binding_reaches_another_tenant_only_where_the_operator_granted_it() {
    let callee = r#""vars": { "GREETING": "hi" }, "services": [{ "binding": "SELF", "service": "services" }, { "binding": "COUNTER", "service": "services", "entrypoint": "Counter" }, { "binding": "CHILD", "service": "services", "entrypoint": "Child" }]"#;
    let callee = std::fs::read(bound_app("services", callee)).unwrap();
    let caller = r#""vars": { "GREETING": "the caller's" }, "services": [{ "binding": "OTHER", "service": "svc-callee", "entrypoint": "Counter" }, { "binding": "OTHER_HTTP", "service": "svc-callee" }]"#;
    let caller = std::fs::read(bound_app("service-caller", caller)).unwrap();
    let s = Server::start(&["--demo=false", "--path-routing"]);
    assert_eq!(s.put_bytes("svc-callee", &callee, "").0, 201);
    let (status, said) = s.put_bytes("svc-bad", &caller, "allow_service=No_Such");
    assert_eq!(status, 400, "{said}");
    assert!(said.contains("`allow_service`"), "{said}");
    for engine in Engines::KINDS {
        let id = format!("svc-caller-{engine}");
        assert_eq!(
            s.put_bytes(&id, &caller, &format!("engine={engine}")).0,
            201
        );
        let refused = s.get(&format!("/t/{id}/rpc"), &[]).text();
        let why = format!(
            "tenant `{id}` may not call tenant `svc-callee`: the operator grants it with `allow_service=svc-callee`"
        );
        assert!(refused.contains(&why), "{engine}: {refused}");
        assert!(s.get(&format!("/t/{id}/fetch"), &[]).text().contains(&why));
        let query = format!("engine={engine}&allow_service=svc-callee");
        assert_eq!(s.put_bytes(&id, &caller, &query).0, 200);
        assert_eq!(
            s.get(&format!("/t/{id}/rpc"), &[]).text(),
            r#"[5,"hi from Counter"]"#,
            "{engine}"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/fetch"), &[]).text(),
            "201 hello POST https://other.internal/hello null x",
            "{engine}"
        );
        // Its own token may not widen (nor drop) what the operator granted.
        let (status, body) = s.admin_with("POST", &format!("/_ssr/admin/tokens?tenant={id}"), b"");
        assert_eq!(status, 201, "{body}");
        let token: serde_json::Value = serde_json::from_str(&body).unwrap();
        let auth = format!("Bearer {}", token["token"].as_str().unwrap());
        let path = format!("/_ssr/admin/tenants/{id}?engine={engine}&allow_service=svc-other");
        let widened = s.send("PUT", &path, &[("authorization", &auth)], &caller);
        assert_eq!(widened.status, 403, "{}", widened.text());
        let path = format!("/_ssr/admin/tenants/{id}?engine={engine}");
        let kept = s.send("PUT", &path, &[("authorization", &auth)], &caller);
        assert_eq!(kept.status, 200, "{}", kept.text());
        assert_eq!(
            s.get(&format!("/t/{id}/rpc"), &[]).text(),
            r#"[5,"hi from Counter"]"#
        );
    }
}

/// `ssr r2 object put|get|delete` reach a tenant's bucket through the
/// admin API, with the operator's token or the tenant's own (which reaches
/// no other tenant's): what they write the Worker reads, and the reverse,
/// an object larger than one piece streamed whole.
#[test]
fn the_cli_reads_and_writes_r2_objects() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let plugin = std::fs::read(r2_app()).unwrap();
    for id in ["r2c", "r2d"] {
        assert_eq!(s.put_bytes(id, &plugin, "").0, 201);
    }
    let (own, _) = crate::tokens::make_token(&s, "tenant=r2c");
    let dir = tempdir("r2-cli");
    let file = dir.join("in.bin");
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &bytes).unwrap();
    let cli = |token: &str, args: &[&str]| {
        ssr()
            .args(["r2", "object"])
            .args(args)
            .args([
                "--binding",
                "BUCKET",
                "--server",
                &s.url(""),
                "--token",
                token,
            ])
            .output()
            .unwrap()
    };
    let file_arg = file.to_str().unwrap();
    let put = cli(
        &s.token,
        &[
            "put",
            "r2c",
            "dir/blob.bin",
            "--file",
            file_arg,
            "--content-type",
            "application/x-test",
        ],
    );
    assert!(put.status.success(), "{}", text(&put.stderr));
    assert!(
        text(&put.stdout).contains("\"size\":300000"),
        "{}",
        text(&put.stdout)
    );
    let got = s.get("/t/r2c/get?key=dir/blob.bin", &[]);
    assert!(got.body == bytes, "the Worker reads what the CLI put");
    assert_eq!(got.header("content-type"), Some("application/x-test"));
    let posted = s.send(
        "POST",
        "/t/r2c/put?key=from-worker",
        &[],
        b"written by the worker",
    );
    assert_eq!(posted.status, 200);
    let out = cli(&own, &["get", "r2c", "from-worker"]);
    assert_eq!(text(&out.stdout), "written by the worker");
    let copy = dir.join("out.bin");
    let out = cli(
        &own,
        &[
            "get",
            "r2c",
            "dir/blob.bin",
            "--file",
            copy.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        std::fs::read(&copy).unwrap() == bytes,
        "the CLI reads it whole"
    );
    let other = cli(&own, &["get", "r2d", "x"]);
    assert!(!other.status.success());
    assert!(
        text(&other.stderr).contains("reaches tenant `r2c` only"),
        "{}",
        text(&other.stderr)
    );
    assert!(
        cli(&own, &["delete", "r2c", "from-worker"])
            .status
            .success()
    );
    assert_eq!(s.get("/t/r2c/get?key=from-worker", &[]).status, 404);
    let missing = cli(&s.token, &["get", "r2c", "from-worker"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("no object `from-worker`"),
        "{}",
        text(&missing.stderr)
    );
}

/// A multipart upload left unfinished past `--r2-upload-expiry` is aborted
/// and its parts deleted (their bytes leave the tenant's quota); one
/// within it goes on.
#[test]
fn an_abandoned_multipart_upload_is_aborted_after_its_expiry() {
    // Long enough that `fresh` is resumed well within it on a busy machine.
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--r2-upload-expiry",
        "5000",
        "--request-timeout",
        "5000",
    ]);
    assert_eq!(
        s.put_bytes("up", &std::fs::read(r2_app()).unwrap(), "").0,
        201
    );
    let left = s.get("/t/up/start-upload?key=left", &[]).text();
    let fresh = s.get("/t/up/start-upload?key=fresh", &[]).text();
    assert_eq!(
        s.get(&format!("/t/up/resume?key=fresh&id={fresh}"), &[])
            .text(),
        "added"
    );
    let gone = "uploadPart: The specified multipart upload does not exist. (10024)";
    let aborted = within(patience(30), || {
        s.get(&format!("/t/up/resume?key=left&id={left}"), &[])
            .text()
            == gone
    });
    assert!(aborted, "the upload left unfinished was not aborted");
}

/// `ssr deploy --migrate` applies each D1 binding's migrations (the
/// config's `migrations_dir`) once the site is deployed, each once.
#[test]
fn ssr_deploy_migrate_applies_the_d1_migrations_once() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let dir = tempdir("deploy-migrate");
    std::fs::create_dir_all(dir.join("db/migrations")).unwrap();
    std::fs::write(
        dir.join("db/migrations/0001_users.sql"),
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO users (name) VALUES ('ann'), ('bob');",
    )
    .unwrap();
    std::fs::write(
        dir.join("index.js"),
        "export default { async fetch(r, env) { const n = await env.DB.prepare('SELECT count(*) AS n FROM users').first('n'); return new Response(`${n} users`) } }",
    )
    .unwrap();
    std::fs::write(
        dir.join("wrangler.jsonc"),
        r#"{ "name": "mig", "main": "index.js", "d1_databases": [{ "binding": "DB", "database_name": "app", "migrations_dir": "db/migrations" }] }"#,
    )
    .unwrap();
    let deploy = || {
        let out = ssr()
            .args(["deploy", "--migrate", "--quiet"])
            .current_dir(&dir)
            .env("PATH", with_esbuild())
            .env("SSR_SERVER", s.url(""))
            .env("SSR_TOKEN", &s.token)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let first = deploy();
    assert!(first.contains("0001_users.sql: applied"), "{first}");
    assert_eq!(s.get("/t/mig/", &[]).text(), "2 users");
    let again = deploy();
    assert!(again.contains("0001_users.sql: already applied"), "{again}");
    assert_eq!(s.get("/t/mig/", &[]).text(), "2 users");
}
