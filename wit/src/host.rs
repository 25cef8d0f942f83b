//! The host's bindings of `plugin.wit` (Wasmtime), and the only conversions
//! between their records and the contract's types.

wasmtime::component::bindgen!({
    path: ".",
    world: "plugin",
    // `render` is called with `call_async`, so that a render can yield to
    // its worker's scheduler between time slices (the host's
    // `pool::worker`). `host.call` is async on the host, so that a render
    // waiting for a `fetch` suspends its fiber and frees its worker; to the
    // guest it is an ordinary blocking call.
    imports: { "ssr:plugin/host.call": async },
    exports: { default: async },
});

use self::ssr::plugin::{host, log, types};

impl From<&crate::Request> for types::Request {
    fn from(r: &crate::Request) -> Self {
        types::Request {
            method: r.method.clone(),
            url: r.url.clone(),
            href: r.href.clone(),
            base: r.base.clone(),
            path: r.path.clone(),
            query: r.query.clone(),
            headers: r.headers.clone(),
            tenant: r.tenant.clone(),
            body: r.body.clone(),
        }
    }
}

impl From<types::Response> for crate::Response {
    fn from(r: types::Response) -> Self {
        crate::Response {
            status: r.status,
            headers: r.headers,
            body: r.body,
            cache: match r.cache {
                types::CachePolicy::HostDefault => crate::CachePolicy::HostDefault,
                types::CachePolicy::NoStore => crate::CachePolicy::NoStore,
                types::CachePolicy::Ttl(t) => crate::CachePolicy::Ttl(t),
            },
            vary: r.vary,
        }
    }
}

impl From<types::RenderError> for crate::RenderError {
    fn from(e: types::RenderError) -> Self {
        crate::RenderError {
            kind: match e.kind {
                types::ErrorKind::Exception => crate::ErrorKind::Exception,
                types::ErrorKind::BadResult => crate::ErrorKind::BadResult,
                types::ErrorKind::NeverSettled => crate::ErrorKind::NeverSettled,
                types::ErrorKind::NotInitialized => crate::ErrorKind::NotInitialized,
            },
            message: e.message,
            stack: e.stack,
        }
    }
}

impl From<log::Level> for crate::LogLevel {
    fn from(level: log::Level) -> Self {
        match level {
            log::Level::Debug => crate::LogLevel::Debug,
            log::Level::Info => crate::LogLevel::Info,
            log::Level::Warn => crate::LogLevel::Warn,
            log::Level::Error => crate::LogLevel::Error,
        }
    }
}

impl From<crate::Reply> for host::Reply {
    fn from(r: crate::Reply) -> Self {
        host::Reply {
            value: r.value,
            data: r.data,
        }
    }
}
