//! The concbench Rust kit: what a workload file sees (run.rs), the registry
//! (registry.rs) and the trial protocol (protocol.rs).
//!
//! A mechanism is a `fn(&mut Run) -> Result`. It reads its parameters
//! (`count`, `int`, `float`, `choice`), does the whole job of one run (starts its units, awaits
//! every one of them, closes what it opened), reports the result (`result`)
//! and the workload's evidence (`evidence`), and returns `Ok(())`. The kit
//! times the whole call, unless the mechanism hands it its work with
//! `timed`: then only that call is timed, and what the mechanism does before
//! (make the files the work writes into, compile a pattern, build a tokio
//! runtime) and after (read the files' sizes, remove them, shut the runtime
//! down) is untimed, the protocol's "untimed steps around a run".
//!
//! Rate workloads (docs/protocol.md, "Rate workloads"): the mechanism sets
//! up, then hands the kit one batch of `batch` operations with `rate`, which
//! starts the clocks and calls it until `seconds` have passed, reading the
//! clock once a batch; the mechanism then, still timed, awaits what is
//! outstanding and returns, or calls `stop_clocks` before its untimed
//! clean-up. A batch that awaits runs in a `RateLoop` (`rate_loop`), which
//! owns its clocks, so that it can run on a task of the mechanism's runtime,
//! and goes back to the run with `rate_done`. The answer's `ops` is batches
//! x `batch`; `gc` is ignored (Rust has no collector).
//!
//! Servers (echo): the mechanism opens its listening socket before the
//! clocks, then says where it listens (`listening`, a line on stdout before
//! the answer, which the harness hands to its load generator), then hands
//! the kit its timed work, which serves the generator's connections.
//!
//! Units and peak_live (docs/protocol.md, "Evidence"): every unit calls
//! `Units::start` as the first act of its body and `Units::finish` as its
//! last (shared::threads::spawn wraps a thread's body so, and
//! shared::counted::unit a task's). Start is three atomic read-modify-writes
//! on counters the run's units share (started, live, and the peak by
//! fetch_max), touched only as a unit starts and ends, never inside its
//! work; a thread's or a task's start and exit cost more than that. Where
//! it weighs most, a tokio task started and awaited per operation, counting
//! adds 20 to 38 ns (6 to 11%) to the task's 340 ns (counting_cost.rs). A mechanism that starts no unit calls neither.
//!
//! Evidence: each unit counts its events (a try_lock that failed, a
//! try_send that found the channel full) in a variable of its own and
//! returns the count; the mechanism sums them after it has awaited its
//! units and reports the sum.
#[cfg(test)]
mod counting_cost;
mod protocol;
mod registry;
mod run;

pub use protocol::main;
pub use registry::{Mechanism, Registry};
pub use run::{Error, RateLoop, Result, Run, Units};
