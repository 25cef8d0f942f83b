//! The admin API's client, shared by `ssr tenant`, `ssr token` and
//! `ssr deploy`: the server's address and the token, and how an answer is
//! shown.

use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

/// Where the admin API is, and the token that opens it.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The server's base URL: its --admin-listen address when it has one,
    /// else its --listen address (the admin API is under /_ssr/admin there).
    #[arg(
        long,
        global = true,
        env = "SSR_SERVER",
        default_value = "http://127.0.0.1:8080"
    )]
    pub server: String,
    /// The operator's admin token, or a tenant's own token (`ssr token
    /// create`) [env: SSR_TOKEN, else SSR_ADMIN_TOKEN].
    #[arg(long, global = true, hide_env_values = true)]
    pub token: Option<String>,
}

/// A connection to one server's admin API.
pub struct Client {
    pub base: String,
    auth: String,
    agent: ureq::Agent,
}

impl ServerArgs {
    pub fn connect(&self) -> anyhow::Result<Client> {
        let token = self
            .token
            .clone()
            .or_else(|| std::env::var("SSR_TOKEN").ok())
            .or_else(|| std::env::var("SSR_ADMIN_TOKEN").ok())
            .filter(|t| !t.is_empty());
        let Some(token) = token else {
            bail!(
                "no token: pass --token, or set SSR_TOKEN (a tenant's token) or SSR_ADMIN_TOKEN (the operator's; a server run with --data-dir and no token keeps the one it made in <data-dir>/admin-token; without a data dir it prints it at start)"
            );
        };
        Ok(Client {
            base: self.server.trim_end_matches('/').to_string(),
            auth: format!("Bearer {token}"),
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into(),
        })
    }
}

impl Client {
    /// A request to `path` (under the server's base URL) with the token,
    /// with `body` (empty for none) and `headers`.
    pub fn send_with(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> anyhow::Result<ureq::http::Response<ureq::Body>> {
        let mut req = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("Authorization", &self.auth);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let req = req
            .body(body)
            .with_context(|| format!("`{}{path}` is not a URL", self.base))?;
        match self.agent.run(req) {
            Ok(response) => Ok(response),
            // A server that refuses the token answers before it reads a
            // large body, and closes: the send breaks. Ask again without
            // the body to show why.
            Err(e) if !body.is_empty() => match self.send_with("GET", path, headers, &[]) {
                Ok(r) if matches!(r.status().as_u16(), 401 | 403) => Ok(r),
                _ => Err(e).with_context(|| format!("cannot reach the server at {}", self.base)),
            },
            Err(e) => Err(e).with_context(|| format!("cannot reach the server at {}", self.base)),
        }
    }

    /// A request with `body`.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
    ) -> anyhow::Result<ureq::http::Response<ureq::Body>> {
        self.send_with(method, path, &[], body)
    }

    /// A request without a body.
    pub fn call(
        &self,
        method: &str,
        path: &str,
    ) -> anyhow::Result<ureq::http::Response<ureq::Body>> {
        self.send(method, path, &[])
    }
}

/// Prints a success's body, or the server's error on standard error.
pub fn finish(mut response: ureq::http::Response<ureq::Body>) -> anyhow::Result<ExitCode> {
    let status = response.status();
    let body = response.body_mut().read_to_string().unwrap_or_default();
    if status.is_success() {
        if !body.is_empty() {
            println!("{}", body.trim_end());
        }
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("error: the server answered {status}: {}", body.trim_end());
        Ok(ExitCode::FAILURE)
    }
}

/// `pairs` as a URL's query: `name=value&...`, each percent-encoded.
pub fn query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// `s` percent-encoded for a URL's path or query.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
