// Worker modes: trivial work (workloads/map-trivial.toml): each case takes
// an integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1;
// the result is the sum.
use crate::kit::{Mechanism, Result, Run};
use crate::shared::lcg;
use crate::shared::workermodes::{worker_modes, Worker};

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", |run| map_trivial(run, Worker::None)),
    ("thread", |run| map_trivial(run, Worker::Thread)),
    ("rayon", |run| map_trivial(run, Worker::Rayon)),
];

fn map_trivial(run: &mut Run, worker: Worker) -> Result {
    let inputs = lcg::draws(run.count("cases"), -1_000_000, 1_000_000);
    let mut sum = 0;
    worker_modes(
        run,
        worker,
        |x| x + 1,
        |apply| sum += apply(&inputs).iter().sum::<i64>(),
    )?;
    run.result("sum", sum);
    Ok(())
}
