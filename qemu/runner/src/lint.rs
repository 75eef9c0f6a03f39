//! `conflux lint`: rustfmt and clippy (warnings denied) over every crate.
//!
//! Host crates are checked as usual. Guest crates are checked for the guest
//! target; a task crate's constants come from a manifest, so each system's
//! tasks are checked with that system's manifest (cargo re-checks only the
//! crates whose generated constants changed).

use crate::workspace;
use std::path::Path;
use std::process::Command;

/// Runs cargo with `args`; on failure the error says `fix` (what to do).
fn cargo(args: &[&str], manifest: Option<&Path>, fix: &str) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace::root()).args(args);
    if let Some(m) = manifest {
        cmd.env(conflux_manifest::MANIFEST_ENV, m);
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed: {fix}", args.join(" ")))
    }
}

/// What to do when rustfmt finds unformatted code: the diff above is what
/// `cargo fmt --all` would change.
const FMT_FIX: &str =
    "some files are not formatted as rustfmt wants (diff above): run `cargo fmt --all`, then lint again";
/// What to do about clippy's findings.
const CLIPPY_FIX: &str = "fix the findings above";

const GUEST: [&str; 5] = [
    "--quiet",
    "--release",
    "--target",
    "x86_64-unknown-none",
    "-p",
];

/// Runs every check; stops at the first that fails.
pub fn run() -> Result<(), String> {
    cargo(&["fmt", "--all", "--check"], None, FMT_FIX)?;
    cargo(
        &["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"],
        None,
        CLIPPY_FIX,
    )?;
    let mut kernel = vec!["clippy"];
    kernel.extend(GUEST);
    kernel.extend([
        "conflux-kernel",
        "-p",
        "conflux-userlib",
        // The file system's crate is a library the file server will link:
        // no manifest names it, so it is checked for the guest here.
        "-p",
        "conflux-ext4",
        "--",
        "-D",
        "warnings",
    ]);
    cargo(&kernel, None, CLIPPY_FIX)?;
    let systems = workspace::manifests_in(&workspace::systems_dir());
    for path in systems
        .iter()
        .chain(&workspace::manifests_in(&workspace::tests_dir()))
    {
        let m = conflux_manifest::load(path).map_err(|e| e.to_string())?;
        let mut args = vec!["clippy"];
        args.extend(&GUEST[..4]);
        for t in &m.tasks {
            args.extend(["-p", t.crate_name.as_str()]);
        }
        args.extend(["--", "-D", "warnings"]);
        cargo(&args, Some(path), CLIPPY_FIX)?;
    }
    println!("lint: rustfmt and clippy clean");
    Ok(())
}
