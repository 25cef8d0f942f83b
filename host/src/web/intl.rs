//! `Intl` for the Wasm engine (`calls::INTL`): QuickJS has none, so the
//! prelude's `Intl` asks the host, which answers with V8 and its ICU in a
//! worker process of its own (`engine::v8::process::intl`), whose service
//! isolates run only `intl.js` beside this file, never a tenant's code.
//!
//! Why V8's and not ICU4X: the Wasm engine then formats byte for byte as
//! the V8 engine does (the same ICU and CLDR data: ICU4X's newer CLDR
//! differs in spaces and patterns), every tenant shares the one copy of the
//! locale data, and no formatter is written twice. What it costs: a call
//! (timed in docs/compatibility.md), a round trip to that process, and a
//! process for it.
//!
//! Invariants:
//! - Pure: an answer depends on its arguments alone (a time is always
//!   given), so a module's top level may call it at build time.
//! - Bounded: a call's arguments are at most [`MAX_ARGS`] bytes; the
//!   service's heap is capped and `intl.js` keeps at most 512 formatters;
//!   a call that runs out of time or memory fails alone and its service
//!   isolate is made anew (`host/v8-worker/src/service.rs`).
//! - Without the `v8` feature, every call is refused, naming why.

use contract::Reply;

/// The most bytes of arguments one call may carry (a `Segmenter` over a
/// text of up to about this size).
pub const MAX_ARGS: usize = 1 << 20;

/// Answers one call (see [`contract::calls::INTL`]).
pub fn call(args: &str) -> Result<Reply, String> {
    if args.len() > MAX_ARGS {
        return Err(format!(
            "RangeError: an Intl call's arguments are {} bytes, over the limit of {MAX_ARGS}",
            args.len()
        ));
    }
    let text = answer(args)?;
    match text.strip_prefix('!') {
        Some(error) => Err(error.to_string()),
        None => Ok(Reply {
            value: text,
            data: Vec::new(),
        }),
    }
}

#[cfg(feature = "v8")]
fn answer(args: &str) -> Result<String, String> {
    crate::engine::v8::process::intl::call(args, MAX_ARGS)
}

#[cfg(not(feature = "v8"))]
fn answer(_: &str) -> Result<String, String> {
    Err("TypeError: Intl is not available: this ssr was built without the v8 feature, whose ICU it uses".into())
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::call;

    fn ok(args: &str) -> String {
        call(args).unwrap().value
    }

    fn formats_as_v8_does_and_refuses_bad_locales_and_zones_with_range_errors() {
        let euros = r#"{"type":"NumberFormat","locales":"de","options":{"style":"currency","currency":"EUR"}}"#;
        assert_eq!(
            ok(&format!("{euros}\nformat\n[1234.5]")),
            "{\"ok\":\"1.234,50\u{a0}€\"}"
        );
        let tokyo = r#"{"type":"DateTimeFormat","locales":"en-US","options":{"timeZone":"Asia/Tokyo","dateStyle":"medium","timeStyle":"short"}}"#;
        assert_eq!(
            ok(&format!("{tokyo}\nformat\n[0]")),
            "{\"ok\":\"Jan 1, 1970, 9:00 AM\"}"
        );
        let mars =
            r#"{"type":"DateTimeFormat","locales":"en","options":{"timeZone":"Mars/Olympus"}}"#;
        let err = call(&format!("{mars}\nnew\n[]")).unwrap_err();
        assert!(err.starts_with("RangeError: "), "{err}");
        let bad = r#"{"type":"NumberFormat","locales":"not a locale!"}"#;
        let err = call(&format!("{bad}\nnew\n[]")).unwrap_err();
        assert!(err.starts_with("RangeError: "), "{err}");
        let err = call(&"x".repeat(super::MAX_ARGS + 1)).unwrap_err();
        assert!(err.contains("over the limit"), "{err}");
    }

    crate::unit_tests!(formats_as_v8_does_and_refuses_bad_locales_and_zones_with_range_errors);
}
