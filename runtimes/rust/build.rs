// Writes the registry of the workload files, and records what the kit
// reports with every result (kit/protocol.rs): the rustc that compiled it,
// the cargo profile and the version of each crate the kit depends on, as
// Cargo.lock pins it.
use std::collections::HashMap;
use std::env;
use std::fmt::Write;
use std::fs;
use std::path::Path;
use std::process::Command;

fn main() {
    write_registry();
    record_versions();
}

/// The registry src/workloads.rs includes, written from the files in
/// workloads/ as the harness finds them, so that adding a workload is adding
/// its file: a module per workloads/<id>.rs, and REGISTRY, each id with its
/// file's MECHANISMS.
fn write_registry() {
    let folder = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("workloads");
    println!("cargo:rerun-if-changed={}", folder.display());
    let mut ids: Vec<String> = fs::read_dir(&folder)
        .expect("reading workloads/")
        .map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let id = name.strip_suffix(".rs");
            id.unwrap_or_else(|| panic!("workloads/{name}: workloads/ holds only <id>.rs files"))
                .to_string()
        })
        .collect();
    ids.sort();
    // A raw identifier, so that an id that is a keyword (yield) names a module too.
    let module = |id: &str| format!("r#{}", id.replace('-', "_"));
    let mut registry = String::new();
    for id in &ids {
        let path = folder.join(format!("{id}.rs"));
        writeln!(registry, "#[path = {:?}]\nmod {};", path.to_str().unwrap(), module(id)).unwrap();
    }
    registry.push_str("pub const REGISTRY: Registry = &[\n");
    for id in &ids {
        writeln!(registry, "    ({id:?}, {}::MECHANISMS),", module(id)).unwrap();
    }
    registry.push_str("];\n");
    let written = Path::new(&env::var("OUT_DIR").unwrap()).join("workloads.rs");
    fs::write(written, registry).expect("writing the registry");
}

/// The rustc, the profile and the crates, as environment variables the kit reads.
fn record_versions() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let said = Command::new(&rustc)
        .arg("--version")
        .output()
        .expect("running rustc --version");
    // "rustc 1.95.0 (59807616e 2026-04-14)": the version is the second word.
    let said = String::from_utf8(said.stdout).expect("rustc's version is UTF-8");
    let version = said
        .split_whitespace()
        .nth(1)
        .expect("rustc --version names its version");
    println!("cargo:rustc-env=CONCBENCH_RUSTC_VERSION={version}");
    println!("cargo:rustc-env=CONCBENCH_PROFILE={}", env::var("PROFILE").unwrap());
    println!("cargo:rustc-env=CONCBENCH_OPT_LEVEL={}", env::var("OPT_LEVEL").unwrap());
    let lock = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.lock");
    let lock = fs::read_to_string(&lock).expect("reading Cargo.lock");
    println!(
        "cargo:rustc-env=CONCBENCH_CRATES={}",
        crates(&lock, &env::var("CARGO_PKG_NAME").unwrap())
    );
}

/// The kit's own dependencies, "name version" each, comma-separated: the
/// `dependencies` of its package in Cargo.lock, with each one's version
/// (Cargo.lock names a dependency "name version" where it holds two versions).
fn crates(lock: &str, package: &str) -> String {
    let mut versions = HashMap::new();
    let mut direct = Vec::new();
    for entry in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            entry
                .lines()
                .find_map(|line| line.strip_prefix(key)?.strip_prefix(" = "))
                .map(|value| value.trim_matches('"').to_string())
        };
        let (name, version) = (field("name").unwrap(), field("version").unwrap());
        if name == package {
            if let Some(list) = entry.split("dependencies = [").nth(1) {
                let list = list.split(']').next().unwrap();
                direct = list
                    .split(',')
                    .map(|item| item.trim().trim_matches('"').to_string())
                    .filter(|item| !item.is_empty())
                    .collect();
            }
        }
        versions.entry(name).or_insert(version);
    }
    let named: Vec<String> = direct
        .iter()
        .map(|dependency| match dependency.split_once(' ') {
            Some(_) => dependency.clone(),
            None => format!("{dependency} {}", versions[dependency]),
        })
        .collect();
    named.join(",")
}
