//! Units as smol tasks: one smol::Executor, run by one runner thread per
//! core, each in smol::block_on(executor.run(..)) until the runtime stops
//! them, the multi-threaded executor smol's documentation and smol-macros
//! set up. smol::block_on (async-io's) also drives the reactor while its
//! thread has nothing to run: an idle runner, or the caller waiting for the
//! work, may be the thread waiting in epoll_wait (else async-io's own thread
//! is). smol has no ambient runtime: a task spawns its units on the
//! executor it is handed (Tasks).
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use smol::channel::{self, Receiver, Sender};
use smol::{Executor, Task};

use super::counted;
use super::executor::{self, Spawner, Timer};
use crate::kit::{Result, Run, Units};

/// Runs the work that `work` makes of the run's Tasks, as the run's timed
/// work: the executor and its runners are started before the clocks and
/// stopped and joined after them. The answer's flags say how many runners.
pub fn block_on<F>(run: &mut Run, work: impl FnOnce(Tasks) -> F) -> Result<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = Runtime::new(run)?;
    let work = work(runtime.tasks(run));
    let output = run.timed(|| runtime.block_on(work));
    drop(runtime);
    Ok(output)
}

/// An executor and its runner threads: they run its tasks until it is
/// dropped, which stops and joins them.
pub struct Runtime {
    executor: Arc<Executor<'static>>,
    stop: Sender<()>, // never sent on: closed, it ends every runner's run
    runners: Vec<JoinHandle<()>>,
}

impl Runtime {
    /// A new executor with one runner per core, for a rate run that blocks
    /// on it itself (Run::rate_loop) and drops it after the clocks. The
    /// answer's flags say how many runners.
    pub fn new(run: &mut Run) -> io::Result<Runtime> {
        Runtime::with_runners(run, thread::available_parallelism()?.get())
    }

    /// A new executor with `runners` runners (a yield with partners has one).
    pub fn with_runners(run: &mut Run, runners: usize) -> io::Result<Runtime> {
        let (stop, stopped) = channel::bounded(1);
        let mut runtime = Runtime {
            executor: Arc::new(Executor::new()),
            stop,
            runners: Vec::new(),
        };
        for i in 0..runners {
            // On an early return, the drop stops the runners started.
            runtime.runners.push(runner(i, &runtime.executor, stopped.clone())?);
        }
        run.flag(format!("smol Executor runners={}", runtime.runners.len()));
        Ok(runtime)
    }

    /// What spawns the run's units on this executor.
    pub fn tasks(&self, run: &Run) -> Tasks {
        Tasks {
            executor: Arc::clone(&self.executor),
            units: run.units(),
        }
    }

    /// Runs `work` on a task of its own, as a smol program's work does, and
    /// waits for it: the calling thread is none of the runners, and work
    /// run on it would pay a wake across threads for every await.
    pub fn block_on<T: Send + 'static>(&self, work: impl Future<Output = T> + Send + 'static) -> T {
        smol::block_on(self.executor.spawn(work))
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop.close();
        for runner in self.runners.drain(..) {
            runner.join().expect("a runner panicked outside its tasks");
        }
    }
}

/// Runner `i`: runs the executor's tasks until `stopped` is closed.
fn runner(i: usize, executor: &Arc<Executor<'static>>, stopped: Receiver<()>) -> io::Result<JoinHandle<()>> {
    let executor = Arc::clone(executor);
    thread::Builder::new().name(format!("smol-{i}")).spawn(move || {
        let _closed = smol::block_on(executor.run(stopped.recv()));
    })
}

/// Spawns the run's units on its executor.
#[derive(Clone)]
pub struct Tasks {
    executor: Arc<Executor<'static>>,
    units: Arc<Units>,
}

/// A Task is its join: awaiting it gives what the body returned, or resumes
/// its panic (async-executor spawns with propagate_panic); dropping it
/// cancels the task.
impl Spawner for Tasks {
    type Task<T: Send + 'static> = Task<T>;

    fn spawn<F>(&self, body: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.executor.spawn(counted::unit(&self.units, body))
    }
}

/// smol's executor, as a workload written once for every runtime sees it.
#[derive(Clone, Copy)]
pub struct Smol;

impl executor::Executor for Smol {
    type Spawner = Tasks;

    fn block_on<F>(self, run: &mut Run, work: impl FnOnce(Tasks) -> F) -> Result<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        block_on(run, work)
    }
}

impl Timer for Smol {
    fn sleep(delay: Duration) -> impl Future<Output = ()> + Send + 'static {
        let timer = smol::Timer::after(delay);
        async move {
            timer.await;
        }
    }
}
