// Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
// unit yields to its scheduler and is resumed; `partners` more units yield
// in a loop beside it. Every unit adds one to a shared turn counter each
// time it runs; a yield after which the counter has moved is switched.
//
// The measured unit is the code running the kit's loop (the thread, or a
// task of its own); it counts its own resumptions, the result.
// Relaxed atomics are exact for `switched`: every bump is a read-modify-
// write of one counter, so the measured unit's bump returns the value right
// after every other bump since its last.
use std::future::Future;
use std::io;
use std::mem;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;

use crate::kit::{Mechanism, RateLoop, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", yield_threads),
    ("tokio", |run| yield_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| yield_tasks(run, Flavor::CurrentThread)),
    ("smol", yield_smol),
    ("monoio", yield_monoio),
];

/// What every unit shares: the turn counter each bumps when it runs, and the
/// flag with which the measured unit stops the partners.
#[derive(Default)]
struct Turns {
    turn: AtomicI64,
    stop: AtomicBool,
}

/// What the measured unit counts: its resumptions and the yields after which
/// the turn counter had moved.
#[derive(Default)]
struct Measured {
    seen: i64,
    resumed: i64,
    switched: i64,
}

impl Measured {
    fn first(turn: &AtomicI64) -> Measured {
        Measured {
            seen: turn.fetch_add(1, Relaxed) + 1,
            ..Measured::default()
        }
    }

    /// Its turn after a yield.
    fn resumed(&mut self, turn: &AtomicI64) {
        let now = turn.fetch_add(1, Relaxed);
        if now != self.seen {
            self.switched += 1;
        }
        self.seen = now + 1;
        self.resumed += 1;
    }

    fn report(self, run: &mut Run) {
        run.result("count", self.resumed);
        run.evidence("switched", self.switched);
    }
}

/// Threads yielding with thread::yield_now (sched_yield), the kernel their
/// scheduler. With partners, the measured thread and its partners are
/// pinned to the CPU it is on (the partners inherit its mask as they are
/// made), and the old mask is restored after the clocks, as c/pthread does:
/// a sched_yield switches only among the threads of its CPU's run queue, and
/// unpinned, a partner alone on the other core would bump the counter in
/// parallel while every yield returned at once, so `switched` would lie.
fn yield_threads(run: &mut Run) -> Result {
    let (batch, partners) = (run.count("batch"), run.count("partners"));
    let pinned = if partners > 0 { Some(Pinned::here()?) } else { None };
    let units = run.units();
    let turns = Turns::default();
    let outcome = thread::scope(|scope| -> Result<Measured> {
        let partner = || {
            while !turns.stop.load(Relaxed) {
                turns.turn.fetch_add(1, Relaxed);
                thread::yield_now();
            }
        };
        let started = (0..partners)
            .map(|_| threads::spawn(scope, &units, partner))
            .collect::<io::Result<Vec<_>>>()
            .inspect_err(|_| turns.stop.store(true, Relaxed))?; // the scope joins those started
        units.start();
        let mut measured = Measured::first(&turns.turn);
        run.rate(|| {
            for _ in 0..batch {
                thread::yield_now();
                measured.resumed(&turns.turn);
            }
        });
        units.finish();
        // Still timed: the partners are stopped and joined.
        turns.stop.store(true, Relaxed);
        started.into_iter().for_each(threads::join);
        Ok(measured)
    });
    run.stop_clocks();
    if let Some(pinned) = pinned {
        pinned.restore()?;
    }
    outcome?.report(run);
    Ok(())
}

/// The calling thread pinned to the CPU it is on, with the mask it had.
struct Pinned {
    saved: libc::cpu_set_t,
}

impl Pinned {
    fn here() -> io::Result<Pinned> {
        // SAFETY: sched_getcpu takes nothing; the affinity calls read and
        // write cpu_set_t values that live here, of the size given.
        unsafe {
            let cpu = libc::sched_getcpu();
            if cpu < 0 {
                return Err(io::Error::last_os_error());
            }
            let mut saved: libc::cpu_set_t = mem::zeroed();
            if libc::sched_getaffinity(0, mem::size_of_val(&saved), &mut saved) < 0 {
                return Err(io::Error::last_os_error());
            }
            let mut one: libc::cpu_set_t = mem::zeroed();
            libc::CPU_SET(cpu as usize, &mut one);
            if libc::sched_setaffinity(0, mem::size_of_val(&one), &one) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(Pinned { saved })
        }
    }

    fn restore(self) -> io::Result<()> {
        // SAFETY: as in here.
        if unsafe { libc::sched_setaffinity(0, mem::size_of_val(&self.saved), &self.saved) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Tasks yielding with tokio::task::yield_now. With partners, every task is
/// on one thread, so that the counter moves only when a yield let a partner
/// run: the current-thread runtime's, or the multi-thread runtime's one
/// worker (worker_threads(1), tokio's own means: still the multi-thread
/// scheduler, its queues and its atomics; its workers pinned to one CPU
/// instead would still be two, the kernel switching between them under a
/// yield that switched nothing). The measured unit is a task of its own,
/// running the kit's loop; the partners start at its first yield.
fn yield_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let (batch, partners) = (run.count("batch"), run.count("partners"));
    let units = run.units();
    let turns = Arc::new(Turns::default());
    let measuring = measure(run.rate_loop(), batch, Arc::clone(&turns), tokio::task::yield_now);
    let runtime = match partners {
        0 => tasks::runtime(run, flavor)?,
        _ => tasks::one_worker(run, flavor)?,
    };
    let (rate, measured) = tasks::on_a_task(&runtime, async move {
        let measuring = tasks::spawn(&units, measuring);
        let started: Vec<_> = (0..partners)
            .map(|_| tasks::spawn(&units, partner(Arc::clone(&turns), tokio::task::yield_now)))
            .collect();
        finished(tasks::join(measuring), started.into_iter().map(tasks::join).collect()).await
    });
    drop(runtime);
    run.rate_done(rate);
    measured.report(run);
    Ok(())
}

/// Tasks yielding with smol::future::yield_now on smol's executor. With
/// partners, the executor has one runner, smol's own means (its global
/// executor's default), so that the counter moves only when a yield let a
/// partner run. The measured unit is a task of its own, running the kit's
/// loop; the partners start at its first yield.
fn yield_smol(run: &mut Run) -> Result {
    let (batch, partners) = (run.count("batch"), run.count("partners"));
    let turns = Arc::new(Turns::default());
    let measuring = measure(run.rate_loop(), batch, Arc::clone(&turns), smol::future::yield_now);
    let runtime = match partners {
        0 => smol_tasks::Runtime::new(run)?,
        _ => smol_tasks::Runtime::with_runners(run, 1)?,
    };
    let tasks = runtime.tasks(run);
    let (rate, measured) = runtime.block_on(async move {
        let measuring = tasks.spawn(measuring);
        let started: Vec<_> = (0..partners)
            .map(|_| tasks.spawn(partner(Arc::clone(&turns), smol::future::yield_now)))
            .collect();
        finished(measuring, started).await
    });
    drop(runtime);
    run.rate_done(rate);
    measured.report(run);
    Ok(())
}

/// The measured unit: the kit's loop, each operation a yield (`yield_now`)
/// and a turn; it stops the partners when the time box is over. The turns
/// are shared as the runtime's tasks can share them (Arc, or Rc on monoio's
/// one thread).
async fn measure<Y: Future<Output = ()>>(
    mut rate: RateLoop,
    batch: usize,
    turns: impl Deref<Target = Turns>,
    yield_now: impl Fn() -> Y,
) -> (RateLoop, Measured) {
    let mut measured = Measured::first(&turns.turn);
    rate.start();
    loop {
        for _ in 0..batch {
            yield_now().await;
            measured.resumed(&turns.turn);
        }
        if !rate.next_batch() {
            break;
        }
    }
    turns.stop.store(true, Relaxed);
    (rate, measured)
}

/// Awaits the measured unit, then the partners it stopped, and stops the
/// clocks once every unit has ended.
async fn finished<P: Future<Output = ()>>(
    measuring: impl Future<Output = (RateLoop, Measured)>,
    partners: Vec<P>,
) -> (RateLoop, Measured) {
    let (mut rate, measured) = measuring.await;
    for partner in partners {
        partner.await;
    }
    rate.stop_clocks();
    (rate, measured)
}

/// A partner: a turn, then a yield, until the measured unit stops it.
async fn partner<Y: Future<Output = ()>>(turns: impl Deref<Target = Turns>, yield_now: impl Fn() -> Y) {
    while !turns.stop.load(Relaxed) {
        turns.turn.fetch_add(1, Relaxed);
        yield_now().await;
    }
}

/// Tasks yielding with shared::monoio's yield_now on monoio's one thread, so
/// that, as on tokio's current-thread runtime, the counter moves only when a
/// yield let a partner run. The measured unit is a task of its own, running
/// the kit's loop: the future the runtime blocks on cannot yield (monoio
/// polls it again at once). The partners start at its first yield.
fn yield_monoio(run: &mut Run) -> Result {
    let (batch, partners) = (run.count("batch"), run.count("partners"));
    let units = run.units();
    let turns = Rc::new(Turns::default());
    let measuring = measure(run.rate_loop(), batch, Rc::clone(&turns), monoio_tasks::yield_now);
    let mut runtime = monoio_tasks::Runtime::new(run)?;
    let (rate, measured) = runtime.block_on(async {
        let measuring = monoio_tasks::spawn(&units, measuring);
        let started: Vec<_> = (0..partners)
            .map(|_| monoio_tasks::spawn(&units, partner(Rc::clone(&turns), monoio_tasks::yield_now)))
            .collect();
        finished(measuring, started).await
    });
    drop(runtime);
    run.rate_done(rate);
    measured.report(run);
    Ok(())
}
