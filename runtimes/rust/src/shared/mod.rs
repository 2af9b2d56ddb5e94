//! The code several workloads share, so that every file in workloads/ is a
//! workload.
pub mod lock;
pub mod stream;
pub mod tasks;
pub mod threads;
