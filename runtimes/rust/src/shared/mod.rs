//! The code several workloads share, so that every file in workloads/ is a
//! workload.
pub mod counted;
pub mod executor;
pub mod invocation;
pub mod lcg;
pub mod lock;
pub mod monoio;
pub mod readiness;
pub mod smol;
pub mod stream;
pub mod tasks;
pub mod threads;
pub mod workermodes;
