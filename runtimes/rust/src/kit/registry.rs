//! The registry: each workload file (workloads/<id>.rs) lists its
//! mechanisms, by name, and build.rs lists the files (src/workloads.rs), so
//! that adding a workload touches its file alone.
use std::collections::BTreeMap;

use super::Run;

/// A mechanism does one run of a workload.
pub type Mechanism = fn(&mut Run) -> super::Result;

/// Every workload id with its mechanisms, by name.
pub type Registry = &'static [(&'static str, &'static [(&'static str, Mechanism)])];

/// The mechanism `name` of workload `id`, if the kit has one.
pub fn find(registry: Registry, id: &str, name: &str) -> Option<Mechanism> {
    let (_, mechanisms) = registry.iter().find(|(workload, _)| *workload == id)?;
    let (_, mechanism) = mechanisms.iter().find(|(mechanism, _)| *mechanism == name)?;
    Some(*mechanism)
}

/// The protocol's list answer: every workload with its mechanisms.
pub fn implemented(registry: Registry) -> BTreeMap<&'static str, Vec<&'static str>> {
    registry
        .iter()
        .map(|(id, mechanisms)| {
            let mut names: Vec<_> = mechanisms.iter().map(|(name, _)| *name).collect();
            names.sort_unstable();
            (*id, names)
        })
        .collect()
}
