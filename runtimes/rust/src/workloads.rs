//! The workload files (workloads/<id>.rs, named as the harness finds them:
//! by the workload's id) and the registry of their mechanisms, which build.rs
//! writes from the files.
use crate::kit::Registry;

include!(concat!(env!("OUT_DIR"), "/workloads.rs"));
