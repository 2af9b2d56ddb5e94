// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
use std::fs;
use std::io;
use std::iter;
use std::path::Path;
use std::rc::Rc;
use std::thread;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::lcg;
use crate::shared::monoio as monoio_tasks;
use crate::shared::workermodes::{worker_modes, Worker};

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", |run| map_io(run, Worker::None)),
    ("thread", |run| map_io(run, Worker::Thread)),
    ("rayon", |run| map_io(run, Worker::Rayon)),
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

/// monoio's worker mode: `workers` tasks made for each evaluation (0: one per
/// core, as the thread row's), no more than there are cases; unit w of n
/// evaluates the cases w, w + n, ..., reading the file with monoio::fs::read,
/// whose open and read are io_uring operations: while one unit waits for
/// its operation's completion the others submit theirs. Each unit sums its
/// cases' lengths and the evaluation the units' sums (a sum needs no order).
fn map_io_monoio(run: &mut Run) -> Result {
    let path = run.scratch().join("map-io");
    fs::write(&path, vec![b'x'; run.count("file_size")])?;
    let length = evaluations_monoio(run, Rc::from(path.as_path()));
    fs::remove_file(&path)?;
    run.result("length", length?);
    Ok(())
}

/// The rate loop, on a runtime of its own: the lengths summed over its
/// evaluations. Every unit is awaited, even after one failed.
fn evaluations_monoio(run: &mut Run, path: Rc<Path>) -> Result<i64> {
    let (batch, inputs) = (
        run.count("batch"),
        Rc::<[i64]>::from(lcg::draws(run.count("cases"), 0, 10)),
    );
    let workers = match run.count("workers") {
        0 => thread::available_parallelism()?.get(),
        workers => workers,
    }
    .min(inputs.len());
    let units = run.units();
    let mut rate = run.rate_loop();
    let mut runtime = monoio_tasks::Runtime::new(run)?;
    let (rate, length, failed) = runtime.block_on(async move {
        let (mut length, mut failed) = (0, None);
        rate.start();
        loop {
            for _ in 0..batch {
                let started: Vec<_> = (0..workers)
                    .map(|w| monoio_tasks::spawn(&units, read_stripe(Rc::clone(&path), Rc::clone(&inputs), w, workers)))
                    .collect();
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
        (rate, length, failed)
    });
    drop(runtime);
    run.rate_done(rate);
    match failed {
        Some(err) => Err(err.into()),
        None => Ok(length),
    }
}

/// Unit w of n: the cases w, w + n, ..., each the file read whole and
/// extended by its draw; the sum of their lengths.
async fn read_stripe(path: Rc<Path>, inputs: Rc<[i64]>, w: usize, n: usize) -> io::Result<i64> {
    let mut length = 0;
    for draw in inputs.iter().skip(w).step_by(n) {
        let mut content = monoio::fs::read(&*path).await?;
        content.extend(iter::repeat_n(b'x', *draw as usize));
        length += content.len() as i64;
    }
    Ok(length)
}
