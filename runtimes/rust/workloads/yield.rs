// Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
// unit yields to its scheduler and is resumed; `partners` more units yield
// in a loop beside it. Every unit adds one to a shared turn counter each
// time it runs; a yield after which the counter has moved is switched.
//
// The measured unit is the code running the kit's loop (the thread, or the
// future the thread blocks on); it counts its own resumptions, the result.
// Relaxed atomics are exact for `switched`: every bump is a read-modify-
// write of one counter, so the measured unit's bump returns the value right
// after every other bump since its last.
use std::io;
use std::mem;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::monoio as monoio_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

// tokio (multi-thread) is n/a (runtime.toml): its partners would run on the
// other workers in parallel, so the counter would move while no yield
// switched anything.
pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", yield_threads),
    ("tokio_ct", yield_tasks),
    ("monoio", yield_monoio),
];

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
    let (turn, stop) = (AtomicI64::new(0), AtomicBool::new(false));
    let outcome = thread::scope(|scope| -> Result<Measured> {
        let partner = || {
            while !stop.load(Relaxed) {
                turn.fetch_add(1, Relaxed);
                thread::yield_now();
            }
        };
        let started = (0..partners)
            .map(|_| threads::spawn(scope, &units, partner))
            .collect::<io::Result<Vec<_>>>()
            .inspect_err(|_| stop.store(true, Relaxed))?; // the scope joins those started
        units.start();
        let mut measured = Measured::first(&turn);
        run.rate(|| {
            for _ in 0..batch {
                thread::yield_now();
                measured.resumed(&turn);
            }
        });
        units.finish();
        // Still timed: the partners are stopped and joined.
        stop.store(true, Relaxed);
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

/// Tasks yielding with tokio::task::yield_now on the current-thread
/// runtime: every task, and the future running the kit's loop, on the one
/// thread, so that the counter moves only when a yield let a partner run.
/// The partners start at the measured unit's first yield.
fn yield_tasks(run: &mut Run) -> Result {
    let (batch, partners) = (run.count("batch"), run.count("partners"));
    let units = run.units();
    let (turn, stop) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicBool::new(false)));
    let mut rate = run.rate_loop();
    let runtime = tasks::runtime(run, Flavor::CurrentThread)?;
    let measured = runtime.block_on(async {
        let started: Vec<_> = (0..partners)
            .map(|_| {
                let (turn, stop) = (Arc::clone(&turn), Arc::clone(&stop));
                tasks::spawn(&units, async move {
                    while !stop.load(Relaxed) {
                        turn.fetch_add(1, Relaxed);
                        tokio::task::yield_now().await;
                    }
                })
            })
            .collect();
        units.start();
        let mut measured = Measured::first(&turn);
        rate.start();
        loop {
            for _ in 0..batch {
                tokio::task::yield_now().await;
                measured.resumed(&turn);
            }
            if !rate.next_batch() {
                break;
            }
        }
        units.finish();
        stop.store(true, Relaxed);
        for partner in started {
            tasks::join(partner).await;
        }
        rate.stop_clocks();
        measured
    });
    drop(runtime);
    run.rate_done(rate);
    measured.report(run);
    Ok(())
}

/// Tasks yielding with shared::monoio's yield_now on monoio's one thread, so
/// that, as on tokio's current-thread runtime, the counter moves only when a
/// yield let a partner run. The measured unit is a task of its own, running
/// the kit's loop: the future the runtime blocks on cannot yield (monoio
/// polls it again at once). The partners start at its first yield.
fn yield_monoio(run: &mut Run) -> Result {
    let (batch, partners) = (run.count("batch"), run.count("partners"));
    let units = run.units();
    let (turn, stop) = (Rc::new(AtomicI64::new(0)), Rc::new(AtomicBool::new(false)));
    let mut rate = run.rate_loop();
    let measuring = {
        let (turn, stop) = (Rc::clone(&turn), Rc::clone(&stop));
        async move {
            let mut measured = Measured::first(&turn);
            rate.start();
            loop {
                for _ in 0..batch {
                    monoio_tasks::yield_now().await;
                    measured.resumed(&turn);
                }
                if !rate.next_batch() {
                    break;
                }
            }
            stop.store(true, Relaxed);
            (rate, measured)
        }
    };
    let mut runtime = monoio_tasks::Runtime::new(run)?;
    let (rate, measured) = runtime.block_on(async {
        let measuring = monoio_tasks::spawn(&units, measuring);
        let started: Vec<_> = (0..partners)
            .map(|_| monoio_tasks::spawn(&units, partner_monoio(Rc::clone(&turn), Rc::clone(&stop))))
            .collect();
        let (mut rate, measured) = measuring.await;
        for partner in started {
            partner.await;
        }
        rate.stop_clocks();
        (rate, measured)
    });
    drop(runtime);
    run.rate_done(rate);
    measured.report(run);
    Ok(())
}

/// A partner: a turn, then a yield, until the measured unit stops it.
async fn partner_monoio(turn: Rc<AtomicI64>, stop: Rc<AtomicBool>) {
    while !stop.load(Relaxed) {
        turn.fetch_add(1, Relaxed);
        monoio_tasks::yield_now().await;
    }
}
