//! The ceiling for `benches/load.sh`: bare axum answering every request with
//! the same bytes (a page `ssr` served), no routing, cache or rendering.
//!
//! Run: `cargo run --release --example bare_axum -- <page.html> [ADDR]`.

use axum::Router;
use axum::http::header;
use bytes::Bytes;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let page = args.next().expect("usage: bare_axum <page.html> [ADDR]");
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8090".into());
    let body = Bytes::from(std::fs::read(&page).expect("reading the page"));
    let app = Router::new().fallback(move || {
        let body = body.clone();
        async move { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body) }
    });
    let listener = tokio::net::TcpListener::bind(&addr).await.expect("binding");
    eprintln!("bare axum listening on http://{addr}");
    axum::serve(listener, app).await.expect("serving");
}
