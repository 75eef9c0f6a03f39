//! Where things are: the workspace root, system manifests, build outputs.
//!
//! The root is where the runner was built from (two levels above this
//! crate). A checkout copied with its `target/` would otherwise run the
//! original tree's runner, which builds, tests and writes new apps in the
//! original: [`check_root`] refuses to act unless the tree the runner is
//! run from is the tree it was built from.

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the runner runs from its source tree")
}

/// Fails, saying what to do, unless the current directory is inside the
/// tree this runner was built from.
pub fn check_root() -> Result<(), String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    check_root_from(&root(), &cwd)
}

/// [`check_root`] for a runner built in `built` and run from `cwd`.
fn check_root_from(built: &Path, cwd: &Path) -> Result<(), String> {
    let Some(here) = cwd.ancestors().find(|dir| is_checkout(dir)) else {
        return Err(format!(
            "{} is not inside a Conflux checkout (no folder above it holds Cargo.toml and qemu/runner/); run the runner from the checkout you mean to build, e.g. `cd {} && cargo make test NAME`",
            cwd.display(),
            built.display()
        ));
    };
    let here = here.canonicalize().unwrap_or_else(|_| here.to_path_buf());
    if here == built {
        return Ok(());
    }
    Err(format!(
        "this runner was built from {} but is run from the checkout {}: it would build, test and write into {} instead (a copied checkout keeps the original's target/, with the runner built there); in {} run `cargo clean -p conflux-runner` (or delete its target/ folder) and run again",
        built.display(),
        here.display(),
        built.display(),
        here.display()
    ))
}

/// Whether `dir` is the root of a Conflux checkout.
fn is_checkout(dir: &Path) -> bool {
    dir.join("Cargo.toml").is_file() && dir.join("qemu/runner/Cargo.toml").is_file()
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

    /// A fake checkout (Cargo.toml and qemu/runner/Cargo.toml) in a
    /// fresh folder under the system's temporary directory.
    fn checkout(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("conflux-root-{}-{name}", std::process::id()));
        std::fs::create_dir_all(dir.join("qemu/runner/src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), "").unwrap();
        std::fs::write(dir.join("qemu/runner/Cargo.toml"), "").unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn the_runner_acts_on_the_tree_it_was_built_from() {
        let tree = checkout("own");
        assert_eq!(check_root_from(&tree, &tree), Ok(()));
        assert_eq!(
            check_root_from(&tree, &tree.join("qemu/runner/src")),
            Ok(())
        );
        std::fs::remove_dir_all(&tree).unwrap();
    }

    #[test]
    fn a_copied_checkout_is_refused_with_what_to_do() {
        let (original, copy) = (checkout("original"), checkout("copy"));
        let error = check_root_from(&original, &copy.join("qemu")).unwrap_err();
        assert_eq!(
            error,
            format!(
                "this runner was built from {o} but is run from the checkout {c}: it would build, test and write into {o} instead (a copied checkout keeps the original's target/, with the runner built there); in {c} run `cargo clean -p conflux-runner` (or delete its target/ folder) and run again",
                o = original.display(),
                c = copy.display()
            )
        );
        std::fs::remove_dir_all(&original).unwrap();
        std::fs::remove_dir_all(&copy).unwrap();
    }

    #[test]
    fn a_folder_outside_any_checkout_is_refused() {
        let error = check_root_from(Path::new("/work/conflux"), Path::new("/")).unwrap_err();
        assert_eq!(error, "/ is not inside a Conflux checkout (no folder above it holds Cargo.toml and qemu/runner/); run the runner from the checkout you mean to build, e.g. `cd /work/conflux && cargo make test NAME`");
    }

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
