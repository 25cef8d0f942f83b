//! WHATWG URLs (`calls::URL`): the prelude's `URL` and `URLSearchParams`
//! keep their state in JavaScript and hand every parse, setter and
//! `application/x-www-form-urlencoded` step to the `url` and
//! `form_urlencoded` crates, which implement the URL Standard (Servo's;
//! checked by WPT's `url/` directory, `benches/wpt.sh`). Both engines run
//! this same code, so a URL means the same thing on either.
//!
//! Why the host and not JavaScript: the hand-written parser passed 51% of
//! `url/` (IDNA, IPv4 and IPv6 hosts, non-special schemes and the setters'
//! edges were missing), and the crate's tables would otherwise be copied
//! into every tenant's snapshot (`docs/development.md`).
//!
//! Invariants:
//! - Pure: the answer depends on the arguments alone, so a module's top
//!   level may call it at build time (`build/preinit.rs` answers it there)
//!   and the result is the same in every instance.
//! - Strings arrive as valid UTF-8: the prelude turns lone surrogates into
//!   U+FFFD first, as WebIDL's `USVString` conversion does.
//! - A URL that does not parse is `Err("Invalid URL")` (the prelude throws
//!   its `TypeError`); a setter given a value the standard ignores leaves
//!   the URL as it was. Nothing here panics on input, and one call's work
//!   is linear in its input.

use ::url::{Url, quirks};
use contract::Reply;
use serde::Deserialize;

/// One call, as the prelude sends it.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Args {
    /// `new URL(input, base)`, `URL.parse`, `URL.canParse`.
    Parse { input: String, base: Option<String> },
    /// A setter: `field` is the attribute's name (`href`, `protocol`, ...).
    Set {
        href: String,
        field: String,
        value: String,
    },
    /// A query's name/value pairs (`URLSearchParams`'s list).
    Params { query: String },
    /// A list of pairs serialized as a query (`URLSearchParams.toString`).
    Form { list: Vec<(String, String)> },
}

/// Answers one [`calls::URL`](contract::calls::URL) call (its arguments as
/// JSON): a URL's parts (see [`parts`]), a query's pairs, or a query.
pub fn call(args: &str) -> Result<Reply, String> {
    let args: Args =
        serde_json::from_str(args).map_err(|e| format!("url: the arguments do not parse: {e}"))?;
    let value = match args {
        Args::Parse { input, base } => {
            let base = match base {
                Some(base) => Some(Url::parse(&base).map_err(|_| "Invalid base URL")?),
                None => None,
            };
            let url = Url::options()
                .base_url(base.as_ref())
                .parse(&input)
                .map_err(|_| "Invalid URL")?;
            parts(&url)
        }
        Args::Set { href, field, value } => {
            let mut url = Url::parse(&href).map_err(|_| "Invalid URL")?;
            // A refused value leaves the URL as it was, as the standard's
            // setters do (`Err(())` says only that).
            let _refused: Result<(), ()> = match field.as_str() {
                "href" => {
                    quirks::set_href(&mut url, &value).map_err(|_| "Invalid URL")?;
                    Ok(())
                }
                "protocol" => quirks::set_protocol(&mut url, &value),
                "username" => quirks::set_username(&mut url, &value),
                "password" => quirks::set_password(&mut url, &value),
                "host" => quirks::set_host(&mut url, &value),
                "hostname" => quirks::set_hostname(&mut url, &value),
                "port" => quirks::set_port(&mut url, &value),
                "pathname" => {
                    quirks::set_pathname(&mut url, &value);
                    Ok(())
                }
                "search" => {
                    quirks::set_search(&mut url, &value);
                    Ok(())
                }
                "hash" => {
                    quirks::set_hash(&mut url, &value);
                    Ok(())
                }
                other => return Err(format!("url: no attribute {other:?} to set")),
            };
            parts(&url)
        }
        Args::Params { query } => {
            let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            serde_json::to_string(&pairs).map_err(|e| e.to_string())?
        }
        Args::Form { list } => {
            let query = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(list)
                .finish();
            serde_json::to_string(&query).map_err(|e| e.to_string())?
        }
    };
    Ok(Reply {
        value,
        data: Vec::new(),
    })
}

/// A URL's attributes as a JSON array, in the order the prelude reads
/// them: `href`, `origin`, `protocol`, `username`, `password`, `host`,
/// `hostname`, `port`, `pathname`, `search`, `hash`.
fn parts(url: &Url) -> String {
    let origin = quirks::origin(url);
    let parts = [
        quirks::href(url),
        &origin,
        quirks::protocol(url),
        quirks::username(url),
        quirks::password(url),
        quirks::host(url),
        quirks::hostname(url),
        quirks::port(url),
        quirks::pathname(url),
        quirks::search(url),
        quirks::hash(url),
    ];
    serde_json::to_string(&parts).unwrap_or_default()
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::call;

    fn value(args: &str) -> serde_json::Value {
        serde_json::from_str(&call(args).unwrap().value).unwrap()
    }

    fn parses_against_a_base_as_the_standard_does() {
        let v = value(r#"{"op":"parse","input":" \tssh://Example.com/a/../b.git\n","base":null}"#);
        assert_eq!(v[0], "ssh://Example.com/b.git");
        assert_eq!(v[1], "null");
        assert_eq!(v[6], "Example.com");
        let v = value(r#"{"op":"parse","input":"../c?x#y","base":"http://EXAMPLE.com:80/a/b"}"#);
        assert_eq!(v[0], "http://example.com/c?x#y");
        assert_eq!(v[1], "http://example.com");
    }

    fn refuses_what_does_not_parse_naming_which() {
        assert_eq!(
            call(r#"{"op":"parse","input":"http://f:b/c","base":null}"#).unwrap_err(),
            "Invalid URL"
        );
        assert_eq!(
            call(r#"{"op":"parse","input":"/x","base":"nope"}"#).unwrap_err(),
            "Invalid base URL"
        );
        assert!(call(r#"{"op":"frob"}"#).unwrap_err().starts_with("url: "));
    }

    fn a_refused_setter_leaves_the_url_as_it_was() {
        let v = value(r#"{"op":"set","href":"http://a.test/","field":"port","value":"99999"}"#);
        assert_eq!(v[0], "http://a.test/");
        let v = value(r#"{"op":"set","href":"http://a.test/","field":"port","value":"8080"}"#);
        assert_eq!(v[0], "http://a.test:8080/");
    }

    fn queries_round_trip_as_form_data() {
        let v = value(r#"{"op":"params","query":"a=1+2&b=%E2%82%AC&c"}"#);
        assert_eq!(v, serde_json::json!([["a", "1 2"], ["b", "€"], ["c", ""]]));
        let v = value(r#"{"op":"form","list":[["a b","€&"]]}"#);
        assert_eq!(v, "a+b=%E2%82%AC%26");
    }

    crate::unit_tests!(
        parses_against_a_base_as_the_standard_does,
        refuses_what_does_not_parse_naming_which,
        a_refused_setter_leaves_the_url_as_it_was,
        queries_round_trip_as_form_data
    );
}
