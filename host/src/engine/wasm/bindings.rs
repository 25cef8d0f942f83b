//! Host bindings generated from `wit/` (the same files the guest binds to).

wasmtime::component::bindgen!({
    path: "../wit",
    world: "plugin",
    // `render` is called with `call_async`, so that a render can yield to
    // its worker's scheduler between time slices (`pool::worker`). Imports
    // stay synchronous: they never wait.
    exports: { default: async },
});
