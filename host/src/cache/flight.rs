//! Single flight: concurrent misses for one URL share one render.
//!
//! Invariant: a render is shared only among requests whose key and values
//! of the headers the URL is known to vary on are equal, and a waiter gets
//! the shared result only if its own key would find it (see [`Flights::run`]).
//! The error type is the caller's (`http` uses its `ApiError`), cloned to
//! every waiter.

use std::future::Future;
use std::sync::Arc;

use axum::http::HeaderMap;
use dashmap::DashMap;

use super::CacheEntry;
use super::key::{self, CacheKey, Varied};

/// One render in flight, and its result once there is one.
type Flight<E> = tokio::sync::OnceCell<Result<Arc<CacheEntry>, E>>;

/// The renders in flight, by key and varied values.
pub struct Flights<E> {
    flights: DashMap<(CacheKey, Varied), Arc<Flight<E>>>,
}

impl<E> Default for Flights<E> {
    fn default() -> Self {
        Flights {
            flights: DashMap::new(),
        }
    }
}

impl<E: Clone> Flights<E> {
    /// Runs `render` once for all concurrent callers with the same key and
    /// the same values of the headers the URL is known to vary on (`vary`,
    /// from `Cache::lookup`). A caller that joined another's render renders
    /// for itself when the result was not kept (no-store, an error page) or
    /// depends on a header whose value differs in its own request: only what
    /// its own key would find is shared.
    pub async fn run<F, Fut>(
        &self,
        key: &CacheKey,
        vary: &[String],
        headers: &HeaderMap,
        render: F,
    ) -> Result<Arc<CacheEntry>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Arc<CacheEntry>, E>>,
    {
        let flight = (key.clone(), key::varied(headers, vary));
        let cell = self.flights.entry(flight.clone()).or_default().clone();
        let mut render = Some(render);
        let out = cell
            .get_or_init(|| (render.take().expect("called once"))())
            .await
            .clone();
        self.flights
            .remove_if(&flight, |_, c| Arc::ptr_eq(c, &cell));
        match (render, &out) {
            (Some(own), Ok(entry))
                if !entry.stored || !key::matches(headers, &entry.vary, &entry.rendered_for) =>
            {
                own().await
            }
            _ => out,
        }
    }
}
