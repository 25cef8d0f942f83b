//! Tenant tokens: credentials that reach one tenant's admin endpoints and
//! nothing else (`ssr token create --tenant shop`). The operator's admin
//! token reaches everything; what a tenant token may do is decided in
//! `http/admin.rs` ([`crate::http`]'s `authorize`).
//!
//! A token reads `ssr_<id>_<secret>`: `id` (12 hex digits) names its record,
//! `secret` is 32 random bytes in hex. Records live where the tenants do:
//! `<data-dir>/tokens.json` (mode 0600, written atomically), the Redis hash
//! `ssr:tokens` with a shared store (so every replica checks against the
//! same records, and a revocation holds on all of them at once), or memory
//! without a store.
//!
//! Invariants:
//! - A record holds the token's SHA-256, never the token; the token is shown
//!   once, when it is made.
//! - A check compares digests in constant time, and refuses an expired or
//!   revoked token exactly as an unknown one (401).
//! - With Redis every check reads the record there: a revocation made on
//!   one replica is in force on all at once.
//! - A token reaches one tenant, not one id: made for a registered tenant,
//!   it carries that tenant's [`Registration::since`](super::Registration)
//!   and dies with it, even if the id is registered again for someone else.
//!   Removing a tenant revokes every token of its id ([`revoke_tenant`]).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use super::{Store, TenantError, now_unix, validate_id};
use crate::artifact::random_hex;

/// One token's record, as stored and as `ssr token ls` shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TokenRecord {
    pub id: String,
    /// The one tenant it reaches.
    pub tenant: String,
    /// Unix seconds.
    pub created: u64,
    /// Unix seconds; never when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// The registration of its tenant it was made for (`since`); absent
    /// for a token made before its tenant's first deploy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Hex SHA-256 of the whole token.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub sha256: String,
}

impl TokenRecord {
    /// The record without its digest, for answers.
    pub fn shown(&self) -> TokenRecord {
        TokenRecord {
            sha256: String::new(),
            ..self.clone()
        }
    }
}

/// A token just made: its record and the token itself, shown once.
#[derive(Serialize)]
pub struct NewToken {
    #[serde(flatten)]
    pub record: TokenRecord,
    pub token: String,
}

/// The records of a server without a shared store: in memory, and in the
/// data dir when there is one. Replicas of a shared store keep nothing here.
#[derive(Default)]
pub struct LocalTokens(Mutex<BTreeMap<String, TokenRecord>>);

impl LocalTokens {
    /// What the data dir holds (nothing without one).
    pub fn load(store: Option<&Store>) -> Result<LocalTokens, TenantError> {
        let kept = match store {
            Some(Store::Local(dir)) => dir.load_tokens()?,
            _ => BTreeMap::new(),
        };
        Ok(LocalTokens(Mutex::new(kept)))
    }
}

/// Makes a token for `tenant` that expires after `ttl` (never without).
pub fn create(
    store: Option<&Store>,
    local: &LocalTokens,
    tenant: &str,
    since: Option<u64>,
    ttl: Option<Duration>,
) -> Result<NewToken, TenantError> {
    validate_id(tenant)?;
    let id = random_hex(6);
    let token = format!("ssr_{id}_{}", random_hex(32));
    let created = now_unix();
    let record = TokenRecord {
        id: id.clone(),
        tenant: tenant.to_string(),
        created,
        expires: ttl.map(|t| created.saturating_add(t.as_secs().max(1))),
        since,
        sha256: digest(&token),
    };
    match store {
        Some(Store::Shared { redis, .. }) => redis.save_token(&id, &to_json(&record)?)?,
        other => {
            let mut all = crate::sync::lock(&local.0);
            all.insert(id, record.clone());
            if let Some(Store::Local(dir)) = other
                && let Err(e) = dir.save_tokens(&all)
            {
                all.remove(&record.id);
                return Err(e.into());
            }
        }
    }
    Ok(NewToken {
        record: record.shown(),
        token,
    })
}

/// Every token's record, without digests, oldest first.
pub fn list(store: Option<&Store>, local: &LocalTokens) -> Result<Vec<TokenRecord>, TenantError> {
    let mut all: Vec<TokenRecord> = match store {
        Some(Store::Shared { redis, .. }) => redis
            .tokens()?
            .into_iter()
            .filter_map(|json| serde_json::from_str(&json).ok())
            .collect(),
        _ => crate::sync::lock(&local.0).values().cloned().collect(),
    };
    all.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    Ok(all.iter().map(TokenRecord::shown).collect())
}

/// Revokes token `id`; whether there was one.
pub fn revoke(store: Option<&Store>, local: &LocalTokens, id: &str) -> Result<bool, TenantError> {
    match store {
        Some(Store::Shared { redis, .. }) => Ok(redis.remove_token(id)?),
        other => Ok(revoke_local(other, local, |r| r.id == id)? > 0),
    }
}

/// Revokes every token of tenant `id`; how many.
pub fn revoke_tenant(
    store: Option<&Store>,
    local: &LocalTokens,
    tenant: &str,
) -> Result<usize, TenantError> {
    match store {
        Some(Store::Shared { redis, .. }) => {
            let mine = list(store, local)?
                .into_iter()
                .filter(|r| r.tenant == tenant);
            let mut gone = 0;
            for record in mine {
                gone += usize::from(redis.remove_token(&record.id)?);
            }
            Ok(gone)
        }
        other => revoke_local(other, local, |r| r.tenant == tenant),
    }
}

/// Revokes the records without a shared store that `gone` picks, with
/// one write of the data dir's file; how many. A failed write revokes
/// none.
fn revoke_local(
    store: Option<&Store>,
    local: &LocalTokens,
    gone: impl Fn(&TokenRecord) -> bool,
) -> Result<usize, TenantError> {
    let mut all = crate::sync::lock(&local.0);
    let ids: Vec<String> = all
        .values()
        .filter(|r| gone(r))
        .map(|r| r.id.clone())
        .collect();
    let removed: Vec<TokenRecord> = ids.iter().filter_map(|id| all.remove(id)).collect();
    if removed.is_empty() {
        return Ok(0);
    }
    if let Some(Store::Local(dir)) = store
        && let Err(e) = dir.save_tokens(&all)
    {
        all.extend(removed.into_iter().map(|r| (r.id.clone(), r)));
        return Err(e.into());
    }
    Ok(removed.len())
}

/// The record of `given`, if it is a live token (its tenant's identity is
/// the caller's to check); `Err` only when the shared store cannot be read.
pub fn check(
    store: Option<&Store>,
    local: &LocalTokens,
    given: &str,
) -> Result<Option<TokenRecord>, TenantError> {
    let Some(id) = given
        .strip_prefix("ssr_")
        .and_then(|rest| rest.split_once('_'))
        .map(|(id, _)| id)
        .filter(|id| id.len() == 12 && id.bytes().all(|b| b.is_ascii_hexdigit()))
    else {
        return Ok(None);
    };
    let record = match store {
        Some(Store::Shared { redis, .. }) => redis
            .token(id)?
            .and_then(|json| serde_json::from_str::<TokenRecord>(&json).ok()),
        _ => crate::sync::lock(&local.0).get(id).cloned(),
    };
    let Some(record) = record else {
        return Ok(None);
    };
    let matches: bool = digest(given)
        .as_bytes()
        .ct_eq(record.sha256.as_bytes())
        .into();
    let live = record.expires.is_none_or(|at| now_unix() < at);
    Ok((matches && live).then(|| record.shown()))
}

/// The token's hex SHA-256, as plugins are named by it.
fn digest(token: &str) -> String {
    crate::artifact::digest(token.as_bytes())
}

fn to_json(record: &TokenRecord) -> Result<String, TenantError> {
    serde_json::to_string(record).map_err(|e| TenantError::Storage(std::io::Error::other(e)))
}
