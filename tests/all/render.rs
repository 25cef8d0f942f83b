//! `ssr render` of every example plugin and of more real libraries, on every
//! engine (Wasm and V8), is byte-identical to Node rendering the same bundle
//! with the same request.

use crate::support::assert_same_as_node;

#[test]
fn hello_matches_node() {
    assert_same_as_node("plugins/hello/render.js", "/", &[]);
    assert_same_as_node(
        "plugins/hello/render.js",
        "/greet?name=%3Cscript%3E&name=second",
        &[],
    );
}

#[test]
fn react_matches_node() {
    assert_same_as_node("plugins/react/app.jsx", "/", &[]);
    assert_same_as_node("plugins/react/app.jsx", "/?name=Z%C3%BC+rich&count=17", &[]);
}

#[test]
fn preact_matches_node() {
    assert_same_as_node("plugins/preact/app.jsx", "/", &[]);
    assert_same_as_node(
        "plugins/preact/app.jsx",
        "/todo?filter=done&theme=dark",
        &[],
    );
}

#[test]
fn vue_matches_node() {
    assert_same_as_node("plugins/vue/app.js", "/products", &[]);
    assert_same_as_node("plugins/vue/app.js", "/products?page=7", &[]);
}

#[test]
fn handlebars_matches_node() {
    assert_same_as_node(
        "plugins/handlebars/render.js",
        "/?user=ada%20%26%20bob",
        &[],
    );
}

#[test]
fn liquid_matches_node() {
    assert_same_as_node(
        "plugins/liquid/render.js",
        "/shop/items?title=summer+sale",
        &[],
    );
}

#[test]
fn request_mapping_and_web_apis_match_node() {
    assert_same_as_node(
        "tests/plugins/echo.js",
        "/a/b%20c?x=1&x=2&y=%E2%82%AC&z",
        &[
            ("Accept-Language", "fr"),
            ("X-Custom", "one"),
            ("cookie", "a=1"),
        ],
    );
}

#[test]
fn every_shape_of_body_string_reaches_the_host_as_the_same_utf8() {
    for path in [
        "/ascii",
        "/ascii-two-byte",
        "/latin1",
        "/low-bytes-ascii",
        "/beyond-latin1",
    ] {
        assert_same_as_node("tests/plugins/text.js", path, &[]);
    }
}
