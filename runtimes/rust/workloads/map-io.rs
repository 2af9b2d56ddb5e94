// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
use std::fs;
use std::future::Future;
use std::io;
use std::iter;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::thread;

use crate::kit::{Mechanism, RateLoop, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::lcg;
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::workermodes::{worker_modes, Worker};

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", |run| map_io(run, Worker::None)),
    ("thread", |run| map_io(run, Worker::Thread)),
    ("rayon", |run| map_io(run, Worker::Rayon)),
    ("tokio", |run| map_io_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| map_io_tasks(run, Flavor::CurrentThread)),
    ("smol", map_io_smol),
    ("monoio", map_io_monoio),
];

fn map_io(run: &mut Run, worker: Worker) -> Result {
    let path = run.scratch().join("map-io");
    fs::write(&path, vec![b'x'; run.count("file_size")])?;
    let inputs = lcg::draws(run.count("cases"), 0, 10);
    let evaluate = |n: &i64| -> std::io::Result<i64> {
        let mut content = fs::read(&path)?;
        content.extend(iter::repeat_n(b'x', *n as usize));
        Ok(content.len() as i64)
    };
    let (mut length, mut failed) = (0, None);
    let outcome = worker_modes(run, worker, evaluate, |apply| {
        for case in apply(&inputs) {
            match case {
                Ok(n) => length += n,
                Err(err) => drop(failed.get_or_insert(err)), // any one: every case reads the same file
            }
        }
    });
    fs::remove_file(&path)?;
    outcome?;
    if let Some(err) = failed {
        return Err(err.into());
    }
    run.result("length", length);
    Ok(())
}

/// The async rows' worker mode: `workers` tasks made for each evaluation
/// (0: one per core, as the thread row's), no more than there are cases;
/// unit w of n evaluates the cases w, w + n, ..., reading the file with the
/// runtime's own file API: while one unit waits for its read the others
/// start theirs. Each unit sums its cases' lengths and the evaluation the
/// units' sums (a sum needs no order).
struct Stripes {
    batch: usize,
    workers: usize,
    inputs: Arc<[i64]>,
    path: Arc<Path>,
}

impl Stripes {
    /// Writes the file the cases read, before the clocks.
    fn of(run: &Run) -> Result<Stripes> {
        let path: Arc<Path> = run.scratch().join("map-io").into();
        fs::write(&path, vec![b'x'; run.count("file_size")])?;
        let inputs: Arc<[i64]> = lcg::draws(run.count("cases"), 0, 10).into();
        let workers = match run.count("workers") {
            0 => thread::available_parallelism()?.get(),
            workers => workers,
        };
        Ok(Stripes {
            batch: run.count("batch"),
            workers: workers.min(inputs.len()),
            inputs,
            path,
        })
    }

    /// The rate loop: `batch` evaluations a batch, each the stripes that
    /// `stripe` starts (given w), all awaited, even after one failed; the
    /// lengths summed over the evaluations.
    async fn evaluate<T>(&self, mut rate: RateLoop, stripe: impl Fn(usize) -> T) -> (RateLoop, io::Result<i64>)
    where
        T: Future<Output = io::Result<i64>>,
    {
        let (mut length, mut failed) = (0, None);
        rate.start();
        loop {
            for _ in 0..self.batch {
                let started: Vec<_> = (0..self.workers).map(&stripe).collect();
                for stripe in started {
                    match stripe.await {
                        Ok(n) => length += n,
                        Err(err) => drop(failed.get_or_insert(err)), // any one: every case reads the same file
                    }
                }
            }
            if !rate.next_batch() {
                break;
            }
        }
        rate.stop_clocks();
        (rate, failed.map_or(Ok(length), Err))
    }

    /// Unit w's read_stripe, reading with `read`.
    fn stripe<R, F>(&self, read: R, w: usize) -> impl Future<Output = io::Result<i64>> + use<R, F>
    where
        R: Fn(Arc<Path>) -> F,
        F: Future<Output = io::Result<Vec<u8>>>,
    {
        read_stripe(read, Arc::clone(&self.path), Arc::clone(&self.inputs), w, self.workers)
    }

    /// After the clocks: reports the length and removes the file.
    fn report(self, run: &mut Run, length: Result<i64>) -> Result {
        fs::remove_file(&self.path)?;
        run.result("length", length?);
        Ok(())
    }
}

/// Unit w of n: the cases w, w + n, ..., each the file read whole by `read`
/// and extended by its draw; the sum of their lengths.
async fn read_stripe<R, F>(read: R, path: Arc<Path>, inputs: Arc<[i64]>, w: usize, n: usize) -> io::Result<i64>
where
    R: Fn(Arc<Path>) -> F,
    F: Future<Output = io::Result<Vec<u8>>>,
{
    let mut length = 0;
    for draw in inputs.iter().skip(w).step_by(n) {
        let mut content = read(Arc::clone(&path)).await?;
        content.extend(iter::repeat_n(b'x', *draw as usize));
        length += content.len() as i64;
    }
    Ok(length)
}

/// tokio::fs::read: a regular file is not pollable, so tokio runs the read
/// on its blocking pool (spawn_blocking) while the task awaits it. The
/// runtime is the process's lasting one, so that the pool's threads are
/// started once, not inside every run (shared::tasks::lasting). The kit's
/// loop runs on a task of its own, as in shared::invocation.
fn map_io_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let stripes = Arc::new(Stripes::of(run)?);
    let units = run.units();
    let rate = run.rate_loop();
    let length = tasks::lasting(run, flavor).map_err(Into::into).map(|runtime| {
        let looped = {
            let stripes = Arc::clone(&stripes);
            async move {
                let stripe = |w| tasks::join(tasks::spawn(&units, stripes.stripe(tokio::fs::read, w)));
                stripes.evaluate(rate, stripe).await
            }
        };
        let (rate, length) = tasks::on_a_task(runtime, looped);
        run.rate_done(rate);
        length
    });
    into_inner(stripes).report(run, length.and_then(|length| Ok(length?)))
}

/// smol::fs::read (async-fs): a regular file is not pollable, so async-fs
/// runs the read on the blocking crate's thread pool (smol::unblock) while
/// the task awaits it. The kit's loop runs on a task of its own
/// (smol_tasks::Runtime::block_on).
fn map_io_smol(run: &mut Run) -> Result {
    let stripes = Arc::new(Stripes::of(run)?);
    let rate = run.rate_loop();
    let length = smol_tasks::Runtime::new(run).map_err(Into::into).map(|runtime| {
        let tasks = runtime.tasks(run);
        let looped = {
            let stripes = Arc::clone(&stripes);
            async move {
                let stripe = |w| tasks.spawn(stripes.stripe(smol::fs::read, w));
                stripes.evaluate(rate, stripe).await
            }
        };
        let (rate, length) = runtime.block_on(looped);
        drop(runtime);
        run.rate_done(rate);
        length
    });
    into_inner(stripes).report(run, length.and_then(|length| Ok(length?)))
}

/// monoio::fs::read, whose open and read are io_uring operations: while one
/// unit waits for its operation's completion the others submit theirs. The
/// runtime is the run's own, on this thread.
fn map_io_monoio(run: &mut Run) -> Result {
    let stripes = Rc::new(Stripes::of(run)?);
    let units = run.units();
    let rate = run.rate_loop();
    let length = monoio_tasks::Runtime::new(run).map_err(Into::into).map(|mut runtime| {
        let looped = {
            let stripes = Rc::clone(&stripes);
            async move {
                let stripe = |w| monoio_tasks::spawn(&units, stripes.stripe(monoio::fs::read, w));
                stripes.evaluate(rate, stripe).await
            }
        };
        let (rate, length) = runtime.block_on(looped);
        drop(runtime);
        run.rate_done(rate);
        length
    });
    let stripes = Rc::into_inner(stripes).expect("the loop is done with the stripes");
    stripes.report(run, length.and_then(|length| Ok(length?)))
}

/// The stripes, once the loop that shared them is done.
fn into_inner(stripes: Arc<Stripes>) -> Stripes {
    Arc::into_inner(stripes).expect("the loop is done with the stripes")
}
