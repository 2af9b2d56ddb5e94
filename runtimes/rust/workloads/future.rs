// Futures (workloads/future.toml): create `futures` futures, all before
// awaiting any; future i computes (i x i) mod 1,000; then await each one
// and sum the values.
use std::thread;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", future_none),
    ("thread", future_threads),
    ("tokio", |run| future_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| future_tasks(run, Flavor::CurrentThread)),
    ("smol", future_smol),
    ("monoio", future_monoio),
];

fn value(i: usize) -> i64 {
    (i * i % 1000) as i64
}

/// The values computed in place, one after another.
fn future_none(run: &mut Run) -> Result {
    let sum = (0..run.count("futures")).map(value).sum();
    run.result("sum", sum);
    Ok(())
}

/// std's future of a thread's value is its JoinHandle: join is the await.
fn future_threads(run: &mut Run) -> Result {
    let futures = run.count("futures");
    let units = run.units();
    let sum = thread::scope(|scope| -> Result<i64> {
        let started = (0..futures)
            .map(|i| threads::spawn(scope, &units, move || value(i)))
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(started.into_iter().map(threads::join).sum())
    })?;
    run.result("sum", sum);
    Ok(())
}

/// tokio's future of a task's value is its JoinHandle, itself a future.
fn future_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let futures = run.count("futures");
    let units = run.units();
    let work = async move {
        let started: Vec<_> = (0..futures)
            .map(|i| tasks::spawn(&units, async move { value(i) }))
            .collect();
        let mut sum = 0;
        for future in started {
            sum += tasks::join(future).await;
        }
        sum
    };
    let sum = tasks::block_on(run, flavor, work)?;
    run.result("sum", sum);
    Ok(())
}

/// smol's future of a task's value is its Task, itself a future.
fn future_smol(run: &mut Run) -> Result {
    let futures = run.count("futures");
    let work = move |tasks: smol_tasks::Tasks| async move {
        let started: Vec<_> = (0..futures).map(|i| tasks.spawn(async move { value(i) })).collect();
        let mut sum = 0;
        for future in started {
            sum += future.await;
        }
        sum
    };
    let sum = smol_tasks::block_on(run, work)?;
    run.result("sum", sum);
    Ok(())
}

/// monoio's future of a task's value is its JoinHandle, as tokio's.
fn future_monoio(run: &mut Run) -> Result {
    let futures = run.count("futures");
    let units = run.units();
    let work = async move {
        let started: Vec<_> = (0..futures)
            .map(|i| monoio_tasks::spawn(&units, async move { value(i) }))
            .collect();
        let mut sum = 0;
        for future in started {
            sum += future.await;
        }
        sum
    };
    let sum = monoio_tasks::block_on(run, work)?;
    run.result("sum", sum);
    Ok(())
}
