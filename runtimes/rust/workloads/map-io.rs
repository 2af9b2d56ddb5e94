// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
use std::fs;
use std::iter;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::lcg;
use crate::shared::workermodes::{worker_modes, Worker};

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", |run| map_io(run, Worker::None)),
    ("thread", |run| map_io(run, Worker::Thread)),
    ("rayon", |run| map_io(run, Worker::Rayon)),
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
