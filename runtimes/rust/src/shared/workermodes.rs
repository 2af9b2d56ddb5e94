//! map-trivial, map-cpu, map-io and map-shrink, Pbt's worker modes (seed
//! 001), alike for every mechanism: one operation is one evaluation, which
//! the workload's evaluation function makes with the mechanism's map of its
//! evaluate function over a list of inputs (results in the inputs' order).
//! The kit's loop runs `batch` evaluations a batch.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread;

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use super::threads;
use crate::kit::{Result, Run, Units};

/// A map workload's mechanisms.
#[derive(Clone, Copy)]
pub enum Worker {
    /// Pbt's worker: :none, the baseline: the cases in place, in order.
    None,
    /// Scoped threads made for each evaluation, striped (striped).
    Thread,
    /// rayon's par_iter over the cases, on a pool made before the clocks.
    Rayon,
}

/// A mechanism's map: the results of evaluating `inputs`, in their order.
pub type Apply<'a, In, Out> = &'a dyn Fn(&[In]) -> Vec<Out>;

/// Runs the rate loop: `evaluation` once an operation, with the map of
/// `evaluate` that `worker` makes; the clocks stop as it returns.
pub fn worker_modes<In: Sync, Out: Send>(
    run: &mut Run,
    worker: Worker,
    evaluate: impl Fn(&In) -> Out + Sync,
    mut evaluation: impl FnMut(Apply<In, Out>),
) -> Result {
    let batch = run.count("batch");
    let workers = match run.count("workers") {
        0 => thread::available_parallelism()?.get(),
        workers => workers,
    };
    let units = run.units();
    let pool = match worker {
        Worker::Rayon => Some(ThreadPoolBuilder::new().num_threads(workers).build()?),
        Worker::None | Worker::Thread => None,
    };
    if let Some(pool) = &pool {
        run.flag(format!("rayon threads={}", pool.current_num_threads()));
    }
    let pooled = pool.as_ref().map(Pooled::new);
    let in_place = |inputs: &[In]| -> Vec<Out> { inputs.iter().map(&evaluate).collect() };
    let on_threads = |inputs: &[In]| striped(inputs, workers, &units, &evaluate);
    let on_pool = |inputs: &[In]| pooled.as_ref().expect("a rayon pool").map(inputs, &evaluate);
    let apply: Apply<In, Out> = match worker {
        Worker::None => &in_place,
        Worker::Thread => &on_threads,
        Worker::Rayon => &on_pool,
    };
    run.rate(|| {
        for _ in 0..batch {
            evaluation(apply);
        }
    });
    // Nothing is outstanding after the loop: what follows (the pool's end,
    // a workload's clean-up) is untimed.
    run.stop_clocks();
    if let Some(pooled) = &pooled {
        pooled.report(&units);
    }
    Ok(())
}

/// `workers` threads made for each evaluation, no more than there are cases
/// (as Parallel.map, which Pbt calls, does); unit w of n evaluates the cases
/// w, w + n, ..., and the caller interleaves their results. A thread the
/// process cannot start panics, which fails the trial: a map has no error
/// to return.
fn striped<In: Sync, Out: Send>(
    inputs: &[In],
    workers: usize,
    units: &Units,
    evaluate: &(impl Fn(&In) -> Out + Sync),
) -> Vec<Out> {
    let n = workers.min(inputs.len());
    let stripes: Vec<Vec<Out>> = thread::scope(|scope| {
        let started: Vec<_> = (0..n)
            .map(|w| {
                threads::spawn(scope, units, move || {
                    inputs.iter().skip(w).step_by(n).map(evaluate).collect()
                })
                .unwrap_or_else(|err| panic!("starting a worker thread: {err}"))
            })
            .collect();
        started.into_iter().map(threads::join).collect()
    });
    let mut stripes: Vec<_> = stripes.into_iter().map(Vec::into_iter).collect();
    (0..inputs.len())
        .map(|i| stripes[i % n].next().expect("a stripe holds its cases"))
        .collect()
}

/// rayon's pool, made before the clocks and used as is: its threads outlive
/// the evaluations, so none of them is started or finished by one. Its units
/// are counted as the Ruby kit counts a library pool's: the pool's threads
/// that ran a case of the run; live is the most of them that ran cases of
/// one evaluation. A case costs a relaxed load of its thread's flag (a
/// store the first time), not a shared counter's read-modify-write.
struct Pooled<'a> {
    pool: &'a ThreadPool,
    ran: Vec<AtomicBool>,  // the evaluation's, by the thread's index in the pool
    ever: Vec<Cell<bool>>, // the run's
    peak: Cell<i64>,
}

impl<'a> Pooled<'a> {
    fn new(pool: &'a ThreadPool) -> Pooled<'a> {
        let threads = pool.current_num_threads();
        Pooled {
            pool,
            ran: (0..threads).map(|_| AtomicBool::new(false)).collect(),
            ever: (0..threads).map(|_| Cell::new(false)).collect(),
            peak: Cell::new(0),
        }
    }

    /// rayon's ordered collect of a par_iter: the caller waits while the
    /// pool's threads split the cases between them. Then, the collect having
    /// joined every case, the evaluation's flags are folded into the run's.
    fn map<In: Sync, Out: Send>(&self, inputs: &[In], evaluate: &(impl Fn(&In) -> Out + Sync)) -> Vec<Out> {
        let ran = &self.ran;
        let results = self.pool.install(|| {
            inputs
                .par_iter()
                .map(|input| {
                    let ran = &ran[rayon::current_thread_index().expect("a case runs on the pool")];
                    if !ran.load(Relaxed) {
                        ran.store(true, Relaxed);
                    }
                    evaluate(input)
                })
                .collect()
        });
        let mut live = 0;
        for (ran, ever) in ran.iter().zip(&self.ever) {
            if ran.swap(false, Relaxed) {
                live += 1;
                ever.set(true);
            }
        }
        self.peak.set(self.peak.get().max(live));
        results
    }

    fn report(&self, units: &Units) {
        units.counted(self.ever.iter().filter(|ran| ran.get()).count() as i64, self.peak.get());
    }
}
