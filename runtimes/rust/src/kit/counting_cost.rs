//! What counting units costs where it weighs most: a task started and
//! awaited per operation (invoke's tokio cell in mode await), its body with
//! and without Units::start and finish. A benchmark, not a test (it asserts
//! nothing); mod.rs and docs/protocol.md quote it:
//!
//!     cd runtimes/rust && cargo test --release --locked --target-dir build \
//!         -- --ignored --nocapture counting_cost
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use super::Units;

const OPERATIONS: u32 = 100_000;
const ROUNDS: usize = 10; // bare and counted alternate, so that drift hits both

#[test]
#[ignore = "a benchmark: run it with --ignored --nocapture"]
fn counting_cost() {
    let runtime = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    let (mut bare, mut counted) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        bare.push(runtime.block_on(nanoseconds_per_task(false)));
        counted.push(runtime.block_on(nanoseconds_per_task(true)));
    }
    let (bare, counted) = (median(bare), median(counted));
    println!(
        "a task started and awaited: bare {bare:.0} ns, counted {counted:.0} ns ({:+.0} ns, {:+.1}%), medians of {ROUNDS}",
        counted - bare,
        100.0 * (counted / bare - 1.0)
    );
}

/// The loop runs on a task of its own, as invoke's does.
async fn nanoseconds_per_task(counts: bool) -> f64 {
    let looped = tokio::spawn(async move {
        let (units, count) = (Arc::new(Units::default()), Arc::new(AtomicI64::new(0)));
        let began = Instant::now();
        for _ in 0..OPERATIONS {
            // Counting holds the run's Units in every task (shared::counted::unit).
            let units = counts.then(|| Arc::clone(&units));
            let count = Arc::clone(&count);
            tokio::spawn(async move {
                if let Some(units) = &units {
                    units.start();
                }
                count.fetch_add(1, Relaxed);
                if let Some(units) = &units {
                    units.finish();
                }
            })
            .await
            .unwrap();
        }
        began.elapsed().as_nanos() as f64 / f64::from(OPERATIONS)
    });
    looped.await.unwrap()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
