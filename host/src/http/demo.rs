//! The demo's first page (`ssr serve --demo`, `scripts/serve.sh`): `/` on a
//! host no tenant serves lists the example tenants the server registered
//! itself, each linked by path and by host, so a newcomer's first request
//! finds them instead of a bare 404.
//!
//! Invariant: it lists demo tenants only (`Registration::demo`), never one
//! an operator registered, and only when the server runs the demo.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::escape_html;

/// The page, for a GET or HEAD of `/`.
pub fn index(state: &AppState, host: &str) -> Response {
    let port = host.rsplit_once(':').map_or("", |(_, p)| p);
    let mut rows = String::new();
    for tenant in state.registry.list() {
        let r = &tenant.registration;
        if !r.demo {
            continue;
        }
        let id = escape_html(&r.id);
        let by_path = if state.config.path_routing() {
            format!("<a href=\"/t/{id}/\">/t/{id}/</a>")
        } else {
            String::new()
        };
        let by_host = r
            .hosts
            .first()
            .map(|h| {
                let h = escape_html(h);
                let port = if port.is_empty() {
                    String::new()
                } else {
                    format!(":{}", escape_html(port))
                };
                format!("<a href=\"http://{h}{port}/\">{h}</a>")
            })
            .unwrap_or_default();
        rows.push_str(&format!(
            "<tr><td>{id}</td><td>{}</td><td>{by_path}</td><td>{by_host}</td></tr>\n",
            r.engine
        ));
    }
    let body = if rows.is_empty() {
        "<p>The demo tenants are being built; reload in a few seconds.</p>".to_string()
    } else {
        format!(
            "<table>\n<tr><th>tenant</th><th>engine</th><th>by path</th><th>by host</th></tr>\n{rows}</table>"
        )
    };
    let page = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ssr demo</title></head>\n<body>\n<h1>ssr: the demo tenants</h1>\n{body}\n<p>Each is an example site from <code>plugins/</code>, built and registered by <code>ssr serve --demo</code>. Register your own with <code>ssr tenant add</code>.</p>\n</body></html>\n"
    );
    let mut resp = (StatusCode::OK, page).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}
