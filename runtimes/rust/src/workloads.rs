//! The workload files (workloads/<id>.rs, named as the harness finds them:
//! by the workload's id) and the registry of their mechanisms.
use crate::kit::Registry;

#[path = "../workloads/mutex-cpu.rs"]
mod mutex_cpu;
#[path = "../workloads/mutex-io.rs"]
mod mutex_io;
#[path = "../workloads/pipe.rs"]
mod pipe;
#[path = "../workloads/queue.rs"]
mod queue;
#[path = "../workloads/socketpair.rs"]
mod socketpair;
#[path = "../workloads/spawn.rs"]
mod spawn;

pub const REGISTRY: Registry = &[
    ("mutex-cpu", mutex_cpu::MECHANISMS),
    ("mutex-io", mutex_io::MECHANISMS),
    ("pipe", pipe::MECHANISMS),
    ("queue", queue::MECHANISMS),
    ("socketpair", socketpair::MECHANISMS),
    ("spawn", spawn::MECHANISMS),
];

#[cfg(test)]
mod tests {
    use std::fs;

    /// Every file in workloads/ is registered, once, under its own name, so
    /// that the harness (which plans from the files) and the kit agree.
    #[test]
    fn every_workload_file_is_registered_once() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/workloads");
        let mut files: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        let registered: Vec<String> = super::REGISTRY.iter().map(|(id, _)| format!("{id}.rs")).collect();
        assert_eq!(files, registered);
    }
}
