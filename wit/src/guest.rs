//! The plugin's bindings of `plugin.wit` (wit-bindgen), and the only
//! conversions between their records and the contract's types. The guest
//! crate implements `exports::ssr::plugin::renderer::Guest` and invokes
//! `export!(Plugin with_types_in <this module>)`.
#![allow(unsafe_code)] // the code wit-bindgen generates

wit_bindgen::generate!({
    path: ".",
    world: "plugin",
    pub_export_macro: true,
});

use self::ssr::plugin::{host, log, types};

impl From<types::Request> for crate::Request {
    fn from(r: types::Request) -> Self {
        crate::Request {
            method: r.method,
            url: r.url,
            href: r.href,
            base: r.base,
            path: r.path,
            query: r.query,
            headers: r.headers,
            tenant: r.tenant,
            body: r.body,
        }
    }
}

impl From<crate::Response> for types::Response {
    fn from(r: crate::Response) -> Self {
        types::Response {
            status: r.status,
            headers: r.headers,
            body: r.body,
            cache: match r.cache {
                crate::CachePolicy::HostDefault => types::CachePolicy::HostDefault,
                crate::CachePolicy::NoStore => types::CachePolicy::NoStore,
                crate::CachePolicy::Ttl(t) => types::CachePolicy::Ttl(t),
            },
            vary: r.vary,
        }
    }
}

impl From<crate::RenderError> for types::RenderError {
    fn from(e: crate::RenderError) -> Self {
        types::RenderError {
            kind: match e.kind {
                crate::ErrorKind::Exception => types::ErrorKind::Exception,
                crate::ErrorKind::BadResult => types::ErrorKind::BadResult,
                crate::ErrorKind::NeverSettled => types::ErrorKind::NeverSettled,
                crate::ErrorKind::NotInitialized => types::ErrorKind::NotInitialized,
            },
            message: e.message,
            stack: e.stack,
        }
    }
}

impl From<crate::LogLevel> for log::Level {
    fn from(level: crate::LogLevel) -> Self {
        match level {
            crate::LogLevel::Debug => log::Level::Debug,
            crate::LogLevel::Info => log::Level::Info,
            crate::LogLevel::Warn => log::Level::Warn,
            crate::LogLevel::Error => log::Level::Error,
        }
    }
}

impl From<host::Reply> for crate::Reply {
    fn from(r: host::Reply) -> Self {
        crate::Reply {
            value: r.value,
            data: r.data,
        }
    }
}
