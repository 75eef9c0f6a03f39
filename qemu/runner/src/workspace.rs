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
    let found: Vec<PathBuf> = [systems_dir(), tests_dir()]
        .into_iter()
        .map(|dir| dir.join(format!("{system}.toml")))
        .filter(|p| p.is_file())
        .collect();
    match found.as_slice() {
        [one] => return Ok(one.clone()),
        [a, b] => return Err(ambiguous(system, a, b)),
        _ => {}
    }
    let mut known: Vec<String> = manifests_in(&systems_dir())
        .into_iter()
        .chain(manifests_in(&tests_dir()))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    known.sort();
    Err(format!("no system named `{system}`: looked for qemu/systems/{system}.toml and qemu/tests/{system}.toml; known systems: {}", known.join(", ")))
}

/// The error for a system name that both folders hold.
fn ambiguous(system: &str, a: &Path, b: &Path) -> String {
    format!(
        "the system name `{system}` is ambiguous: both {} and {} exist; rename one of them (a test system can extend the other, see `extends` in qemu/manifest/src/lib.rs)",
        a.display(),
        b.display()
    )
}

/// Fails if a name is both a system (qemu/systems/) and a test
/// (qemu/tests/): `cargo make run NAME` could not tell which is meant.
pub fn check_unique_names() -> Result<(), String> {
    first_clash(&manifests_in(&systems_dir()), &manifests_in(&tests_dir()))
}

/// The first file name found among both `systems` and `tests`, as an error.
fn first_clash(systems: &[PathBuf], tests: &[PathBuf]) -> Result<(), String> {
    for test in tests {
        if let Some(system) = systems.iter().find(|s| s.file_name() == test.file_name()) {
            let name = test.file_stem().unwrap_or_default().to_string_lossy();
            return Err(ambiguous(&name, system, test));
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_in_both_folders_is_an_error_naming_both_files() {
        let systems = [
            PathBuf::from("qemu/systems/a.toml"),
            PathBuf::from("qemu/systems/b.toml"),
        ];
        let tests = [
            PathBuf::from("qemu/tests/c.toml"),
            PathBuf::from("qemu/tests/b.toml"),
        ];
        assert_eq!(
            first_clash(&systems, &tests).unwrap_err(),
            "the system name `b` is ambiguous: both qemu/systems/b.toml and qemu/tests/b.toml exist; rename one of them (a test system can extend the other, see `extends` in qemu/manifest/src/lib.rs)"
        );
        assert_eq!(first_clash(&systems, &tests[..1]), Ok(()));
    }

    #[test]
    fn the_workspace_has_no_ambiguous_names() {
        assert_eq!(check_unique_names(), Ok(()));
    }
}
