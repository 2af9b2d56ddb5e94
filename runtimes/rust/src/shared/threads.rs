//! Units as threads: one std::thread per unit, scoped, so that a unit
//! borrows what the run owns and no thread outlives the scope.
use std::io;
use std::panic;
use std::thread::{self, Scope, ScopedJoinHandle};

use crate::kit::Units;

/// Starts a thread whose body is one unit; a failure to start it (the
/// process's thread limit, say) is an error, not a panic.
pub fn spawn<'scope, T: Send + 'scope>(
    scope: &'scope Scope<'scope, '_>,
    units: &'scope Units,
    body: impl FnOnce() -> T + Send + 'scope,
) -> io::Result<ScopedJoinHandle<'scope, T>> {
    thread::Builder::new().spawn_scoped(scope, move || {
        units.start();
        let output = body();
        units.finish();
        output
    })
}

/// What a unit returned; its panic goes on in the caller.
pub fn join<T>(unit: ScopedJoinHandle<'_, T>) -> T {
    unit.join().unwrap_or_else(|payload| panic::resume_unwind(payload))
}
