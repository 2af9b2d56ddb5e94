// Mere waiting: await writable (workloads/await-writable.toml): one
// operation awaits writability of one of `batch` empty pipes
// (shared::readiness).
use crate::kit::Mechanism;
use crate::shared::readiness::{self, Ready};
use crate::shared::tasks::Flavor;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| readiness::threads(run, Ready::Writable)),
    ("tokio", |run| {
        readiness::tasks(run, Flavor::MultiThread, Ready::Writable)
    }),
    ("tokio_ct", |run| {
        readiness::tasks(run, Flavor::CurrentThread, Ready::Writable)
    }),
    ("smol", |run| readiness::smol(run, Ready::Writable)),
];
