//! Cron expressions as Workers reads an app's `triggers.crons`: five
//! fields (minute, hour, day of the month, month, day of the week), in
//! UTC, with ranges, steps, lists, names, `L`, `W` and `#`; the days of
//! the week 1-7 from Sunday (Quartz's numbering, which Cloudflare's own
//! parser uses), `SUN`-`SAT` by name. `croner` parses and matches them.
//!
//! Invariants:
//! - An expression the build accepted matches the same minutes on every
//!   replica: matching reads nothing but the expression and the minute.

use chrono::{DateTime, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

/// A parsed `triggers.crons` entry.
#[derive(Clone, Debug)]
pub struct Schedule(Cron);

/// Parses `expr`, or says why Workers would refuse it.
pub fn parse(expr: &str) -> Result<Schedule, String> {
    let parser = CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .alternative_weekdays(true)
        .build();
    if expr.split_whitespace().count() != 5 {
        return Err(format!(
            "`{expr}` is not a cron expression of five fields (minute hour day-of-month month day-of-week), such as `*/5 * * * *`"
        ));
    }
    parser
        .parse(expr)
        .map(Schedule)
        .map_err(|e| format!("`{expr}` is not a cron expression Workers reads: {e}"))
}

impl Schedule {
    /// Whether it fires in the minute that starts at `minute` (milliseconds
    /// since the epoch, a whole minute).
    pub fn fires_at(&self, minute: u64) -> bool {
        DateTime::<Utc>::from_timestamp_millis(minute as i64)
            .is_some_and(|t| self.0.is_time_matching(&t).unwrap_or(false))
    }
}

#[cfg(feature = "test-hooks")]
mod tests {
    use super::parse;

    fn expressions_match_their_minutes_in_utc_with_sunday_as_one() {
        // 2026-11-29 was a Sunday; 12:30 UTC.
        let sunday = 1_795_955_400_000;
        assert!(parse("30 12 * * *").unwrap().fires_at(sunday));
        assert!(parse("*/15 * * * *").unwrap().fires_at(sunday));
        assert!(!parse("*/7 * * * *").unwrap().fires_at(sunday));
        assert!(parse("30 12 * * 1").unwrap().fires_at(sunday));
        assert!(parse("30 12 * * sun").unwrap().fires_at(sunday));
        assert!(!parse("30 12 * * 2-6").unwrap().fires_at(sunday));
        assert!(
            parse("30 12 * * mon-fri")
                .unwrap()
                .fires_at(sunday + 86_400_000)
        );
        for bad in [
            "* * * *",
            "61 * * * *",
            "* * * * * *",
            "0 0 32 * *",
            "nonsense",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    crate::unit_tests!(expressions_match_their_minutes_in_utc_with_sunday_as_one);
}
