// Futures (workloads/future.toml): create `futures` futures, all before
// awaiting any; future i computes (i x i) mod 1,000; then await each one
// and sum the values.
use std::thread;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::{Executor, Spawner};
use crate::shared::monoio::Monoio;
use crate::shared::smol::Smol;
use crate::shared::tasks::Flavor;
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", future_none),
    ("thread", future_threads),
    ("tokio", |run| future_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| future_tasks(run, Flavor::CurrentThread)),
    ("smol", |run| future_tasks(run, Smol)),
    ("monoio", |run| future_tasks(run, Monoio)),
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

/// A task's future of its value is its join handle (tokio's and monoio's
/// JoinHandle, smol's Task), itself a future.
fn future_tasks<E: Executor>(run: &mut Run, executor: E) -> Result {
    let futures = run.count("futures");
    let work = move |tasks: E::Spawner| async move {
        let started: Vec<_> = (0..futures).map(|i| tasks.spawn(async move { value(i) })).collect();
        let mut sum = 0;
        for future in started {
            sum += future.await;
        }
        sum
    };
    let sum = executor.block_on(run, work)?;
    run.result("sum", sum);
    Ok(())
}
