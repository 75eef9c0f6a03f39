//! Where things are: the workspace root, system manifests, build outputs.

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the runner runs from its source tree")
}

/// Folder of interactive and benchmark systems.
pub fn systems_dir() -> PathBuf {
    root().join("qemu/systems")
}

/// Folder of in-guest test systems.
pub fn tests_dir() -> PathBuf {
    root().join("qemu/tests")
}

/// Where guest binaries land.
pub fn guest_bin_dir() -> PathBuf {
    root().join("target/x86_64-unknown-none/release")
}

/// Resolves a system name or a manifest path to a manifest file.
pub fn resolve_system(system: &str) -> Result<PathBuf, String> {
    let direct = PathBuf::from(system);
    if system.ends_with(".toml") && direct.is_file() {
        return direct.canonicalize().map_err(|e| format!("{system}: {e}"));
    }
    for dir in [systems_dir(), tests_dir()] {
        let p = dir.join(format!("{system}.toml"));
        if p.is_file() {
            return Ok(p);
        }
    }
    let mut known: Vec<String> = manifests_in(&systems_dir())
        .into_iter()
        .chain(manifests_in(&tests_dir()))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    known.sort();
    Err(format!("no system named `{system}`: looked for qemu/systems/{system}.toml and qemu/tests/{system}.toml; known systems: {}", known.join(", ")))
}

/// Every `*.toml` in `dir`, sorted.
pub fn manifests_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
