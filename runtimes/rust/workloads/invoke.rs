// Mere invocation (workloads/invoke.toml): one operation starts a unit whose
// body increments a counter and gets its result, in the way `mode` says;
// the plain call (none) is the baseline.
use std::hint::black_box;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::invocation;
use crate::shared::tasks::Flavor;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("none", invoke_none),
    ("thread", |run| invocation::threads(run, false)),
    ("tokio", |run| invocation::tasks(run, Flavor::MultiThread, false)),
    ("tokio_ct", |run| invocation::tasks(run, Flavor::CurrentThread, false)),
    ("smol", |run| invocation::smol(run, false)),
    ("monoio", |run| invocation::monoio(run, false)),
];

fn increment(count: &mut i64) {
    *count += 1;
}

/// The body called in place, the same call in every mode. black_box hides
/// the function pointer from the optimizer, so that each operation is an
/// indirect call: it can neither inline the body nor fold the loop into
/// one addition.
fn invoke_none(run: &mut Run) -> Result {
    let batch = run.count("batch");
    let call: fn(&mut i64) = black_box(increment);
    let mut count = 0;
    run.rate(|| {
        for _ in 0..batch {
            black_box(call)(&mut count);
        }
    });
    run.result("count", count);
    Ok(())
}
