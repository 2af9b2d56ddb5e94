//! The workload files (workloads/<id>.rs, named as the harness finds them:
//! by the workload's id) and the registry of their mechanisms.
use crate::kit::Registry;

#[path = "../workloads/await-readable.rs"]
mod await_readable;
#[path = "../workloads/await-writable.rs"]
mod await_writable;
#[path = "../workloads/future.rs"]
mod future;
#[path = "../workloads/invoke.rs"]
mod invoke;
#[path = "../workloads/invoke-waiting.rs"]
mod invoke_waiting;
#[path = "../workloads/latch.rs"]
mod latch;
#[path = "../workloads/mailbox.rs"]
mod mailbox;
#[path = "../workloads/map-cpu.rs"]
mod map_cpu;
#[path = "../workloads/map-io.rs"]
mod map_io;
#[path = "../workloads/map-shrink.rs"]
mod map_shrink;
#[path = "../workloads/map-trivial.rs"]
mod map_trivial;
#[path = "../workloads/mutex-cpu.rs"]
mod mutex_cpu;
#[path = "../workloads/mutex-io.rs"]
mod mutex_io;
#[path = "../workloads/pipe.rs"]
mod pipe;
#[path = "../workloads/pool.rs"]
mod pool;
#[path = "../workloads/queue.rs"]
mod queue;
#[path = "../workloads/ring.rs"]
mod ring;
#[path = "../workloads/socketpair.rs"]
mod socketpair;
#[path = "../workloads/spawn.rs"]
mod spawn;
#[path = "../workloads/yield.rs"]
mod r#yield;

pub const REGISTRY: Registry = &[
    ("await-readable", await_readable::MECHANISMS),
    ("await-writable", await_writable::MECHANISMS),
    ("future", future::MECHANISMS),
    ("invoke-waiting", invoke_waiting::MECHANISMS),
    ("invoke", invoke::MECHANISMS),
    ("latch", latch::MECHANISMS),
    ("mailbox", mailbox::MECHANISMS),
    ("map-cpu", map_cpu::MECHANISMS),
    ("map-io", map_io::MECHANISMS),
    ("map-shrink", map_shrink::MECHANISMS),
    ("map-trivial", map_trivial::MECHANISMS),
    ("mutex-cpu", mutex_cpu::MECHANISMS),
    ("mutex-io", mutex_io::MECHANISMS),
    ("pipe", pipe::MECHANISMS),
    ("pool", pool::MECHANISMS),
    ("queue", queue::MECHANISMS),
    ("ring", ring::MECHANISMS),
    ("socketpair", socketpair::MECHANISMS),
    ("spawn", spawn::MECHANISMS),
    ("yield", r#yield::MECHANISMS),
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
