//! Which of a tenant's files a path names, by Workers' rules, for the host's
//! assets-first serving and for the `env.ASSETS` binding (`calls::ASSETS`).
//!
//! [`resolve`], in order:
//! 1. a `_redirects` rule that matches the path: that redirect;
//! 2. then, by `assets.html_handling` (`crate::app::HtmlHandling`), the
//!    default `auto-trailing-slash`:
//!    - a path naming an HTML file by its file name redirects to its
//!      page's path: `/about.html` to `/about`, `/blog/index.html` to
//!      `/blog/`;
//!    - a file whose name is the path;
//!    - `/about` is `about.html`, else `/about/` (a redirect) if
//!      `about/index.html` exists; `/blog/` is `blog/index.html`, else
//!      `/blog` (a redirect) if `blog.html` exists.
//!
//!    `force-trailing-slash` and `drop-trailing-slash` serve every page at
//!    the one form and redirect the other to it; `none` serves exact names.
//!
//! A path that names nothing goes to the renderer on the host; through the
//! binding it gets `assets.not_found_handling`: an empty `404`, the nearest
//! `404.html` up the path (status `404`), or `/index.html` (a
//! single-page application, `200`). A file's response carries its head and
//! what `_headers` sets for the path ([`apply_headers`]).
//!
//! Invariant: it reads the tenant version's own assets, nothing else.

use std::collections::HashMap;

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use contract::Reply;
use serde::Deserialize;

use super::{Asset, Assets};
use crate::app::{AppConfig, HtmlHandling, NotFoundHandling};
use crate::encoding::Encoding;

/// What a path names.
pub enum Resolved<'a> {
    File(&'a Asset),
    /// A status and a location (a path of the tenant's, or a URL).
    Redirect(u16, String),
    NotFound,
}

/// The status of a redirect made by the HTML rules, as on Workers.
const HTML_REDIRECT: u16 = 307;

/// What `path` (percent-encoded, no query) names among `assets`.
pub fn resolve<'a>(assets: &'a Assets, path: &str) -> Resolved<'a> {
    let app = &assets.app;
    if let Some((status, to)) = app.redirect(path) {
        return Resolved::Redirect(status, to);
    }
    if assets.is_empty() {
        return Resolved::NotFound;
    }
    let mode = app.html_handling;
    let file = |p: &str| assets.find(p).map(Resolved::File);
    let exists = |p: &str| assets.find(p).is_some();
    let redirect = |to: &str| Some(Resolved::Redirect(HTML_REDIRECT, to.to_string()));
    if mode == HtmlHandling::None {
        return file(path).unwrap_or(Resolved::NotFound);
    }
    // A page's canonical path, with (`dir/`) or without (`dir`) its slash.
    let slashed = |dir: &str| format!("{dir}/");
    let bare = |dir: &str| {
        if dir.is_empty() {
            "/".to_string()
        } else {
            dir.to_string()
        }
    };
    let page_path = |dir: &str, index: bool| match (mode, index) {
        (HtmlHandling::ForceTrailingSlash, _) | (HtmlHandling::AutoTrailingSlash, true) => {
            slashed(dir)
        }
        _ => bare(dir),
    };
    if exists(path) {
        if let Some(dir) = path.strip_suffix("/index.html") {
            return redirect(&page_path(dir, true)).unwrap();
        }
        if let Some(page) = path.strip_suffix(".html")
            && !page.ends_with('/')
        {
            return redirect(&page_path(page, false)).unwrap();
        }
        return file(path).unwrap();
    }
    let answer = match path.strip_suffix('/') {
        Some("") => file("/index.html"),
        Some(dir) => {
            let (index, named) = (format!("{dir}/index.html"), format!("{dir}.html"));
            match mode {
                HtmlHandling::AutoTrailingSlash => {
                    file(&index).or_else(|| exists(&named).then(|| redirect(dir)).flatten())
                }
                HtmlHandling::ForceTrailingSlash => file(&index).or_else(|| file(&named)),
                _ => (exists(&index) || exists(&named))
                    .then(|| redirect(dir))
                    .flatten(),
            }
        }
        None => {
            let (index, named) = (format!("{path}/index.html"), format!("{path}.html"));
            match mode {
                HtmlHandling::AutoTrailingSlash => file(&named)
                    .or_else(|| exists(&index).then(|| redirect(&slashed(path))).flatten()),
                HtmlHandling::ForceTrailingSlash => (exists(&index) || exists(&named))
                    .then(|| redirect(&slashed(path)))
                    .flatten(),
                _ => file(&named).or_else(|| file(&index)),
            }
        }
    };
    answer.unwrap_or(Resolved::NotFound)
}

/// The file `env.ASSETS` answers with for a path that names nothing.
fn not_found<'a>(assets: &'a Assets, path: &str) -> Option<&'a Asset> {
    match assets.app.not_found_handling {
        NotFoundHandling::None => None,
        NotFoundHandling::SinglePageApplication => assets.find("/index.html"),
        NotFoundHandling::NotFoundPage => {
            let mut dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            loop {
                if let Some(page) = assets.find(&format!("{dir}/404.html")) {
                    return Some(page);
                }
                dir = dir.rsplit_once('/')?.0;
            }
        }
    }
}

/// Sets on `head` what `_headers` says for `path`: a rule's value replaces
/// the host's own header of that name and joins an earlier rule's. A
/// framing or hop-by-hop header (`crate::framing`) is never touched: the
/// build refuses rules that name one, and a plugin built elsewhere gets
/// them ignored.
pub fn apply_headers(app: &AppConfig, path: &str, head: &mut HeaderMap) {
    // Per name: removed (`None`), or the rules' values joined, in order.
    let mut changed: HashMap<HeaderName, Option<String>> = HashMap::new();
    for (name, value) in app.header_changes(path) {
        if crate::framing::is_framing(name) {
            continue;
        }
        let Ok(name) = HeaderName::try_from(name) else {
            continue;
        };
        match (value, changed.get_mut(&name)) {
            (Some(value), Some(Some(joined))) => {
                joined.push_str(", ");
                joined.push_str(&value);
            }
            (value, _) => {
                changed.insert(name, value);
            }
        }
    }
    for (name, value) in changed {
        match value.map(HeaderValue::try_from) {
            None => {
                head.remove(&name);
            }
            Some(Ok(value)) => {
                head.insert(name, value);
            }
            // Not a valid value: the host's own header stays.
            Some(Err(_)) => {}
        }
    }
}

/// One call: the request's path (percent-encoded, no query).
#[derive(Deserialize)]
struct Args {
    path: String,
}

#[derive(serde::Serialize)]
struct Answer<'a> {
    status: u16,
    headers: Vec<(&'a str, &'a str)>,
}

/// Runs one `assets` call against `assets`.
pub fn call(assets: &Assets, args: &str) -> Result<Reply, String> {
    let a: Args =
        serde_json::from_str(args).map_err(|e| format!("assets: bad arguments {args:?}: {e}"))?;
    let path = a.path;
    if !path.starts_with('/') {
        return Err(format!("assets: the path {path:?} does not start with /"));
    }
    let (status, file) = match resolve(assets, &path) {
        Resolved::File(asset) => (200, asset),
        Resolved::Redirect(status, to) => {
            let answer = Answer {
                status,
                headers: vec![("location", &to)],
            };
            return Ok(reply(&answer, Vec::new()));
        }
        Resolved::NotFound => match not_found(assets, &path) {
            Some(page) => {
                let spa = assets.app.not_found_handling == NotFoundHandling::SinglePageApplication;
                (if spa { 200 } else { 404 }, page)
            }
            None => {
                let answer = Answer {
                    status: 404,
                    headers: Vec::new(),
                };
                return Ok(reply(&answer, Vec::new()));
            }
        },
    };
    let (_, body, head) = file.encoded(Encoding::Identity);
    let mut head = head.clone();
    apply_headers(&assets.app, &path, &mut head);
    let answer = Answer {
        status,
        headers: head
            .iter()
            .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)))
            .collect(),
    };
    Ok(reply(&answer, body.to_vec()))
}

fn reply(answer: &Answer, data: Vec<u8>) -> Reply {
    Reply {
        value: serde_json::to_string(answer).expect("an answer serializes"),
        data,
    }
}
