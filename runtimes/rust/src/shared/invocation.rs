//! invoke and invoke-waiting on threads and tasks: one operation starts a
//! unit whose body increments a counter (after yielding once, if it waits),
//! in the way `mode` says:
//!   - await: start it, wait for it, next;
//!   - batch: start a batch, then wait for them all;
//!   - forget: start a batch, then yield once so that they can run; what is
//!     still outstanding when the time box ends is awaited then (timed).
//!
//! The bodies may run in parallel (threads, tokio's workers): the counter is
//! atomic.
use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;

use tokio::task::JoinSet;

use super::counted;
use super::executor::Spawner;
use super::monoio as monoio_tasks;
use super::smol as smol_tasks;
use super::tasks::{self, Flavor};
use super::threads;
use crate::kit::{Result, Run};

#[derive(Clone, Copy)]
enum Mode {
    Await,
    Batch,
    Forget,
}

impl Mode {
    fn of(run: &Run) -> Result<Mode> {
        match run.choice("mode") {
            "await" => Ok(Mode::Await),
            "batch" => Ok(Mode::Batch),
            "forget" => Ok(Mode::Forget),
            mode => Err(format!("unknown mode {mode:?}").into()),
        }
    }
}

/// One scoped std::thread per operation; a waiting body yields with
/// thread::yield_now (sched_yield). A forgotten thread is never joined by
/// hand: the scope waits for every thread it started as it ends, which is
/// the await of what is outstanding, still timed.
pub fn threads(run: &mut Run, waits: bool) -> Result {
    let (batch, mode) = (run.count("batch"), Mode::of(run)?);
    let units = run.units();
    let count = AtomicI64::new(0);
    let body = || {
        if waits {
            thread::yield_now();
        }
        count.fetch_add(1, Relaxed);
    };
    // A thread the process cannot start ends the loop's work: the batches
    // after it do nothing, and the run fails with that error.
    let mut failed: io::Result<()> = Ok(());
    thread::scope(|scope| {
        let start = || threads::spawn(scope, &units, body);
        let one_batch = || -> io::Result<()> {
            match mode {
                Mode::Await => {
                    for _ in 0..batch {
                        threads::join(start()?);
                    }
                }
                Mode::Batch => {
                    let started = (0..batch).map(|_| start()).collect::<io::Result<Vec<_>>>()?;
                    started.into_iter().for_each(threads::join);
                }
                Mode::Forget => {
                    for _ in 0..batch {
                        start()?;
                    }
                    thread::yield_now();
                }
            }
            Ok(())
        };
        run.rate(|| {
            if failed.is_ok() {
                failed = one_batch();
            }
        });
    });
    failed?;
    run.result("count", count.into_inner());
    Ok(())
}

/// One tokio task per operation; a waiting body yields with
/// tokio::task::yield_now. The kit's loop runs on a task of its own, as a
/// tokio program's work does: the thread that blocks on the multi-thread
/// runtime is none of its workers, and a loop there would pay a wake across
/// threads for every await. Forgotten tasks go into a JoinSet, which frees
/// the finished ones at each batch's end and awaits the rest after the loop
/// (a dropped JoinHandle would leave nothing to await them by).
pub fn tasks(run: &mut Run, flavor: Flavor, waits: bool) -> Result {
    let (batch, mode) = (run.count("batch"), Mode::of(run)?);
    let units = run.units();
    let count = Arc::new(AtomicI64::new(0));
    let body = {
        let count = Arc::clone(&count);
        move || {
            let count = Arc::clone(&count);
            counted::unit(&units, async move {
                if waits {
                    tokio::task::yield_now().await;
                }
                count.fetch_add(1, Relaxed);
            })
        }
    };
    let mut rate = run.rate_loop();
    let runtime = tasks::runtime(run, flavor)?;
    let looped = async move {
        let mut outstanding = JoinSet::new();
        rate.start();
        loop {
            match mode {
                Mode::Await => {
                    for _ in 0..batch {
                        tasks::join(tokio::spawn(body())).await;
                    }
                }
                Mode::Batch => {
                    let started: Vec<_> = (0..batch).map(|_| tokio::spawn(body())).collect();
                    for task in started {
                        tasks::join(task).await;
                    }
                }
                Mode::Forget => {
                    for _ in 0..batch {
                        outstanding.spawn(body());
                    }
                    tokio::task::yield_now().await;
                    while let Some(done) = outstanding.try_join_next() {
                        tasks::output(done);
                    }
                }
            }
            if !rate.next_batch() {
                break;
            }
        }
        while let Some(done) = outstanding.join_next().await {
            tasks::output(done);
        }
        rate.stop_clocks();
        rate
    };
    let rate = tasks::on_a_task(&runtime, looped);
    drop(runtime);
    run.rate_done(rate);
    run.result("count", count.load(Relaxed));
    Ok(())
}

/// One smol task per operation; a waiting body yields with
/// smol::future::yield_now. The kit's loop runs on a task of its own, as the
/// tokio row's does. Forgotten tasks are kept, not detached, so that they
/// can be awaited: at each batch's end the finished ones are awaited
/// (at once; a panic goes on) and dropped, and the rest after the loop.
pub fn smol(run: &mut Run, waits: bool) -> Result {
    let (batch, mode) = (run.count("batch"), Mode::of(run)?);
    let count = Arc::new(AtomicI64::new(0));
    let mut rate = run.rate_loop();
    let runtime = smol_tasks::Runtime::new(run)?;
    let start = {
        let (tasks, count) = (runtime.tasks(run), Arc::clone(&count));
        move || {
            let count = Arc::clone(&count);
            tasks.spawn(async move {
                if waits {
                    smol::future::yield_now().await;
                }
                count.fetch_add(1, Relaxed);
            })
        }
    };
    let looped = async move {
        let mut outstanding = Vec::new();
        rate.start();
        loop {
            match mode {
                Mode::Await => {
                    for _ in 0..batch {
                        start().await;
                    }
                }
                Mode::Batch => {
                    let started: Vec<_> = (0..batch).map(|_| start()).collect();
                    for task in started {
                        task.await;
                    }
                }
                Mode::Forget => {
                    outstanding.extend((0..batch).map(|_| start()));
                    smol::future::yield_now().await;
                    for finished in outstanding.extract_if(.., |task| task.is_finished()) {
                        finished.await;
                    }
                }
            }
            if !rate.next_batch() {
                break;
            }
        }
        for task in outstanding {
            task.await;
        }
        rate.stop_clocks();
        rate
    };
    let rate = runtime.block_on(looped);
    drop(runtime);
    run.rate_done(rate);
    run.result("count", count.load(Relaxed));
    Ok(())
}

/// One monoio task per operation; a waiting body yields with
/// shared::monoio's yield_now. The kit's loop runs on a task of its own:
/// the future the runtime blocks on cannot yield (monoio polls it again at
/// once), which forget's yield needs. Forgotten tasks are kept by their
/// JoinHandles, the finished ones dropped at each batch's end and the rest
/// awaited after the loop. The counter is the thread's own (a Cell): the
/// bodies run on it one at a time.
pub fn monoio(run: &mut Run, waits: bool) -> Result {
    let (batch, mode) = (run.count("batch"), Mode::of(run)?);
    let units = run.units();
    let count = Rc::new(Cell::new(0));
    let body = {
        let count = Rc::clone(&count);
        move || {
            let count = Rc::clone(&count);
            monoio_tasks::spawn(&units, async move {
                if waits {
                    monoio_tasks::yield_now().await;
                }
                count.set(count.get() + 1);
            })
        }
    };
    let mut rate = run.rate_loop();
    let mut runtime = monoio_tasks::Runtime::new(run)?;
    let looped = async move {
        let mut outstanding = Vec::new();
        rate.start();
        loop {
            match mode {
                Mode::Await => {
                    for _ in 0..batch {
                        body().await;
                    }
                }
                Mode::Batch => {
                    let started: Vec<_> = (0..batch).map(|_| body()).collect();
                    for task in started {
                        task.await;
                    }
                }
                Mode::Forget => {
                    outstanding.extend((0..batch).map(|_| body()));
                    monoio_tasks::yield_now().await;
                    outstanding.retain(|task| !task.is_finished());
                }
            }
            if !rate.next_batch() {
                break;
            }
        }
        for task in outstanding {
            task.await;
        }
        rate.stop_clocks();
        rate
    };
    let rate = runtime.block_on(async { monoio::spawn(looped).await });
    drop(runtime);
    run.rate_done(rate);
    run.result("count", count.get());
    Ok(())
}
