// 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
// sleeps `delay_ms` if that is more than 0, then returns i; await them all
// and sum what they returned.
use std::thread;
use std::time::Duration;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::{Spawner, Timer};
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol::Smol;
use crate::shared::tasks::Flavor;
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", spawn_threads),
    ("tokio", |run| spawn_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| spawn_tasks(run, Flavor::CurrentThread)),
    ("smol", |run| spawn_tasks(run, Smol)),
    ("monoio", spawn_monoio),
];

/// One thread per task, each sleeping in thread::sleep (nanosleep); every
/// one is started before the first is joined.
fn spawn_threads(run: &mut Run) -> Result {
    let (count, delay) = (run.count("tasks"), Duration::from_millis(run.count("delay_ms") as u64));
    let units = run.units();
    let sum = thread::scope(|scope| -> Result<i64> {
        let started = (0..count)
            .map(|i| {
                threads::spawn(scope, &units, move || {
                    if !delay.is_zero() {
                        thread::sleep(delay);
                    }
                    i as i64
                })
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(started.into_iter().map(threads::join).sum())
    })?;
    run.result("sum", sum);
    Ok(())
}

/// One task per task, each sleeping on its runtime's timer (tokio's, which
/// its driver fires; smol's, which async-io's reactor fires), not a thread
/// asleep.
fn spawn_tasks<E: Timer>(run: &mut Run, executor: E) -> Result {
    let (count, delay) = (run.count("tasks"), Duration::from_millis(run.count("delay_ms") as u64));
    let work = move |tasks: E::Spawner| async move {
        let started: Vec<_> = (0..count)
            .map(|i| {
                tasks.spawn(async move {
                    if !delay.is_zero() {
                        E::sleep(delay).await;
                    }
                    i as i64
                })
            })
            .collect();
        let mut sum = 0;
        for task in started {
            sum += task.await;
        }
        sum
    };
    let sum = executor.block_on(run, work)?;
    run.result("sum", sum);
    Ok(())
}

/// One monoio task per task, each sleeping in monoio::time::sleep: a timer
/// on monoio's wheel, which the runtime's io_uring waits for (its park's
/// timeout), not a thread asleep.
fn spawn_monoio(run: &mut Run) -> Result {
    let (count, delay) = (run.count("tasks"), Duration::from_millis(run.count("delay_ms") as u64));
    let units = run.units();
    let work = async move {
        let started: Vec<_> = (0..count)
            .map(|i| {
                monoio_tasks::spawn(&units, async move {
                    if !delay.is_zero() {
                        monoio::time::sleep(delay).await;
                    }
                    i as i64
                })
            })
            .collect();
        let mut sum = 0;
        for task in started {
            sum += task.await;
        }
        sum
    };
    let sum = monoio_tasks::block_on(run, work)?;
    run.result("sum", sum);
    Ok(())
}
