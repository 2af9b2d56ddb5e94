//! The async runtimes as a workload written once for all of them sees them:
//! tokio's two (shared::tasks), smol's executor (shared::smol) and monoio's
//! (shared::monoio). Such a workload is one generic function, where the
//! runtimes differ only in how a task is spawned and awaited: same channels,
//! same locks, same work. Where a runtime's own primitive is the idiom (its
//! timer, its channels, its files), the workload has a function of its own.
use std::future::Future;
use std::time::Duration;

use crate::kit::{Result, Run};

/// An async runtime that runs a run's units as tasks.
pub trait Executor: Copy {
    type Spawner: Spawner;

    /// Runs the work `work` makes, given what spawns the run's units, as the
    /// run's timed work: the runtime is made before the clocks and ended
    /// after them. The answer's flags say which runtime it was.
    fn block_on<F>(self, run: &mut Run, work: impl FnOnce(Self::Spawner) -> F) -> Result<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;
}

/// What spawns a run's units on a runtime: cheap to clone into the work.
pub trait Spawner: Clone + Send + 'static {
    /// A started unit: awaiting it gives what its body returned, and its
    /// panic goes on in the awaiting task.
    type Task<T: Send + 'static>: Future<Output = T> + Send + 'static;

    /// Spawns a task whose body is one unit (shared::counted).
    fn spawn<F>(&self, body: F) -> Self::Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;
}

/// A runtime whose timer a task sleeps on, from any thread (monoio's timer
/// is its thread's: a task that sleeps on it cannot be sent).
pub trait Timer: Executor {
    fn sleep(delay: Duration) -> impl Future<Output = ()> + Send + 'static;
}
