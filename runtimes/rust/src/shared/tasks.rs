//! Units as tokio tasks, on either of tokio's runtimes: the tokio and
//! tokio_ct mechanisms share their code, only the runtime differs.
use std::future::Future;
use std::panic;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::runtime::{Builder, Runtime};
use tokio::task::{JoinError, JoinHandle};

use super::counted;
use super::executor::{Executor, Spawner, Timer};
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
pub fn block_on<F>(run: &mut Run, flavor: Flavor, work: F) -> Result<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = runtime(run, flavor)?;
    let output = run.timed(|| on_a_task(&runtime, work));
    drop(runtime);
    Ok(output)
}

/// Runs `work` on a task of its own, as a tokio program's main spawns its
/// work, and waits for it: the thread that blocks on the multi-thread
/// runtime is none of its workers, and work run there would make every
/// spawn a remote one and every wake one across threads.
pub fn on_a_task<F>(runtime: &Runtime, work: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    runtime.block_on(join(runtime.spawn(work)))
}

/// A new runtime of the flavor, for a rate run that blocks on it itself
/// (Run::rate_loop) and drops it after the clocks. The answer's flags say
/// which runtime it was.
pub fn runtime(run: &mut Run, flavor: Flavor) -> std::io::Result<Runtime> {
    let runtime = build(flavor)?;
    flag(run, flavor, &runtime);
    Ok(runtime)
}

/// A runtime of the flavor confined to one thread, for a yield with
/// partners (docs/extending.md, yield with partners): the multi-thread
/// runtime with one worker (worker_threads(1)), the current-thread one as
/// it is. The answer's flags say which.
pub fn one_worker(run: &mut Run, flavor: Flavor) -> std::io::Result<Runtime> {
    let runtime = match flavor {
        Flavor::MultiThread => Builder::new_multi_thread().worker_threads(1).enable_all().build()?,
        Flavor::CurrentThread => build(flavor)?,
    };
    flag(run, flavor, &runtime);
    Ok(runtime)
}

fn build(flavor: Flavor) -> std::io::Result<Runtime> {
    let mut builder = match flavor {
        Flavor::MultiThread => Builder::new_multi_thread(),
        Flavor::CurrentThread => Builder::new_current_thread(),
    };
    builder.enable_all().build()
}

/// The answer's flag saying which runtime the run ran on.
fn flag(run: &mut Run, flavor: Flavor, runtime: &Runtime) {
    run.flag(match flavor {
        Flavor::MultiThread => format!("tokio multi_thread workers={}", runtime.metrics().num_workers()),
        Flavor::CurrentThread => "tokio current_thread".into(),
    });
}

/// Runs `work` on the process's lasting runtime of the flavor (lasting), as
/// the run's timed work, for a workload whose tasks hand work to tokio's
/// blocking pool.
pub fn block_on_lasting<F>(run: &mut Run, flavor: Flavor, work: F) -> Result<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = lasting(run, flavor)?;
    Ok(run.timed(|| on_a_task(runtime, work)))
}

/// The process's runtime of the flavor, built by the first run that asks
/// for it, before its clocks, and kept for the rest of the process: its
/// blocking pool's threads live across runs (for tokio's keep-alive, 10 s
/// idle), as the blocking crate's pool under smol::unblock is the
/// process's. A runtime built per run would start that pool's threads
/// inside each run's clocks.
pub fn lasting(run: &mut Run, flavor: Flavor) -> std::io::Result<&'static Runtime> {
    static MULTI_THREAD: OnceLock<Runtime> = OnceLock::new();
    static CURRENT_THREAD: OnceLock<Runtime> = OnceLock::new();
    let kept = match flavor {
        Flavor::MultiThread => &MULTI_THREAD,
        Flavor::CurrentThread => &CURRENT_THREAD,
    };
    let runtime = match kept.get() {
        Some(runtime) => runtime,
        None => {
            let built = build(flavor)?;
            kept.get_or_init(|| built)
        }
    };
    flag(run, flavor, runtime);
    Ok(runtime)
}

/// Spawns a task whose body is one unit (unit).
pub fn spawn<F>(units: &Arc<Units>, body: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    tokio::spawn(counted::unit(units, body))
}

/// What a unit returned; its panic goes on in the caller (a task is
/// cancelled only by a runtime's shutdown, which no mechanism starts while
/// it awaits).
pub async fn join<T>(unit: JoinHandle<T>) -> T {
    output(unit.await)
}

/// What a joined task returned (a JoinSet's join_next), or its panic.
pub fn output<T>(joined: std::result::Result<T, JoinError>) -> T {
    joined.unwrap_or_else(|err| panic::resume_unwind(err.into_panic()))
}

impl Executor for Flavor {
    type Spawner = Tasks;

    fn block_on<F>(self, run: &mut Run, work: impl FnOnce(Tasks) -> F) -> Result<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let work = work(Tasks { units: run.units() });
        block_on(run, self, work)
    }
}

impl Timer for Flavor {
    fn sleep(delay: Duration) -> impl Future<Output = ()> + Send + 'static {
        tokio::time::sleep(delay)
    }
}

/// Spawns the run's units on the runtime the work runs on.
#[derive(Clone)]
pub struct Tasks {
    units: Arc<Units>,
}

impl Spawner for Tasks {
    type Task<T: Send + 'static> = Joined<T>;

    fn spawn<F>(&self, body: F) -> Joined<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Joined(spawn(&self.units, body))
    }
}

/// A task's JoinHandle, awaited for what the unit returned (join).
pub struct Joined<T>(JoinHandle<T>);

impl<T> Future for Joined<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0).poll(cx).map(output)
    }
}
