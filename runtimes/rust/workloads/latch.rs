// Countdown latch (workloads/latch.toml): `count` units made at the start of
// a run serve all its rounds; in each of `rounds` rounds the caller makes a
// latch of `count`, asks every unit to count it down once, and waits until
// it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
// r to a tally of its own; the tallies are summed modulo 1,000,000,007.
//
// Each unit gets its rounds' latches on a channel of its own with room for
// one; dropping the caller's end stops the unit.
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::AcqRel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

use local_sync::mpsc::bounded;
use local_sync::semaphore::Semaphore;
use tokio::sync::{mpsc, Notify};

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", latch_threads),
    ("tokio", |run| latch_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| latch_tasks(run, Flavor::CurrentThread)),
    ("smol", latch_smol),
    ("monoio", latch_monoio),
];

const MODULUS: i64 = 1_000_000_007;

/// What unit k did: its tally, and its count-downs.
#[derive(Default)]
struct Tally {
    tally: i64,
    made: i64,
}

impl Tally {
    /// Unit k's count-down in round made (r + 1 once counted).
    fn count_down(&mut self, k: usize) {
        self.made += 1;
        self.tally = (self.tally + (k as i64 + 1) * self.made) % MODULUS;
    }
}

fn report(run: &mut Run, woke: i64, tallies: Vec<Tally>) {
    run.result("rounds", woke);
    run.result("countdowns", tallies.iter().map(|t| t.made).sum());
    run.result("checksum", tallies.iter().fold(0, |sum, t| (sum + t.tally) % MODULUS));
}

/// std has no latch: this is the textbook one, a count under a Mutex with a
/// Condvar the last count-down notifies, as Java's CountDownLatch. (A
/// crossbeam WaitGroup would count by its clones instead, one made per unit
/// per round; a latch made once per round with its count is the workload's.)
struct Latch {
    remaining: Mutex<usize>,
    zero: Condvar,
}

impl Latch {
    fn new(count: usize) -> Latch {
        Latch {
            remaining: Mutex::new(count),
            zero: Condvar::new(),
        }
    }

    fn count_down(&self) {
        let mut remaining = self.remaining.lock().expect("a unit panicked counting down");
        *remaining -= 1;
        if *remaining == 0 {
            self.zero.notify_all();
        }
    }

    fn wait(&self) {
        let remaining = self.remaining.lock().expect("a unit panicked counting down");
        drop(self.zero.wait_while(remaining, |remaining| *remaining > 0));
    }
}

/// A thread per unit, asked over a crossbeam channel.
fn latch_threads(run: &mut Run) -> Result {
    let (count, rounds) = (run.count("count"), run.int("rounds"));
    let units = run.units();
    let (woke, tallies) = thread::scope(|scope| -> Result<_> {
        let mut asks = Vec::with_capacity(count);
        let mut started = Vec::with_capacity(count);
        for k in 0..count {
            let (ask, asked) = crossbeam_channel::bounded::<Arc<Latch>>(1);
            asks.push(ask);
            started.push(threads::spawn(scope, &units, move || {
                let mut tally = Tally::default();
                for latch in asked {
                    tally.count_down(k);
                    latch.count_down();
                }
                tally
            })?);
        }
        let mut woke = 0;
        for _ in 0..rounds {
            let latch = Arc::new(Latch::new(count));
            for ask in &asks {
                ask.send(Arc::clone(&latch))?;
            }
            latch.wait();
            woke += 1;
        }
        drop(asks);
        Ok((woke, started.into_iter().map(threads::join).collect()))
    })?;
    report(run, woke, tallies);
    Ok(())
}

/// tokio has no latch either: the count is an atomic, and the last
/// count-down wakes the caller through a Notify (notify_one keeps a permit
/// if the caller is not yet waiting, so the wake is never lost).
struct AsyncLatch {
    remaining: AtomicUsize,
    zero: Notify,
}

impl AsyncLatch {
    fn count_down(&self) {
        if self.remaining.fetch_sub(1, AcqRel) == 1 {
            self.zero.notify_one();
        }
    }
}

/// A task per unit, asked over a tokio mpsc channel.
fn latch_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let (count, rounds) = (run.count("count"), run.int("rounds"));
    let units = run.units();
    let work = async move {
        let (asks, started): (Vec<_>, Vec<_>) = (0..count)
            .map(|k| {
                let (ask, mut asked) = mpsc::channel::<Arc<AsyncLatch>>(1);
                let unit = tasks::spawn(&units, async move {
                    let mut tally = Tally::default();
                    while let Some(latch) = asked.recv().await {
                        tally.count_down(k);
                        latch.count_down();
                    }
                    tally
                });
                (ask, unit)
            })
            .unzip();
        let mut woke = 0;
        for _ in 0..rounds {
            let latch = Arc::new(AsyncLatch {
                remaining: AtomicUsize::new(count),
                zero: Notify::new(),
            });
            for ask in &asks {
                ask.send(Arc::clone(&latch)).await?;
            }
            latch.zero.notified().await;
            woke += 1;
        }
        drop(asks);
        let mut tallies = Vec::with_capacity(count);
        for unit in started {
            tallies.push(tasks::join(unit).await);
        }
        Ok::<_, crate::kit::Error>((woke, tallies))
    };
    let (woke, tallies) = tasks::block_on(run, flavor, work)??;
    report(run, woke, tallies);
    Ok(())
}

/// smol has no latch either, and event-listener's Event (the notifier under
/// smol's crates) keeps no permit for a listener not yet made: the count is
/// an atomic, and the last count-down sends on a channel with room for one,
/// which the caller awaits (the message waits there if the caller is not
/// yet waiting).
struct SmolLatch {
    remaining: AtomicUsize,
    notify: smol::channel::Sender<()>,
    notified: smol::channel::Receiver<()>,
}

impl SmolLatch {
    fn new(count: usize) -> SmolLatch {
        let (notify, notified) = smol::channel::bounded(1);
        SmolLatch {
            remaining: AtomicUsize::new(count),
            notify,
            notified,
        }
    }

    fn count_down(&self) {
        if self.remaining.fetch_sub(1, AcqRel) == 1 {
            self.notify.try_send(()).expect("the latch reaches zero once");
        }
    }

    async fn wait(&self) {
        self.notified.recv().await.expect("the latch holds both ends");
    }
}

/// A smol task per unit, asked over a smol::channel.
fn latch_smol(run: &mut Run) -> Result {
    let (count, rounds) = (run.count("count"), run.int("rounds"));
    let work = move |tasks: smol_tasks::Tasks| async move {
        let (asks, started): (Vec<_>, Vec<_>) = (0..count)
            .map(|k| {
                let (ask, asked) = smol::channel::bounded::<Arc<SmolLatch>>(1);
                let unit = tasks.spawn(async move {
                    let mut tally = Tally::default();
                    while let Ok(latch) = asked.recv().await {
                        tally.count_down(k);
                        latch.count_down();
                    }
                    tally
                });
                (ask, unit)
            })
            .unzip();
        let mut woke = 0;
        for _ in 0..rounds {
            let latch = Arc::new(SmolLatch::new(count));
            for ask in &asks {
                ask.send(Arc::clone(&latch)).await?;
            }
            latch.wait().await;
            woke += 1;
        }
        drop(asks);
        let mut tallies = Vec::with_capacity(count);
        for unit in started {
            tallies.push(unit.await);
        }
        Ok::<_, crate::kit::Error>((woke, tallies))
    };
    let (woke, tallies) = smol_tasks::block_on(run, work)??;
    report(run, woke, tallies);
    Ok(())
}

/// A monoio task per unit, asked over a local-sync channel. local-sync has
/// no latch nor Notify: a round's latch is a Semaphore with no permits, each
/// count-down adds one, and the caller acquires all `count` of them, woken
/// once the last is added.
fn latch_monoio(run: &mut Run) -> Result {
    let (count, rounds) = (run.count("count"), run.int("rounds"));
    let permits = u32::try_from(count)?;
    let units = run.units();
    let work = async move {
        let (asks, started): (Vec<_>, Vec<_>) = (0..count)
            .map(|k| {
                let (ask, mut asked) = bounded::channel::<Rc<Semaphore>>(1);
                let unit = monoio_tasks::spawn(&units, async move {
                    let mut tally = Tally::default();
                    while let Some(latch) = asked.recv().await {
                        tally.count_down(k);
                        latch.add_permits(1);
                    }
                    tally
                });
                (ask, unit)
            })
            .unzip();
        let mut woke = 0;
        for _ in 0..rounds {
            let latch = Rc::new(Semaphore::new(0));
            for ask in &asks {
                ask.send(Rc::clone(&latch)).await.map_err(|_| "a unit is gone")?;
            }
            drop(latch.acquire_many(permits).await?); // woken at zero
            woke += 1;
        }
        drop(asks);
        let mut tallies = Vec::with_capacity(count);
        for unit in started {
            tallies.push(unit.await);
        }
        Ok::<_, crate::kit::Error>((woke, tallies))
    };
    let (woke, tallies) = monoio_tasks::block_on(run, work)??;
    report(run, woke, tallies);
    Ok(())
}
