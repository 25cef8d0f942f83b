//! `ssr token create|ls|revoke`: tokens that reach one tenant alone
//! (`tenant/tokens.rs`); the operator's admin token makes them.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::client::{ServerArgs, enc, finish};

#[derive(Debug, Args)]
pub struct TokenArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Make a token that can deploy tenant ID, set its vars and secrets,
    /// purge it and read its logs, and nothing else; it is printed once.
    Create {
        /// The tenant it reaches (it need not exist yet: the token's first
        /// deploy registers it).
        #[arg(long)]
        tenant: String,
        /// How long it works, such as `90d` or `12h` [default: until
        /// revoked].
        #[arg(long)]
        ttl: Option<String>,
    },
    /// List tokens: id, tenant, when made, when they expire (never a
    /// token).
    Ls,
    /// Revoke token ID: it stops working at once, on every replica.
    Revoke { id: String },
}

pub fn run(args: TokenArgs) -> anyhow::Result<ExitCode> {
    let client = args.server.connect()?;
    let response = match &args.command {
        TokenCommand::Create { tenant, ttl } => {
            let ttl = ttl
                .as_deref()
                .map(|t| format!("&ttl={}", enc(t)))
                .unwrap_or_default();
            client.call(
                "POST",
                &format!("/_ssr/admin/tokens?tenant={}{ttl}", enc(tenant)),
            )?
        }
        TokenCommand::Ls => client.call("GET", "/_ssr/admin/tokens")?,
        TokenCommand::Revoke { id } => {
            client.call("DELETE", &format!("/_ssr/admin/tokens/{}", enc(id)))?
        }
    };
    finish(response)
}
