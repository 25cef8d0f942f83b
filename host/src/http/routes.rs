//! Public pages (request step 1), in two steps. [`answer`], synchronous,
//! routes the request ([`resolve`]: tenant), answers a `GET` or `HEAD` of
//! one of the tenant's static assets (`crate::assets`: never the pool), and
//! looks it up in the cache; a hit ends there. [`render`] finishes the rest: the request becomes a
//! `contract::Request`, goes to [`submit`] (pool) and the cache's insert,
//! and [`respond`] turns the entry into a response (encoding, ETag, 304).
//!
//! Routing: the `Host` header picks the tenant among registered hostnames.
//! Under path routing (`Config::path_routing`), `/t/{id}/...` picks tenant
//! `id` first, and the renderer sees the path without that base (and the
//! base, to make links with). Every tenant under `/t/` shares one web origin,
//! which is why it is off by default with a data dir.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;

use super::AppState;
use super::error::{ApiError, counted, failed_render};
use crate::assets::binding::Resolved;
use crate::cache::{CacheEntry, CacheKey, Encoding, Miss, Url, X_CACHE};
use crate::config::RenderOn;
use contract::{ErrorKind, RenderError};

use crate::engine::EngineError;
use crate::pool::PoolError;
use crate::tenant::{Routes, Tenant};
use crate::unsent::{Paced, Unsent};
use crate::web::stream::{self, Frame};
use crate::web::upload::Upload;

/// What [`answer`] decided.
pub enum Step {
    /// The response: a cache hit, or an error.
    Done(Response),
    /// A render: [`render`] finishes the request.
    Render(Pending),
}

/// A request that needs a render, with what [`answer`] found out.
pub struct Pending {
    tenant: Arc<Tenant>,
    /// The base path it was routed by, and the target its renderer sees.
    base: String,
    target: String,
    wanted: Encoding,
    /// The URL's key and the headers its responses vary on; `None` for a
    /// method whose responses are never cached.
    cache: Option<(CacheKey, Miss)>,
}

/// An absolute-form request (`GET http://b.example/ HTTP/1.1`) is for the
/// target's host, whatever its `Host` header says (RFC 9112 3.2.2): the
/// header is made the target's, so that routing, the cache key and the
/// renderer all see the one host the request is for.
pub fn absolute_form(parts: &mut Parts) {
    let Some(authority) = parts.uri.authority() else {
        return;
    };
    let host = authority.as_str();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    if let Ok(value) = HeaderValue::from_str(host) {
        parts.headers.insert(header::HOST, value);
    }
}

/// The synchronous step of a public request (its head: pages never read a
/// body): routes it and answers it from cache when it can. A hit counts no
/// reference that every core shares (not the state's, not the tenant's):
/// on 4 cores those cost a cache line moved per request (`benches/hits.sh`).
pub fn answer(state: &AppState, parts: &Parts) -> Step {
    match lookup(state, parts) {
        Ok(step) => step,
        // The demo's first page, where no tenant serves `/`.
        Err(ApiError::NoTenant)
            if state.config.demo()
                && parts.uri.path() == "/"
                && matches!(parts.method, Method::GET | Method::HEAD) =>
        {
            let host = header_str(&parts.headers, header::HOST).unwrap_or("");
            Step::Done(super::demo::index(state, host))
        }
        Err(e) => Step::Done(e.into_response()),
    }
}

fn lookup(state: &AppState, parts: &Parts) -> Result<Step, ApiError> {
    let (method, uri, headers) = (&parts.method, &parts.uri, &parts.headers);
    if headers.get_all(header::HOST).iter().nth(1).is_some() {
        return Err(ApiError::BadRequest(
            "the request has more than one Host header; send exactly one".into(),
        ));
    }
    let routes = state.registry.routes();
    let (tenant, base, target) = resolve(state, &routes, uri, headers)?;
    tenant.stats.requests.add(1);
    let wanted = Encoding::negotiate(headers);
    // A request to upgrade to a WebSocket is its render's to answer.
    let cacheable = cache_of(method) && !super::websocket::asks(headers);
    if cacheable {
        let path = target.split_once('?').map_or(&*target, |(p, _)| p);
        match crate::assets::binding::resolve(&tenant.assets, path) {
            Resolved::File(asset) => {
                tenant.stats.asset_hits.add(1);
                let mut resp = crate::assets::respond(asset, method, headers, wanted);
                crate::assets::binding::apply_headers(&tenant.assets.app, path, resp.headers_mut());
                return Ok(Step::Done(resp));
            }
            Resolved::Redirect(status, to) => {
                tenant.stats.asset_hits.add(1);
                return Ok(Step::Done(redirect(status, base, &to, &target)));
            }
            Resolved::NotFound => {}
        }
    }
    let pending = |cache| Pending {
        tenant: tenant.clone(),
        base: base.to_string(),
        target: target.to_string(),
        wanted,
        cache,
    };
    if !cacheable {
        return Ok(Step::Render(pending(None)));
    }
    let url = Url::new(&tenant.id, tenant.version(), headers, base, &target);
    if url.too_long() {
        return Ok(Step::Render(pending(None)));
    }
    let hit = state.cache.lookup(&url, headers, |entry, _| {
        if entry.wants_compressing(wanted) {
            state.cache.compress_later(url.key(), entry.clone());
        }
        respond(entry, headers, "hit", method, wanted, None)
    });
    match hit {
        Ok(resp) => {
            tenant.stats.cache_hits.add(1);
            Ok(Step::Done(resp))
        }
        // Only a miss pays for owning its key and its request's parts.
        Err(vary) => Ok(Step::Render(pending(Some((url.key(), vary))))),
    }
}

/// Finishes a request [`answer`] could not: reads its body (for a method
/// that has one), renders it (sharing the render with concurrent requests
/// of the same full key), stores what may be stored, and responds.
pub async fn render(
    state: Arc<AppState>,
    mut parts: Parts,
    body: Incoming,
    pending: Pending,
) -> Response {
    let Pending {
        tenant,
        base,
        target,
        wanted,
        cache,
    } = pending;
    // Full already: refused before it renders (its page would be, after).
    if state.unsent.full() {
        return unsent_full(&tenant.id);
    }
    let config = &state.config;
    let socket = super::websocket::asked(
        &mut parts,
        &tenant.id,
        &state.websockets,
        config,
        &state.unsent,
    );
    let socket = match socket {
        Ok(Some(_)) if config.render_on == RenderOn::Runtime => {
            let why = "this server renders on its async runtime (--render-on runtime), which answers no WebSocket";
            return ApiError::BadRequest(why.into()).into_response();
        }
        Ok(socket) => socket,
        Err(e) => return e.into_response(),
    };
    let (method, uri, headers) = (&parts.method, &parts.uri, &parts.headers);
    // A HEAD that may be stored renders as a GET (and sends only the
    // head), as a caching proxy does: its entry answers GETs too, so it
    // must be the GET's (a framework answers HEAD with an empty body).
    let as_method = match cache {
        Some(_) if *method == Method::HEAD => &Method::GET,
        _ => method,
    };
    let mut request = request(&tenant, as_method, uri, &base, &target, headers);
    // A HEAD gets its body read whole (and not sent): nothing to stream.
    let streams = *method != Method::HEAD && state.config.render_on != RenderOn::Runtime;
    let mut upload = None;
    if has_body(method) {
        // A body past `max_request_kib` streams into a renderer that can
        // read it so, up to `max_upload_mib`.
        let most = match streams && tenant.assets.app.streamed_requests {
            true => tenant.limits.max_upload_bytes,
            false => tenant.limits.max_request_bytes,
        };
        let read = read_body(&state, &parts, body, tenant.limits.max_request_bytes, most);
        match read.await {
            Ok((bytes, rest)) => (request.body, upload) = (bytes, rest),
            Err(e) => return e.into_response(),
        }
    }
    let how = if cache.is_some() { "miss" } else { "bypass" };
    let rendered = match cache {
        None => {
            // A render that failed on reading a body past its limit is
            // the client's error, as one refused before it would be.
            let over = upload.as_ref().map(Upload::over);
            let submitted = submit(
                &state, &tenant, request, &parts, wanted, None, streams, upload, socket,
            );
            submitted
                .await
                .map_err(|e| match over.and_then(|o| o.get().cloned()) {
                    Some(said) => ApiError::TooLarge(said),
                    None => e,
                })
        }
        Some((key, vary)) => {
            // A streamed response goes to this request alone; the flight
            // gets a stand-in that no one keeps, so requests that joined it
            // render for themselves.
            let streamed = std::sync::Mutex::new(None);
            let render = || async {
                let answer = submit(
                    &state,
                    &tenant,
                    request,
                    &parts,
                    wanted,
                    Some(&key),
                    streams,
                    None,
                    None,
                );
                match answer.await? {
                    Answer::Whole(entry) => {
                        state.cache.insert(key.clone(), &entry, headers);
                        Ok(entry)
                    }
                    Answer::Streamed(resp) => {
                        *crate::sync::lock(&streamed) = Some(resp);
                        Ok(Arc::new(CacheEntry::streamed()))
                    }
                }
            };
            // A request with credentials never shares a render (RFC 9111 3.5).
            let entry = if crate::cache::authorized(headers) {
                render().await
            } else {
                state.flights.run(&key, &vary, headers, render).await
            };
            match crate::sync::lock(&streamed).take() {
                Some(resp) => Ok(Answer::Streamed(resp)),
                None => entry.map(Answer::Whole),
            }
        }
    };
    match rendered {
        // Counted until the client takes it: the cache's copy may be
        // evicted while a slow client holds this one.
        Ok(Answer::Whole(entry)) => {
            let unsent = Some((&state.unsent, &*tenant.id));
            respond(&entry, headers, how, method, wanted, unsent)
        }
        Ok(Answer::Streamed(mut resp)) => {
            if resp.status() != StatusCode::SWITCHING_PROTOCOLS {
                resp.headers_mut()
                    .insert(X_CACHE, HeaderValue::from_static(how));
            }
            resp
        }
        Err(e) => e.into_response(),
    }
}

/// What a render gave: an entry (kept if the cache's rules allow), or a
/// response whose body is streamed as the renderer makes it.
enum Answer {
    Whole(Arc<CacheEntry>),
    Streamed(Response),
}

/// Whether responses to `method` may come from and go to the cache.
/// A redirect answered before the renderer (`_redirects`, or the HTML
/// rules): a path of the tenant's is put under its `base`, and the
/// request's query goes with it when the target has none.
fn redirect(status: u16, base: &str, to: &str, target: &str) -> Response {
    let mut location = match to.starts_with('/') {
        true => format!("{base}{to}"),
        false => to.to_string(),
    };
    if let Some((_, query)) = target.split_once('?')
        && !location.contains('?')
    {
        location.push('?');
        location.push_str(query);
    }
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND);
    match HeaderValue::try_from(location) {
        Ok(v) => {
            resp.headers_mut().insert(header::LOCATION, v);
        }
        Err(_) => *resp.status_mut() = StatusCode::NOT_FOUND,
    }
    resp
}

fn cache_of(method: &Method) -> bool {
    *method == Method::GET || *method == Method::HEAD
}

/// Whether the renderer gets the body of a request with `method`: every
/// method but GET and HEAD, whose bodies have no meaning (RFC 9110 9.3.1).
fn has_body(method: &Method) -> bool {
    !cache_of(method)
}

/// The request body, while its client has fewer than
/// `--max-uploads-per-client` bodies arriving: whole up to `whole` bytes,
/// within `--body-timeout`; past it, with `most` larger, what came and the
/// rest to stream into the render as it reads it ([`Upload`]), up to
/// `most` in all. Past the limit a 413 that says it (before reading
/// anything when `Content-Length` says so already), past the time a 408,
/// past the uploads a 429. Answering before the body is read closes the
/// connection.
async fn read_body(
    state: &AppState,
    parts: &Parts,
    mut body: Incoming,
    whole: usize,
    most: usize,
) -> Result<(Vec<u8>, Option<Upload>), ApiError> {
    use http_body_util::BodyExt;
    let too_large = || {
        ApiError::TooLarge(match most > whole {
            true => format!(
                "the request body is over this site's limit of {} MiB; send a smaller one",
                most >> 20
            ),
            false => format!(
                "the request body is over this site's limit of {} KiB; send a smaller one",
                whole >> 10
            ),
        })
    };
    let headers = &parts.headers;
    let declared = header_str(headers, header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > most as u64) {
        return Err(too_large());
    }
    if declared == Some(0) {
        return Ok((Vec::new(), None));
    }
    let client = parts.extensions.get::<super::listen::Client>();
    let place = match client {
        Some(client) => Some(state.uploads.enter(client.0).ok_or_else(|| {
            ApiError::TooMany(format!(
                "this address is sending {} request bodies already; send one when another is done",
                state.uploads.max()
            ))
        })?),
        None => None,
    };
    let timeout = state.config.body_timeout.duration();
    let mut bytes = Vec::new();
    let read = tokio::time::timeout(timeout, async {
        while bytes.len() <= whole {
            match body.frame().await {
                None => return Ok(true),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        bytes.extend_from_slice(&data);
                    }
                }
                Some(Err(e)) => return Err(e),
            }
        }
        Ok(false)
    });
    match read.await {
        Err(_) => Err(ApiError::SlowClient(format!(
            "the request body did not arrive within {} ms; send it at once",
            timeout.as_millis()
        ))),
        Ok(Ok(true)) => Ok((bytes, None)),
        Ok(Ok(false)) if most <= whole || bytes.len() > most => Err(too_large()),
        Ok(Ok(false)) => {
            let read = bytes.len() as u64;
            let place: Box<dyn Send + Sync> = Box::new(place);
            let rest = Upload::new(body, read, most as u64, timeout, place);
            Ok((bytes, Some(rest)))
        }
        Ok(Err(e)) => Err(ApiError::BadRequest(format!(
            "reading the request body failed: {e}"
        ))),
    }
}

/// Step 2: which tenant, the base path it was routed by (`/t/<id>` or ""),
/// and the target (path and query) its renderer sees after the base.
fn resolve<'a, 'r>(
    state: &AppState,
    routes: &'r Routes,
    uri: &'a Uri,
    headers: &HeaderMap,
) -> Result<(&'r Arc<Tenant>, &'a str, Cow<'a, str>), ApiError> {
    let target = uri.path_and_query().map_or("/", |pq| pq.as_str());
    if state.config.path_routing()
        && let Some(rest) = target.strip_prefix("/t/")
    {
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let id = &rest[..end];
        let Some(tenant) = routes.id(id) else {
            tracing::info!(tenant = ?id, "404: no tenant of this id (path routing)");
            return Err(ApiError::NoTenant);
        };
        let inner = &rest[end..];
        let inner = if inner.starts_with('/') {
            Cow::Borrowed(inner)
        } else {
            Cow::Owned(format!("/{inner}"))
        };
        return Ok((tenant, &target[..3 + end], inner));
    }
    let host = header_str(headers, header::HOST).unwrap_or("");
    let Some(tenant) = routes.host(host) else {
        tracing::info!(
            host = ?host,
            "404: no tenant serves this host; register one with `ssr tenant add <id> <plugin.wasm> --host <host>`"
        );
        return Err(ApiError::NoTenant);
    };
    Ok((tenant, "", Cow::Borrowed(target)))
}

fn request(
    tenant: &Tenant,
    method: &Method,
    uri: &Uri,
    base: &str,
    target: &str,
    headers: &HeaderMap,
) -> contract::Request {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    // As received: plain HTTP (TLS ends in front of ssr), the Host header.
    let host = header_str(headers, header::HOST).unwrap_or("localhost");
    let received = uri.path_and_query().map_or("/", |pq| pq.as_str());
    contract::Request {
        method: method.as_str().to_string(),
        url: target.to_string(),
        href: format!("http://{host}{received}"),
        base: base.to_string(),
        path: path.to_string(),
        query: contract::query_pairs(query),
        // A service call's depth and entrypoint are the host's to say,
        // never a client's.
        headers: headers
            .iter()
            .filter(|(k, _)| !crate::bindings::service::is_hosts(k.as_str()))
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        tenant: tenant.id.to_string(),
        body: Vec::new(),
    }
}

/// Steps 4 and 5: render on the pool, within the request timeout. A body
/// the renderer streams (when `streams`) is answered as it comes
/// (`stream.rs`), and kept once complete under `key` if the cache's rules
/// allow; any other is made into the response's entry (kept later only if
/// `key` is given and the cache's rules allow). A request body still
/// arriving (`upload`) goes to the render with its stream.
#[allow(clippy::too_many_arguments)]
async fn submit(
    state: &Arc<AppState>,
    tenant: &Arc<Tenant>,
    request: contract::Request,
    parts: &Parts,
    wanted: Encoding,
    key: Option<&CacheKey>,
    streams: bool,
    upload: Option<Upload>,
    socket: Option<(super::websocket::Upgrade, crate::web::websocket::Offer)>,
) -> Result<Answer, ApiError> {
    // A WebSocket's render answers within the request's time (its engine
    // holds it to that), then lives as long as its socket.
    let deadline = Instant::now()
        + match socket {
            Some(_) => super::websocket::LIFETIME,
            None => state.config.request_timeout.duration(),
        };
    let outcome = if state.config.render_on == RenderOn::Runtime {
        // Deliberately blocks this async thread for the whole render, as
        // rendering on an event loop does: the comparison the pool is for.
        state.pool.render_here(&**tenant, &request, deadline)
    } else if streams {
        let (sink, mut frames) = stream::channel(&state.unsent);
        let mut sink = sink.with_upload(upload);
        let mut upgrade = None;
        if let Some((asked, offer)) = socket {
            sink = sink.with_socket(offer);
            upgrade = Some(asked);
        }
        let mut render: super::stream::Render = {
            let (state, tenant) = (state.clone(), tenant.clone());
            Box::pin(async move {
                state
                    .pool
                    .render(&tenant, request, deadline, Some(sink))
                    .await
            })
        };
        tokio::select! {
            biased;
            // Ended before its head was read: every chunk is here, and the
            // response goes out whole; so does one that was complete before
            // its `ctx.waitUntil()` work failed.
            outcome = &mut render => match outcome {
                Ok(r) => Ok(super::stream::gathered(r, &mut frames)),
                Err(e) => match super::stream::completed(&mut frames) {
                    Some(response) => {
                        failed_render(tenant, e);
                        Ok(crate::pool::Rendered {
                            response,
                            queue_wait: std::time::Duration::ZERO,
                            render_time: std::time::Duration::ZERO,
                        })
                    }
                    None => Err(e),
                },
            },
            frame = frames.recv() => match frame {
                Some(Frame::Head(head)) if head.status == 101 && upgrade.is_some() => {
                    let upgrade = upgrade.expect("checked");
                    return Ok(Answer::Streamed(upgrade.switch(tenant, &head, frames, render)));
                }
                Some(Frame::Head(head)) => {
                    let store = key.map(|k| (k.clone(), parts.headers.clone(), wanted));
                    return streamed(state, tenant, head, frames, render, store);
                }
                _ => render.await,
            },
        }
    } else {
        state.pool.render(tenant, request, deadline, None).await
    };
    match outcome.and_then(|r| checked_status(r.response.status).map(|()| r)) {
        Ok(r) => {
            counted(tenant, &r);
            let entry = state
                .cache
                .entry(
                    &tenant.id,
                    r.response,
                    &parts.headers,
                    wanted,
                    key.is_some(),
                )
                .await
                .map_err(|e| {
                    tracing::error!(tenant = %tenant.id, "making a cache entry failed: {e}");
                    ApiError::Internal
                })?;
            Ok(Answer::Whole(entry))
        }
        Err(e) => Err(failed_render(tenant, e)),
    }
}

/// The response to a render that started streaming with `head`.
fn streamed(
    state: &Arc<AppState>,
    tenant: &Arc<Tenant>,
    head: contract::Response,
    frames: stream::Frames,
    render: super::stream::Render,
    store: Option<(CacheKey, HeaderMap, Encoding)>,
) -> Result<Answer, ApiError> {
    if let Err(e) = checked_status(head.status) {
        return Err(failed_render(tenant, e));
    }
    let mut resp = Response::new(Body::empty());
    *resp.headers_mut() = CacheEntry::stream_head(&head);
    *resp.status_mut() = StatusCode::from_u16(head.status).unwrap_or(StatusCode::OK);
    // Kept once complete only if the cache could keep it at all.
    let (ttl, _) = crate::cache::policy_ttl(&head, state.cache.default_ttl());
    let store = store
        .filter(|_| ttl.is_some())
        .map(|(key, headers, wanted)| super::stream::Store {
            state: state.clone(),
            key,
            headers,
            wanted,
            head,
        });
    *resp.body_mut() = Body::new(super::stream::Streamed::new(
        tenant.clone(),
        frames,
        render,
        store,
    ));
    Ok(Answer::Streamed(resp))
}

/// A renderer's status must be a final one the host can send: 1xx would
/// switch or confuse the connection (the prelude refuses them too, but a
/// plugin need not use the prelude).
fn checked_status(status: u16) -> Result<(), PoolError> {
    if (200..=599).contains(&status) {
        return Ok(());
    }
    Err(PoolError::Engine(EngineError::Js(RenderError::new(
        ErrorKind::BadResult,
        format!("the renderer returned status {status}; use an integer from 200 to 599"),
    ))))
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Turns an entry into a response: 304 for a GET or HEAD whose
/// `If-None-Match` matches a stored 2xx entry, else the body in the
/// negotiated encoding (if the entry has it), counted in `unsent` if given
/// (with the tenant, to count a refusal by): a 503 when it does not fit.
/// The entry's headers were made once, when it was created.
fn respond(
    entry: &CacheEntry,
    req: &HeaderMap,
    cache: &'static str,
    method: &Method,
    wanted: Encoding,
    unsent: Option<(&Arc<Unsent>, &str)>,
) -> Response {
    let (_, body, head) = entry.encoded(wanted);
    let mut resp = Response::new(Body::empty());
    let h = resp.headers_mut();
    *h = head.clone();
    if cache != "hit" {
        h.insert(X_CACHE, HeaderValue::from_static(cache));
    }
    let conditional = cache_of(method) && entry.stored && (200..300).contains(&entry.status);
    let not_modified =
        conditional && header_str(req, header::IF_NONE_MATCH).is_some_and(|inm| entry.matches(inm));
    let status = if not_modified { 304 } else { entry.status };
    // 204 and 304 have no content (RFC 9110 6.4.1), whatever was rendered.
    let bodiless = matches!(status, 204 | 304);
    if bodiless {
        h.remove(header::CONTENT_LENGTH);
        h.remove(header::CONTENT_ENCODING);
    }
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    if *method != Method::HEAD && !bodiless {
        *resp.body_mut() = match unsent {
            None => Body::from(body.clone()),
            Some((unsent, tenant)) => match Paced::hold(body.clone(), unsent) {
                Ok(paced) => Body::new(paced),
                Err(_) => return unsent_full(tenant),
            },
        };
    }
    resp
}

/// The 503 of a render whose page would pass `--max-unsent-mib`.
fn unsent_full(tenant: &str) -> Response {
    metrics::counter!("ssr_rejections_total", "tenant" => tenant.to_string(), "reason" => "unsent")
        .increment(1);
    tracing::warn!(
        tenant,
        "503: the rendered pages waiting for clients to read them are at --max-unsent-mib"
    );
    ApiError::Saturated.into_response()
}
