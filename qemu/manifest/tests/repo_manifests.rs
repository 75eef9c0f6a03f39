//! Every manifest in the repository parses, and yields constants for each
//! of its tasks: a schema change that breaks a system is caught here
//! before any guest build.

use std::path::PathBuf;

fn manifests() -> Vec<PathBuf> {
    let qemu = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths: Vec<PathBuf> = ["systems", "tests"]
        .iter()
        .flat_map(|dir| {
            std::fs::read_dir(qemu.join(dir)).expect("qemu/systems and qemu/tests exist")
        })
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_repository_manifest_is_valid() {
    let paths = manifests();
    assert!(paths.iter().any(|p| p.ends_with("systems/default.toml")));
    for path in paths {
        let manifest = conflux_manifest::load(&path).unwrap_or_else(|error| panic!("{error}"));
        for task in &manifest.tasks {
            let source = conflux_manifest::task_constants(&manifest, &task.crate_name);
            assert!(
                !source.contains("compile_error!"),
                "{}: {source}",
                path.display()
            );
        }
    }
}
