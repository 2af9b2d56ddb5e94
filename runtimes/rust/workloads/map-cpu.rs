// Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
// (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
// evaluates a case multiplies, so evaluating the wrong cases gives a wrong sum.
use std::hint::black_box;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::workermodes::{worker_modes, Worker};

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", |run| map_cpu(run, Worker::None)),
    ("thread", |run| map_cpu(run, Worker::Thread)),
    ("rayon", |run| map_cpu(run, Worker::Rayon)),
];

fn tarai(x: i64, y: i64, z: i64) -> i64 {
    if x <= y {
        return y;
    }
    tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y))
}

fn map_cpu(run: &mut Run, worker: Worker) -> Result {
    let inputs: Vec<i64> = (0..run.int("cases")).collect();
    // black_box: the arguments are constants, and a call the optimizer could
    // fold (or hoist out of the loop) would not make its 55,229 calls.
    let evaluate = |i: &i64| (i + 1) * tarai(black_box(9), black_box(4), black_box(0));
    let mut sum = 0;
    worker_modes(run, worker, evaluate, |apply| sum += apply(&inputs).iter().sum::<i64>())?;
    run.result("sum", sum);
    Ok(())
}
