// Waiting inside concurrent units (workloads/invoke-waiting.toml): as
// invoke, but each body yields to its scheduler once before it increments
// the counter: std::thread::yield_now (sched_yield) on a thread,
// tokio::task::yield_now on a task.
use crate::kit::Mechanism;
use crate::shared::invocation;
use crate::shared::tasks::Flavor;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| invocation::threads(run, true)),
    ("tokio", |run| invocation::tasks(run, Flavor::MultiThread, true)),
    ("tokio_ct", |run| invocation::tasks(run, Flavor::CurrentThread, true)),
    ("smol", |run| invocation::smol(run, true)),
    ("monoio", |run| invocation::monoio(run, true)),
];
