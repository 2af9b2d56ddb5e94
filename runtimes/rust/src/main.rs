//! The Rust kit's program: the kit (kit/) serves one trial of a workload
//! (workloads/, one file per workload, each with one function per
//! mechanism), with the code several workloads share in shared/.
mod kit;
mod shared;
mod workloads;

fn main() {
    // The monoio row's `requires` (runtime.toml): a machine without io_uring
    // makes the row unavailable, with the reason, instead of failing it.
    if std::env::args().nth(1).as_deref() == Some("--probe-io-uring") {
        shared::monoio::probe();
    }
    kit::main(workloads::REGISTRY)
}
