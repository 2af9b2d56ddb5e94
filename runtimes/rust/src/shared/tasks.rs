//! Units as tokio tasks, on either of tokio's runtimes: the tokio and
//! tokio_ct mechanisms share their code, only the runtime differs.
use std::future::Future;
use std::sync::Arc;

use tokio::runtime::{Builder, Runtime};
use tokio::task::JoinHandle;

use crate::kit::{Result, Run, Units};

/// Which tokio runtime a mechanism's tasks run on.
#[derive(Clone, Copy)]
pub enum Flavor {
    /// The multi-thread runtime: one worker thread per core (or
    /// TOKIO_WORKER_THREADS), with work stealing.
    MultiThread,
    /// The current-thread runtime: every task on the thread that blocks on it.
    CurrentThread,
}

/// Runs `work` on a new runtime of the flavor, as the run's timed work: the
/// runtime is built before the clocks and shut down after them (its drop
/// waits for its threads). The answer's flags say which runtime it was.
pub fn block_on<F: Future>(run: &mut Run, flavor: Flavor, work: F) -> Result<F::Output> {
    let runtime = build(flavor)?;
    run.flag(match flavor {
        Flavor::MultiThread => format!("tokio multi_thread workers={}", runtime.metrics().num_workers()),
        Flavor::CurrentThread => "tokio current_thread".into(),
    });
    let output = run.timed(|| runtime.block_on(work));
    drop(runtime);
    Ok(output)
}

fn build(flavor: Flavor) -> std::io::Result<Runtime> {
    let mut builder = match flavor {
        Flavor::MultiThread => Builder::new_multi_thread(),
        Flavor::CurrentThread => Builder::new_current_thread(),
    };
    builder.enable_all().build()
}

/// Spawns a task whose body is one unit. The body is a future, which does
/// nothing until the task first polls it: start is still its first act.
pub fn spawn<F>(units: &Arc<Units>, body: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let units = Arc::clone(units);
    tokio::spawn(async move {
        units.start();
        let output = body.await;
        units.finish();
        output
    })
}
