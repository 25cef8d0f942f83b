//! The Workers `env.ASSETS` binding (`calls::ASSETS`): a handler's own
//! `fetch` of its packed assets, by Workers' default rules for HTML files
//! (`html_handling: "auto-trailing-slash"`), so a framework that serves its
//! prerendered pages through `env.ASSETS.fetch(request)` finds them.
//!
//! For a path that names no file exactly:
//! - `/about` is `about.html`, else `/about/` (a redirect) if
//!   `about/index.html` exists;
//! - `/blog/` is `blog/index.html`, else `/blog` (a redirect) if
//!   `blog.html` exists.
//!
//! And a path that names an HTML file by its file name redirects to its
//! page's path: `/about.html` to `/about`, `/blog/index.html` to `/blog/`.
//! Anything else is a `404` with an empty body (`not_found_handling:
//! "none"`). A `200` carries the file's identity bytes and head.
//!
//! Invariant: it reads the tenant version's own assets, nothing else.

use contract::Reply;
use serde::Deserialize;

use super::Assets;
use crate::encoding::Encoding;

/// One call: the request's path (percent-encoded, no query); none asks
/// whether the tenant has assets at all (reply `true` or `false`).
#[derive(Deserialize)]
struct Args {
    path: Option<String>,
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
    let Some(path) = a.path else {
        return Ok(reply(&(!assets.is_empty()).to_string(), Vec::new()));
    };
    if !path.starts_with('/') {
        return Err(format!("assets: the path {path:?} does not start with /"));
    }
    let redirect = |to: &str| {
        let answer = Answer {
            status: 307,
            headers: vec![("location", to)],
        };
        reply(&answered(&answer), Vec::new())
    };
    let found = |name: &str| {
        assets.find(name).map(|asset| {
            let (_, body, head) = asset.encoded(Encoding::Identity);
            let answer = Answer {
                status: 200,
                headers: head
                    .iter()
                    .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)))
                    .collect(),
            };
            reply(&answered(&answer), body.to_vec())
        })
    };
    if let Some(page) = path.strip_suffix("/index.html")
        && assets.find(&path).is_some()
    {
        return Ok(redirect(&format!("{page}/")));
    }
    if let Some(page) = path.strip_suffix(".html")
        && !page.ends_with('/')
        && assets.find(&path).is_some()
    {
        return Ok(redirect(page));
    }
    if let Some(answer) = found(&path) {
        return Ok(answer);
    }
    let answer = match path.strip_suffix('/') {
        Some(dir) if !dir.is_empty() => found(&format!("{dir}/index.html"))
            .or_else(|| assets.find(&format!("{dir}.html")).map(|_| redirect(dir))),
        Some(_) => found("/index.html"),
        None => found(&format!("{path}.html")).or_else(|| {
            assets
                .find(&format!("{path}/index.html"))
                .map(|_| redirect(&format!("{path}/")))
        }),
    };
    Ok(answer.unwrap_or_else(|| {
        let answer = Answer {
            status: 404,
            headers: Vec::new(),
        };
        reply(&answered(&answer), Vec::new())
    }))
}

fn answered(answer: &Answer) -> String {
    serde_json::to_string(answer).expect("an answer serializes")
}

fn reply(value: &str, data: Vec<u8>) -> Reply {
    Reply {
        value: value.to_string(),
        data,
    }
}
