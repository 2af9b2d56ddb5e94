//! Taking a lock and counting whether it was held: a try-lock first, and
//! only if that fails, the lock that waits (mutex-cpu, mutex-io).
use std::sync::{Mutex, MutexGuard, TryLockError};

use local_sync::semaphore::{Semaphore, SemaphorePermit};

/// Locks `mutex`, adding 1 to `contended` if it was held.
pub fn lock<'a, T>(mutex: &'a Mutex<T>, contended: &mut i64) -> MutexGuard<'a, T> {
    match mutex.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::WouldBlock) => {
            *contended += 1;
            mutex.lock().expect("a unit panicked holding the lock")
        }
        Err(TryLockError::Poisoned(_)) => panic!("a unit panicked holding the lock"),
    }
}

/// Locks a tokio mutex, adding 1 to `contended` if it was held: the task
/// then waits without holding up its thread.
pub async fn lock_async<'a, T>(
    mutex: &'a tokio::sync::Mutex<T>,
    contended: &mut i64,
) -> tokio::sync::MutexGuard<'a, T> {
    match mutex.try_lock() {
        Ok(guard) => guard,
        Err(_) => {
            *contended += 1;
            mutex.lock().await
        }
    }
}

/// Locks a smol (async-lock) mutex, adding 1 to `contended` if it was held:
/// the task then waits without holding up its thread.
pub async fn lock_smol<'a, T>(mutex: &'a smol::lock::Mutex<T>, contended: &mut i64) -> smol::lock::MutexGuard<'a, T> {
    match mutex.try_lock() {
        Some(guard) => guard,
        None => {
            *contended += 1;
            mutex.lock().await
        }
    }
}

/// Takes the one permit of a local-sync semaphore, the lock of monoio's
/// tasks, adding 1 to `contended` if it was held: the task then waits
/// without holding up its thread. No lock's semaphore is ever closed.
pub async fn acquire<'a>(lock: &'a Semaphore, contended: &mut i64) -> SemaphorePermit<'a> {
    match lock.try_acquire() {
        Ok(permit) => permit,
        Err(_) => {
            *contended += 1;
            lock.acquire().await.expect("a lock's semaphore is never closed")
        }
    }
}
