// Mere waiting: await readable (workloads/await-readable.toml): one
// operation awaits readability of one of `batch` pipes, each holding a byte
// that is never read (shared::readiness).
use crate::kit::Mechanism;
use crate::shared::readiness::{self, Ready};
use crate::shared::tasks::Flavor;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| readiness::threads(run, Ready::Readable)),
    ("tokio", |run| {
        readiness::tasks(run, Flavor::MultiThread, Ready::Readable)
    }),
    ("tokio_ct", |run| {
        readiness::tasks(run, Flavor::CurrentThread, Ready::Readable)
    }),
    ("smol", |run| readiness::smol(run, Ready::Readable)),
];
