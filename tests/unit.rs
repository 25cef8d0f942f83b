//! The `ssr` library's unit tests (`host/src/unit.rs`), under libtest's
//! filters, threads and output: `cargo test --release -p ssr --features
//! test-hooks --test unit [FILTER]`.

use libtest_mimic::{Arguments, Trial};

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = ssr::unit::UNITS
        .iter()
        .map(|unit| {
            let name = unit.name.strip_prefix("ssr::").unwrap_or(unit.name);
            let run = unit.run;
            Trial::test(name, move || {
                run();
                Ok(())
            })
        })
        .collect();
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    libtest_mimic::run(&args, trials).exit();
}
