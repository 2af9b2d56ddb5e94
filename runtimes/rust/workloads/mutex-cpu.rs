// Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
// counter; each of `workers` units, `iterations` times, its iteration i
// counting from 0, makes the subject "foobar" * 100 followed by i in
// decimal, locks, reads the group's counter, matches /foo(.+)$/ against the
// subject, writes back the counter read plus the capture's length (597 plus
// i's digits) and unlocks. The subject is a new String each iteration
// (format!), made before the lock is taken.
//
// The engine is the regex crate's (finite automata: linear time, no
// backtracking), compiled before the clocks; a Regex is safe to share, and
// each unit matches with capture locations of its own, so that a match
// allocates nothing. The lock is std's Mutex in every mechanism: it is
// never held across an await, the case tokio's documentation gives it for.
// contended: acquisitions whose try_lock failed, each then taken with lock;
// each unit counts its own, summed after the units are awaited.
use std::sync::{Arc, Mutex};
use std::thread;

use regex::Regex;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::{Executor, Spawner};
use crate::shared::lock::lock;
use crate::shared::monoio::Monoio;
use crate::shared::smol::Smol;
use crate::shared::tasks::Flavor;
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", mutex_cpu_threads),
    ("tokio", |run| mutex_cpu_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| mutex_cpu_tasks(run, Flavor::CurrentThread)),
    ("smol", |run| mutex_cpu_tasks(run, Smol)),
    ("monoio", |run| mutex_cpu_tasks(run, Monoio)),
];

const PATTERN: &str = "foo(.+)$";

fn prefix() -> String {
    "foobar".repeat(100)
}

/// One thread per worker.
fn mutex_cpu_threads(run: &mut Run) -> Result {
    let (groups, workers, iterations) = (run.count("groups"), run.count("workers"), run.count("iterations"));
    let (pattern, prefix) = (Regex::new(PATTERN)?, prefix());
    let counters: Vec<Mutex<i64>> = (0..groups).map(|_| Mutex::new(0)).collect();
    let units = run.units();
    let contended = run.timed(|| {
        thread::scope(|scope| -> Result<i64> {
            let started = (0..groups * workers)
                .map(|w| {
                    let (counter, pattern, prefix) = (&counters[w / workers], &pattern, prefix.as_str());
                    threads::spawn(scope, &units, move || match_locked(counter, pattern, prefix, iterations))
                })
                .collect::<std::io::Result<Vec<_>>>()?;
            started.into_iter().map(threads::join).sum()
        })
    })?;
    report(run, counters.iter(), contended)
}

/// One task per worker. A task's critical section has no await, so a task
/// waits for the lock by blocking its worker thread (tokio's worker, smol's
/// runner), for as long as another thread's task takes to match; on one
/// thread (tokio's current-thread runtime, monoio's) each task runs all its
/// iterations before the next starts, and none waits.
fn mutex_cpu_tasks<E: Executor>(run: &mut Run, executor: E) -> Result {
    let (groups, workers, iterations) = (run.count("groups"), run.count("workers"), run.count("iterations"));
    let (pattern, prefix) = (Arc::new(Regex::new(PATTERN)?), Arc::<str>::from(prefix()));
    let counters: Arc<[Mutex<i64>]> = (0..groups).map(|_| Mutex::new(0)).collect();
    let work = |tasks: E::Spawner| {
        let counters = Arc::clone(&counters);
        async move {
            let started: Vec<_> = (0..groups * workers)
                .map(|w| {
                    let (counters, pattern, prefix) =
                        (Arc::clone(&counters), Arc::clone(&pattern), Arc::clone(&prefix));
                    tasks.spawn(async move { match_locked(&counters[w / workers], &pattern, &prefix, iterations) })
                })
                .collect();
            let mut contended = 0;
            for task in started {
                contended += task.await?;
            }
            Ok::<_, crate::kit::Error>(contended)
        }
    };
    let contended = executor.block_on(run, work)??;
    report(run, counters.iter(), contended)
}

/// One worker: its acquisitions that found the lock held.
fn match_locked(counter: &Mutex<i64>, pattern: &Regex, prefix: &str, iterations: usize) -> Result<i64> {
    let mut captures = pattern.capture_locations();
    let mut contended = 0;
    for i in 0..iterations {
        let subject = format!("{prefix}{i}");
        let mut guarded = lock(counter, &mut contended);
        let seen = *guarded;
        pattern
            .captures_read(&mut captures, &subject)
            .ok_or("the pattern did not match")?;
        let (start, end) = captures.get(1).ok_or("the pattern captured nothing")?;
        *guarded = seen + (end - start) as i64;
    }
    Ok(contended)
}

fn report<'a>(run: &mut Run, counters: impl Iterator<Item = &'a Mutex<i64>>, contended: i64) -> Result {
    let sum = counters
        .map(|counter| *counter.lock().expect("the units are done"))
        .sum();
    run.result("sum", sum);
    run.evidence("contended", contended);
    Ok(())
}
