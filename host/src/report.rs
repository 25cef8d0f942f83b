//! How an error is printed for people: its message, then each cause's,
//! joined by `: ` (what `anyhow` prints with `{:#}` in `main` and `cli/`).
//!
//! Library errors keep their causes as `#[source]` and say only their own
//! step in `Display` ("compiling the plugin failed"); wherever one reaches
//! a person (a log line, an admin API body, a tenant's debug page), it goes
//! through [`Chain`], so no cause is lost and none is said twice.

use std::error::Error;
use std::fmt;

/// `error: cause: cause's cause`.
pub struct Chain<'a>(pub &'a (dyn Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use crate::engine::EngineError;
    use crate::tenant::TenantError;

    fn every_cause_is_said_once() {
        let e = TenantError::Plugin(EngineError::Compile("bad magic".into()));
        assert_eq!(e.to_string(), "the plugin was refused");
        assert_eq!(
            Chain(&e).to_string(),
            "the plugin was refused: compiling the plugin failed: bad magic"
        );
    }

    crate::unit_tests!(every_cause_is_said_once);
}
