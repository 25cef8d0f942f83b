//! The admin API's view of a tenant's bindings (`bindings/`), for the
//! operator and for the tenant's own token, as `ssr kv` and `ssr d1` use
//! it:
//!
//! | request | does |
//! |---|---|
//! | `GET /_ssr/admin/tenants/{id}/kv/{binding}/keys?prefix=P&cursor=C` | a page of keys, as `list` answers it |
//! | `GET\|PUT\|DELETE /_ssr/admin/tenants/{id}/kv/{binding}/values/{key}` (PUT's body: the value; `?expiration_ttl=S`) | read, write or delete one key |
//! | `POST /_ssr/admin/tenants/{id}/d1/{binding}/execute` (body: SQL) | run its statements in one transaction: `{applied, results}` |
//! | `POST /_ssr/admin/tenants/{id}/d1/{binding}/migrations/{name}` (body: SQL) | the same, once per name (recorded in `d1_migrations`): `applied` is false when it had run |
//! | `GET /_ssr/admin/tenants/{id}/d1/{binding}/export` | the database as SQL that makes it again |
//! | `GET\|PUT\|DELETE /_ssr/admin/tenants/{id}/r2/{binding}/objects/{key}` (PUT's body: the object, up to 100 MiB; its `Content-Type` kept) | read (streamed, with its `Content-Type` and `ETag`), write or delete one object |
//!
//! Invariants: a binding is named as the tenant's app names it, and reaches
//! that tenant's namespace or database alone; the same limits as a
//! Worker's call apply (`kv::answer`); every call runs off the async
//! threads.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::AppState;
use super::error::ApiError;
use crate::bindings::{kv, r2};

/// Runs `f` with the tenant's bindings on a thread that may block.
async fn blocking<T: Send + 'static>(
    state: &Arc<AppState>,
    id: &str,
    f: impl FnOnce(&crate::bindings::Bindings) -> Result<T, String> + Send + 'static,
) -> Result<T, ApiError> {
    let tenant = state.registry.current(id)?;
    tokio::task::spawn_blocking(move || f(&tenant.grants.bindings))
        .await
        .map_err(|_| ApiError::Internal)?
        .map_err(ApiError::BadRequest)
}

fn json(text: String) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text,
    )
        .into_response()
}

#[derive(Deserialize)]
pub struct KeysQuery {
    prefix: Option<String>,
    cursor: Option<String>,
}

/// One KV call as a Worker's, on behalf of the admin API.
fn kv_call(
    b: &crate::bindings::Bindings,
    binding: &str,
    call: kv::Call,
    data: Vec<u8>,
) -> Result<(String, Vec<u8>), String> {
    let (store, ns) = b.kv_namespace(binding)?;
    kv::answer(&**store, ns, call, data, kv::now(), b.quotas().kv_bytes)
}

pub async fn kv_keys(
    State(state): State<Arc<AppState>>,
    Path((id, binding)): Path<(String, String)>,
    Query(q): Query<KeysQuery>,
) -> Result<Response, ApiError> {
    let call = kv::Call::List {
        binding: binding.clone(),
        prefix: q.prefix,
        limit: None,
        cursor: q.cursor,
    };
    let (listed, _) =
        blocking(&state, &id, move |b| kv_call(b, &binding, call, Vec::new())).await?;
    Ok(json(listed))
}

pub async fn kv_get(
    State(state): State<Arc<AppState>>,
    Path((id, binding, key)): Path<(String, String, String)>,
) -> Result<Response, ApiError> {
    let call = kv::Call::Get {
        binding: binding.clone(),
        keys: vec![key.clone()],
        bulk: false,
        kind: None,
        cache_ttl: None,
    };
    let (found, value) =
        blocking(&state, &id, move |b| kv_call(b, &binding, call, Vec::new())).await?;
    if found == "[null]" {
        return Err(ApiError::NotFound(format!("no key `{key}`")));
    }
    Ok(value.into_response())
}

#[derive(Deserialize)]
pub struct PutQuery {
    expiration_ttl: Option<f64>,
}

pub async fn kv_put(
    State(state): State<Arc<AppState>>,
    Path((id, binding, key)): Path<(String, String, String)>,
    Query(q): Query<PutQuery>,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let call = kv::Call::Put {
        binding: binding.clone(),
        key,
        expiration: None,
        expiration_ttl: q.expiration_ttl,
        metadata: None,
    };
    blocking(&state, &id, move |b| {
        kv_call(b, &binding, call, body.to_vec())
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn kv_delete(
    State(state): State<Arc<AppState>>,
    Path((id, binding, key)): Path<(String, String, String)>,
) -> Result<StatusCode, ApiError> {
    let call = kv::Call::Delete {
        binding: binding.clone(),
        key,
    };
    blocking(&state, &id, move |b| kv_call(b, &binding, call, Vec::new())).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn sql_of(body: &Bytes) -> Result<String, ApiError> {
    String::from_utf8(body.to_vec())
        .map_err(|_| ApiError::BadRequest("the SQL is not UTF-8; send it as text".into()))
}

pub async fn d1_execute(
    State(state): State<Arc<AppState>>,
    Path((id, binding)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let sql = sql_of(&body)?;
    let out = blocking(&state, &id, move |b| b.d1_script(&binding, &sql, None)).await?;
    Ok(json(out))
}

pub async fn d1_migration(
    State(state): State<Arc<AppState>>,
    Path((id, binding, name)): Path<(String, String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let sql = sql_of(&body)?;
    let out = blocking(&state, &id, move |b| {
        b.d1_script(&binding, &sql, Some(&name))
    })
    .await?;
    Ok(json(out))
}

/// `GET /_ssr/admin/tenants/{id}/bindings`: what the tenant binds, what
/// each holds, and its quotas.
pub async fn usage(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let out = blocking(&state, &id, |b| b.usage()).await?;
    Ok(json(out.to_string()))
}

pub async fn d1_export(
    State(state): State<Arc<AppState>>,
    Path((id, binding)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let sql = blocking(&state, &id, move |b| b.d1_export(&binding)).await?;
    Ok(([(axum::http::header::CONTENT_TYPE, "application/sql")], sql).into_response())
}

/// The largest object `PUT .../r2/{binding}/objects/{key}` takes: the body
/// comes whole (a larger one goes through a Worker's multipart upload).
pub const R2_PUT_MAX: usize = 100 << 20;

/// One R2 call as a Worker's, on behalf of the admin API.
fn r2_call(
    b: &crate::bindings::Bindings,
    binding: &str,
    call: r2::Call,
    data: Vec<u8>,
    held: Option<&mut r2::Held>,
) -> Result<r2::Answer, String> {
    let (store, ns) = b.r2_bucket(binding)?;
    store.answer(ns, b.quotas().r2_bytes, call, data, held)
}

pub async fn r2_get(
    State(state): State<Arc<AppState>>,
    Path((id, binding, key)): Path<(String, String, String)>,
) -> Result<Response, ApiError> {
    let call = r2::Call::get(&binding, &key);
    let tenant = state.registry.current(&id)?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(2);
    let (head_tx, head_rx) = tokio::sync::oneshot::channel();
    // Off the async threads: the first answer, then the body a piece at a
    // time, as the client takes it.
    tokio::task::spawn_blocking(move || {
        let b = &tenant.grants.bindings;
        let (head, first, mut held) = match r2_call(b, &binding, call, Vec::new(), None) {
            Ok(r2::Answer::Done(head, bytes)) => (head, bytes, None),
            Ok(r2::Answer::Hold(head, held)) => (head.to_string(), Vec::new(), Some(held)),
            Err(e) => {
                let _ = head_tx.send(Err(e));
                return;
            }
        };
        if head_tx.send(Ok(head)).is_err() {
            return;
        }
        if !first.is_empty() && tx.blocking_send(Ok(first.into())).is_err() {
            return;
        }
        while let Some(h) = held.as_mut() {
            let read = r2::Call::read(&binding);
            match r2_call(b, &binding, read, Vec::new(), Some(h)) {
                Ok(r2::Answer::Done(more, bytes)) => {
                    if tx.blocking_send(Ok(bytes.into())).is_err() || more != "true" {
                        return;
                    }
                }
                Ok(r2::Answer::Hold(..)) => return,
                Err(e) => {
                    let _ = tx.blocking_send(Err(std::io::Error::other(e)));
                    return;
                }
            }
        }
    });
    let head = head_rx
        .await
        .map_err(|_| ApiError::Internal)?
        .map_err(ApiError::BadRequest)?;
    let head: serde_json::Value = serde_json::from_str(&head).map_err(|_| ApiError::Internal)?;
    if head.is_null() {
        return Err(ApiError::NotFound(format!("no object `{key}`")));
    }
    let object = &head["object"];
    let mut response = axum::body::Body::from_stream(pieces(rx)).into_response();
    let headers = response.headers_mut();
    let content_type = object["http"]["contentType"]
        .as_str()
        .unwrap_or("application/octet-stream");
    for (name, value) in [
        ("content-type", content_type.to_string()),
        (
            "etag",
            format!("\"{}\"", object["etag"].as_str().unwrap_or("")),
        ),
    ] {
        if let Ok(v) = axum::http::HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    }
    Ok(response)
}

/// The pieces `rx` receives, as a stream.
fn pieces(
    mut rx: tokio::sync::mpsc::Receiver<Result<Bytes, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

pub async fn r2_put(
    State(state): State<Arc<AppState>>,
    Path((id, binding, key)): Path<(String, String, String)>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let content_type = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let call = r2::Call::put(&binding, &key, body.len() as u64, content_type);
    let out = blocking(&state, &id, move |b| {
        match r2_call(b, &binding, call, body.to_vec(), None)? {
            r2::Answer::Done(object, _) => Ok(object),
            r2::Answer::Hold(..) => Err("the put did not end".into()),
        }
    })
    .await?;
    Ok(json(out))
}

pub async fn r2_delete(
    State(state): State<Arc<AppState>>,
    Path((id, binding, key)): Path<(String, String, String)>,
) -> Result<StatusCode, ApiError> {
    let call = r2::Call::Delete {
        binding: binding.clone(),
        keys: vec![key],
    };
    blocking(&state, &id, move |b| {
        r2_call(b, &binding, call, Vec::new(), None).map(drop)
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}
