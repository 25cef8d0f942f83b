//! `URLPattern` (`calls::URL_PATTERN`): the URL Pattern Standard, parsed by
//! the `urlpattern` crate (Deno's, which ships it), matched by the guest's
//! own `RegExp` (`wit/prelude/13_url_pattern.js`). A pattern is parsed
//! here once, into each component's pattern string, its regular
//! expression (ECMAScript syntax) and its group names; an input to match
//! is canonicalized here into its eight components (as the standard's
//! "process a URLPatternInit" and URL parser do), and the guest runs the
//! expressions on them, as browsers and Deno do.
//!
//! Pure: every answer depends on the call alone, so a pattern made at a
//! module's top level is made at build time.
//!
//! Invariants: nothing here panics on input; a pattern the standard
//! refuses is an error naming what is wrong (the prelude throws it as a
//! `TypeError`).

use contract::Reply;
use serde::Deserialize;
use urlpattern::UrlPatternOptions;
use urlpattern::quirks::{self, EcmaRegexp, StringOrInit};

/// One call, as the prelude sends it.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Args<'a> {
    /// A new pattern: reply its components (`quirks::UrlPattern`).
    Parse {
        #[serde(borrow)]
        input: StringOrInit<'a>,
        #[serde(rename = "baseURL", default)]
        base_url: Option<String>,
        #[serde(rename = "ignoreCase", default)]
        ignore_case: bool,
    },
    /// An input to match: reply its components (`quirks::MatchInput`), or
    /// `null` when it is no URL (it then matches nothing).
    Match {
        #[serde(borrow)]
        input: StringOrInit<'a>,
        #[serde(rename = "baseURL", default)]
        base_url: Option<String>,
    },
}

/// Answers one call.
pub fn call(args: &str) -> Result<Reply, String> {
    let args: Args = serde_json::from_str(args)
        .map_err(|e| format!("url-pattern: the arguments do not parse: {e}"))?;
    let value = match args {
        Args::Parse {
            input,
            base_url,
            ignore_case,
        } => {
            let init = quirks::process_construct_pattern_input(input, base_url.as_deref())
                .map_err(refused)?;
            let options = UrlPatternOptions {
                ignore_case,
                ..Default::default()
            };
            let pattern = quirks::parse_pattern::<EcmaRegexp>(init, options).map_err(refused)?;
            serde_json::to_value(pattern)
        }
        Args::Match { input, base_url } => {
            match quirks::process_match_input(input, base_url.as_deref()).map_err(refused)? {
                Some((input, _)) => serde_json::to_value(quirks::parse_match_input(input)),
                None => Ok(serde_json::Value::Null),
            }
        }
    }
    .map_err(|e| format!("url-pattern: {e}"))?;
    Ok(Reply {
        value: value.to_string(),
        data: Vec::new(),
    })
}

fn refused(e: urlpattern::quirks::Error) -> String {
    format!("Invalid URL pattern: {e}")
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::call;
    use serde_json::Value;

    fn answer(args: &str) -> Result<Value, String> {
        call(args).map(|r| serde_json::from_str(&r.value).unwrap())
    }

    fn a_pattern_parses_into_expressions_and_an_input_into_components() {
        let p = answer(r#"{"op":"parse","input":"https://example.com/books/:id(\\d+)"}"#).unwrap();
        assert_eq!(p["pathname"]["patternString"], "/books/:id(\\d+)");
        assert_eq!(p["pathname"]["regexpString"], "^/books(?:/(\\d+))$");
        assert_eq!(p["pathname"]["groupNameList"], serde_json::json!(["id"]));
        assert_eq!(p["hasRegexpGroups"], true);
        let m = answer(r#"{"op":"match","input":"/books/12?x#y","baseURL":"https://example.com"}"#)
            .unwrap();
        assert_eq!(
            (&m["pathname"], &m["search"], &m["hash"]),
            (&"/books/12".into(), &"x".into(), &"y".into())
        );
        // No URL: matches nothing, without an error.
        assert_eq!(
            answer(r#"{"op":"match","input":"not a url"}"#).unwrap(),
            Value::Null
        );
        let refused = answer(r#"{"op":"parse","input":"/books/:id("}"#).unwrap_err();
        assert!(refused.starts_with("Invalid URL pattern: "), "{refused}");
        assert!(answer(r#"{"op":"parse","input":{},"baseURL":"https://a"}"#).is_err());
    }

    crate::unit_tests!(a_pattern_parses_into_expressions_and_an_input_into_components);
}
