//! A tenant's `env`, what its handler receives as `fetch(request, env)`:
//! vars, plain settings stored with the registration and shown by the admin
//! API, and secrets, write-only values stored apart (`store.rs`, mode
//! 0600) that no API, log or error page shows.
//!
//! Invariants: a name is a JavaScript identifier of ASCII letters, digits
//! and `_` (so `env.NAME` reads it), and names one var or one secret, not
//! both; sizes and counts stay under the bounds below, so an `env` is cheap
//! to hand to every instance.

use std::collections::BTreeMap;

use super::TenantError;

/// The longest name.
pub const MAX_NAME: usize = 64;
/// The largest value (a PEM key fits).
pub const MAX_VALUE: usize = 16 << 10;
/// The most vars and secrets a tenant has, together.
pub const MAX_ENTRIES: usize = 64;

/// Vars or secrets, by name.
pub type Env = BTreeMap<String, String>;

/// Checks one name.
pub fn check_name(name: &str) -> Result<(), TenantError> {
    let mut bytes = name.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    // `__proto__` would set `env`'s prototype, not a var.
    let plain = name != "__proto__";
    if first_ok
        && plain
        && name.len() <= MAX_NAME
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Ok(());
    }
    Err(TenantError::Env(format!(
        "`{name}` is not a valid name: use 1-{MAX_NAME} letters, digits and `_`, not starting with a digit (like `API_TOKEN`), and not `__proto__`"
    )))
}

/// `NAME=VALUE`, as `--var` takes it.
pub fn parse_var(text: &str) -> Result<(String, String), TenantError> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(TenantError::Env(format!(
            "`{text}` has no `=`; write a var as NAME=VALUE"
        )));
    };
    check_name(name)?;
    Ok((name.to_string(), value.to_string()))
}

/// Checks a tenant's whole `env`: every name and value, the count, and that
/// no name is both a var and a secret.
pub fn check(vars: &Env, secrets: &Env) -> Result<(), TenantError> {
    for (name, value) in vars.iter().chain(secrets) {
        check_name(name)?;
        if value.len() > MAX_VALUE {
            return Err(TenantError::Env(format!(
                "`{name}` is {} bytes, over the limit of {MAX_VALUE}",
                value.len()
            )));
        }
    }
    if let Some(name) = vars.keys().find(|k| secrets.contains_key(*k)) {
        return Err(TenantError::Env(format!(
            "`{name}` is both a var and a secret; remove one of them first"
        )));
    }
    if vars.len() + secrets.len() > MAX_ENTRIES {
        return Err(TenantError::Env(format!(
            "{} vars and secrets, over the limit of {MAX_ENTRIES}",
            vars.len() + secrets.len()
        )));
    }
    Ok(())
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn names_are_identifiers() {
        for ok in ["A", "_x", "API_TOKEN", "a1", &"N".repeat(MAX_NAME)] {
            check_name(ok).unwrap();
        }
        for bad in [
            "",
            "1A",
            "A-B",
            "A.B",
            "ÄPI",
            "A B",
            &"N".repeat(MAX_NAME + 1),
        ] {
            let e = check_name(bad).unwrap_err().to_string();
            assert!(e.contains("not a valid name"), "{bad}: {e}");
        }
    }

    fn vars_parse_and_env_is_checked_whole() {
        assert_eq!(
            parse_var("API=http://x?a=b").unwrap(),
            ("API".into(), "http://x?a=b".into())
        );
        assert!(parse_var("API").unwrap_err().to_string().contains("no `=`"));
        let vars = Env::from([("A".into(), "1".into())]);
        let both = check(&vars, &vars).unwrap_err().to_string();
        assert!(both.contains("both a var and a secret"), "{both}");
        let big = Env::from([("A".into(), "x".repeat(MAX_VALUE + 1))]);
        assert!(check(&big, &Env::new()).is_err());
    }

    crate::unit_tests!(names_are_identifiers, vars_parse_and_env_is_checked_whole);
}
