//! Joins the prelude's files (`prelude/NN_<api>.js`, in the order of their
//! numbers) into the one block every engine evaluates (`PRELUDE`).
//!
//! Each file opens with a header of `//!` lines (what it defines, the host
//! calls it makes, its Rust file, WPT directory and test plugin) for the
//! people who read it; the join leaves the headers out, so what an engine
//! evaluates, and every plugin's snapshot keeps, is the code alone.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("prelude");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "js"))
        .collect();
    files.sort();
    let mut joined = String::new();
    for file in &files {
        let text =
            fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let mut lines = text.split_inclusive('\n').peekable();
        while lines.next_if(|l| l.starts_with("//!")).is_some() {}
        joined.extend(lines);
    }
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("prelude.js");
    fs::write(&out, joined).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
