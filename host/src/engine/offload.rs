//! Host calls too long for a render's worker thread: RSA key generation
//! (a 3072-bit key takes 0.3-3 s), PBKDF2 (as long as its iteration
//! count says) and scrypt, and `node:crypto`'s reading of a key with a
//! passphrase (its PBKDF2 or scrypt), its primes and Diffie-Hellman. On the Wasm engine a worker interleaves many tenants'
//! renders; one of these calls run there would hold every one of them
//! (a neighbour waited 0.45-2.6 s behind one `generateKey`). Run here, on
//! threads of their own, the render that asked is suspended as it is for a
//! `fetch`, and its worker goes on with the others.
//!
//! Invariants:
//! - At most one such call per core runs at once, over all tenants; more
//!   wait their turn, suspended (a render's wall-clock deadline still
//!   ends its wait). Each runs at a long render's low priority
//!   (`sched::LOWER_BY`), as the workers' background lanes do.
//! - The CPU time a call takes is the render's ([`Done::cpu`]): the engine
//!   adds it to the render's own, so its CPU limit holds. A call cannot be
//!   stopped once it runs; its render is stopped after it, at the limit.

use std::sync::LazyLock;
use std::time::Duration;

use contract::{Reply, calls};
use serde::Deserialize;

/// What an offloaded call gave, and the CPU time it took.
pub struct Done {
    pub reply: Result<Reply, String>,
    pub cpu: Duration,
}

/// Whether the call `name` with `args` is one to run here.
pub fn is_long(name: &str, args: &str) -> bool {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Op<'a> {
        op: &'a str,
        #[serde(default)]
        alg: &'a str,
        #[serde(default)]
        has_passphrase: bool,
    }
    if name != calls::CRYPTO {
        return false;
    }
    match serde_json::from_str::<Op>(args) {
        Ok(Op {
            op: "generate",
            alg,
            ..
        }) => alg.starts_with("RSA"),
        Ok(Op {
            op: "derive", alg, ..
        }) => alg == "PBKDF2" || alg == "scrypt",
        Ok(Op {
            op: "nodeGenerateRsa" | "nodeDh" | "nodePrime",
            ..
        }) => true,
        Ok(Op {
            op: "nodeImport",
            has_passphrase,
            ..
        }) => has_passphrase,
        _ => false,
    }
}

static SLOTS: LazyLock<tokio::sync::Semaphore> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    tokio::sync::Semaphore::new(cores)
});

/// Runs the pure call `name` on a thread of its own, when one of the
/// [`SLOTS`] is free.
pub async fn run(name: &str, args: &str, data: &[u8]) -> Done {
    let failed = |why: String| Done {
        reply: Err(format!("{name}: {why}")),
        cpu: Duration::ZERO,
    };
    let Ok(_slot) = SLOTS.acquire().await else {
        return failed("the host's pool for long calls is closed".into());
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let (args, data) = (args.to_string(), data.to_vec());
    let spawned = std::thread::Builder::new()
        .name("ssr-long-call".into())
        .spawn(move || {
            // A long render's work: at a long render's priority.
            crate::sched::lower(crate::sched::current_thread(), crate::sched::LOWER_BY);
            let started = crate::sched::thread_cpu_time();
            let reply = crate::web::crypto::call(&args, &data);
            let cpu = crate::sched::thread_cpu_time().saturating_sub(started);
            let _ = tx.send(Done { reply, cpu });
        });
    if let Err(e) = spawned {
        return failed(format!("starting a thread: {e}"));
    }
    rx.await
        .unwrap_or_else(|_| failed("its thread ended without an answer".into()))
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn rsa_generation_pbkdf2_and_scrypt_are_long_and_the_rest_is_not() {
        assert!(is_long(
            calls::CRYPTO,
            r#"{"op":"generate","alg":"RSA-PSS","parts":[]}"#
        ));
        assert!(is_long(
            calls::CRYPTO,
            r#"{"op":"derive","alg":"PBKDF2","parts":[]}"#
        ));
        assert!(is_long(
            calls::CRYPTO,
            r#"{"op":"derive","alg":"scrypt","cost":16384,"parts":[]}"#
        ));
        assert!(!is_long(
            calls::CRYPTO,
            r#"{"op":"generate","alg":"ECDSA","parts":[]}"#
        ));
        // node:crypto's: RSA generation, and a key read with a passphrase.
        assert!(is_long(
            calls::CRYPTO,
            r#"{"op":"nodeGenerateRsa","modulusLength":2048,"parts":[]}"#
        ));
        assert!(is_long(
            calls::CRYPTO,
            r#"{"op":"nodeImport","hasPassphrase":true,"parts":[1,1]}"#
        ));
        assert!(!is_long(
            calls::CRYPTO,
            r#"{"op":"nodeImport","hasPassphrase":false,"parts":[1]}"#
        ));
        assert!(!is_long(
            calls::CRYPTO,
            r#"{"op":"digest","alg":"SHA-256","parts":[]}"#
        ));
        assert!(!is_long(calls::URL, r#"{"op":"generate","alg":"RSA-PSS"}"#));
    }

    crate::unit_tests!(rsa_generation_pbkdf2_and_scrypt_are_long_and_the_rest_is_not);
}
