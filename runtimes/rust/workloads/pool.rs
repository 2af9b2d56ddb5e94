// Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
// jobs; job j looks up key j mod `keys` in a table made before the timing
// (key k holds 2k + 1) and returns its value. All jobs are submitted, then
// all are awaited, and the values summed.
//
// The pools below are a fixed set of units taking jobs from one
// multi-consumer channel with room for every job, so that submitting never
// waits for a worker; dropping the submitting end once all are in ends the
// workers, and awaiting them awaits the jobs. A worker hands each job's value
// back to the caller in the job's own slot (as Go's and Java's pools do), and
// the caller sums the values once the jobs are awaited.
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::{Executor, Spawner};
use crate::shared::monoio::Monoio;
use crate::shared::smol::Smol;
use crate::shared::tasks::Flavor;
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", pool_none),
    ("thread", pool_threads),
    ("tokio", |run| pool_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| pool_tasks(run, Flavor::CurrentThread)),
    ("smol", |run| pool_tasks(run, Smol)),
    ("monoio", |run| pool_tasks(run, Monoio)),
];

/// The table the jobs look up, made before the timing.
fn table(keys: usize) -> HashMap<usize, i64> {
    (0..keys).map(|k| (k, 2 * k as i64 + 1)).collect()
}

/// The jobs called in place, one after another.
fn pool_none(run: &mut Run) -> Result {
    let (jobs, keys) = (run.count("jobs"), run.count("keys"));
    let table = table(keys);
    let sum = run.timed(|| (0..jobs).map(|job| table[&(job % keys)]).sum());
    run.result("sum", sum);
    Ok(())
}

/// A slot per job, where a worker puts the job's value for the caller.
fn slots(jobs: usize) -> Vec<AtomicI64> {
    (0..jobs).map(|_| AtomicI64::new(0)).collect()
}

/// The values the jobs handed back, once every job is awaited.
fn sum(values: &[AtomicI64]) -> i64 {
    values.iter().map(|value| value.load(Relaxed)).sum()
}

/// `pool_size` threads receiving jobs from a crossbeam channel.
fn pool_threads(run: &mut Run) -> Result {
    let (pool_size, jobs, keys) = (run.count("pool_size"), run.count("jobs"), run.count("keys"));
    let table = table(keys);
    let values = slots(jobs);
    let units = run.units();
    let sum = run.timed(|| {
        thread::scope(|scope| -> Result<i64> {
            let (submit, take) = crossbeam_channel::unbounded::<usize>();
            let workers = (0..pool_size)
                .map(|_| {
                    let (take, table, values) = (take.clone(), &table, &values);
                    threads::spawn(scope, &units, move || {
                        for job in take {
                            values[job].store(table[&(job % keys)], Relaxed);
                        }
                    })
                })
                .collect::<std::io::Result<Vec<_>>>()?;
            for job in 0..jobs {
                submit.send(job)?;
            }
            drop(submit);
            workers.into_iter().for_each(threads::join);
            Ok(sum(&values))
        })
    })?;
    run.result("sum", sum);
    Ok(())
}

/// `pool_size` tasks receiving jobs from an async-channel (tokio's own
/// mpsc has one consumer, and so have local-sync's, monoio's).
fn pool_tasks<E: Executor>(run: &mut Run, executor: E) -> Result {
    let (pool_size, jobs, keys) = (run.count("pool_size"), run.count("jobs"), run.count("keys"));
    let (table, values) = (Arc::new(table(keys)), Arc::new(slots(jobs)));
    let work = move |tasks: E::Spawner| async move {
        let (submit, take) = async_channel::unbounded::<usize>();
        let workers: Vec<_> = (0..pool_size)
            .map(|_| {
                let (take, table, values) = (take.clone(), Arc::clone(&table), Arc::clone(&values));
                tasks.spawn(async move {
                    while let Ok(job) = take.recv().await {
                        values[job].store(table[&(job % keys)], Relaxed);
                    }
                })
            })
            .collect();
        for job in 0..jobs {
            submit.send(job).await?;
        }
        drop(submit);
        for worker in workers {
            worker.await;
        }
        Ok::<_, crate::kit::Error>(sum(&values))
    };
    let sum = executor.block_on(run, work)??;
    run.result("sum", sum);
    Ok(())
}
