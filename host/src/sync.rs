//! The one policy for poisoned locks: use the data as it is.
//!
//! Nothing in ssr panics on purpose while holding a lock, and every change
//! made under one leaves its data consistent (one insert, remove, push or
//! swap). A lock poisoned by a panic elsewhere (a bug, which the panic
//! logged) therefore still guards consistent data, and refusing it would
//! turn one bug into every later request failing. Every lock in the host is
//! taken through these functions.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub fn read<T>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

pub fn write<T>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}
