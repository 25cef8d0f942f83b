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
    /// purge it and read its logs, and nothing else; it is printed once, alone
    /// on stdout.
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
            let mut made = client.call(
                "POST",
                &format!("/_ssr/admin/tokens?tenant={}{ttl}", enc(tenant)),
            )?;
            if !made.status().is_success() {
                return finish(made);
            }
            // The token alone on stdout (`export SSR_TOKEN=$(ssr token
            // create ...)`); what it is, on stderr.
            let made: serde_json::Value = serde_json::from_str(&made.body_mut().read_to_string()?)?;
            let expires = made["expires"]
                .as_u64()
                .map_or("never expires".to_string(), |at| {
                    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(at);
                    format!("expires {}", humantime::format_rfc3339_seconds(at))
                });
            eprintln!(
                "token {} for tenant `{tenant}` ({expires}); it is shown this once",
                made["id"].as_str().unwrap_or_default()
            );
            println!("{}", made["token"].as_str().unwrap_or_default());
            return Ok(ExitCode::SUCCESS);
        }
        TokenCommand::Ls => client.call("GET", "/_ssr/admin/tokens")?,
        TokenCommand::Revoke { id } => {
            client.call("DELETE", &format!("/_ssr/admin/tokens/{}", enc(id)))?
        }
    };
    finish(response)
}
