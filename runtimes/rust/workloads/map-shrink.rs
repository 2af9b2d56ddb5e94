// Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
// property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
// evaluate every case; the first failing one in case order (index f, value
// v) is shrunk by bisection between 0, which passes, and v, which fails:
// each round the units evaluate up to 8 evenly spaced candidates strictly
// above the lower bound; the smallest failing one becomes the upper bound
// and the largest passing one below it the lower, until they are adjacent.
// `first` adds up f, `minimal` the upper bounds it ends with (101 each), and
// `candidates` the candidates the units evaluated.
use crate::kit::{Mechanism, Result, Run};
use crate::shared::lcg;
use crate::shared::workermodes::{worker_modes, Apply, Worker};

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", |run| map_shrink(run, Worker::None)),
    ("thread", |run| map_shrink(run, Worker::Thread)),
    ("rayon", |run| map_shrink(run, Worker::Rayon)),
];

fn map_shrink(run: &mut Run, worker: Worker) -> Result {
    let inputs = lcg::draws(run.count("cases"), -1_000_000, 1_000_000);
    let holds = |x: &i64| *x <= 100;
    let (mut first, mut minimal, mut candidates, mut passed) = (0, 0, 0, false);
    worker_modes(run, worker, holds, |apply| {
        let Some(f) = apply(&inputs).iter().position(|held| !held) else {
            passed = true;
            return;
        };
        let (least, evaluated) = shrink(inputs[f], apply);
        first += f as i64;
        minimal += least;
        candidates += evaluated;
    })?;
    if passed {
        return Err("none of the cases fails the property".into());
    }
    run.result("first", first);
    run.result("minimal", minimal);
    run.result("candidates", candidates);
    Ok(())
}

/// Bisects between 0 and the failing value: the least failing value, and
/// the candidates evaluated.
fn shrink(mut failing: i64, apply: Apply<i64, bool>) -> (i64, i64) {
    let (mut passing, mut evaluated) = (0, 0);
    while failing - passing > 1 {
        let mut candidates = Vec::with_capacity(8);
        for k in 1..=8 {
            let candidate = passing + (failing - passing) * k / 9;
            if candidate != passing && !candidates.contains(&candidate) {
                candidates.push(candidate);
            }
        }
        let held = apply(&candidates);
        evaluated += held.len() as i64;
        let failed = held.iter().position(|held| !held).unwrap_or(candidates.len());
        if failed > 0 {
            passing = candidates[failed - 1];
        }
        if failed < candidates.len() {
            failing = candidates[failed];
        }
    }
    (failing, evaluated)
}

#[cfg(test)]
mod tests {
    /// The first failing draw of 100 (index 5, 666,497) shrinks to 101 in
    /// the 49 candidates src/concbench/series.py's bisection_candidates says.
    #[test]
    fn shrinks_as_the_catalogue_says() {
        let apply = |inputs: &[i64]| inputs.iter().map(|x| *x <= 100).collect();
        assert_eq!(super::shrink(666_497, &apply), (101, 49));
    }
}
