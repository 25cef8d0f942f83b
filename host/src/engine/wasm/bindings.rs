//! Host bindings generated from `wit/` (the same files the guest binds to).

wasmtime::component::bindgen!({
    path: "../wit",
    world: "plugin",
});
