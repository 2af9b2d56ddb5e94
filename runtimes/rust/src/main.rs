//! The Rust kit's program: the kit (kit/) serves one trial of a workload
//! (workloads/, one file per workload, each with one function per
//! mechanism), with the code several workloads share in shared/.
mod kit;
mod shared;
mod workloads;

fn main() {
    kit::main(workloads::REGISTRY)
}
