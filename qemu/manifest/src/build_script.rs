//! The body of every task's `build.rs`.
//!
//! A task crate's build script is the one line
//! `fn main() { conflux_manifest::build_script_main() }`. It reads the
//! manifest named by `CONFLUX_MANIFEST` (set by the runner and by
//! `cargo make`) and writes the task's constants to
//! `$OUT_DIR/task_consts.rs`. Without the variable the task cannot know its
//! system, so the generated file is a `compile_error!` that says how to
//! build instead.

use std::env;
use std::path::{Path, PathBuf};

use crate::codegen::{header, task_constants};

/// The environment variable that names the system's manifest.
pub const MANIFEST_ENV: &str = "CONFLUX_MANIFEST";
/// The file written in `OUT_DIR`.
pub const CONSTANTS_FILE: &str = "task_consts.rs";

/// Writes `$OUT_DIR/task_consts.rs` for the crate being built.
///
/// # Panics
///
/// If the manifest fails to load or validate (with the error's message,
/// which cargo shows), if `CONFLUX_MANIFEST` is a relative path, or if cargo
/// did not set `OUT_DIR` and `CARGO_PKG_NAME`.
pub fn build_script_main() {
    println!("cargo:rerun-if-env-changed={MANIFEST_ENV}");
    let crate_name =
        env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME for build scripts");
    let out_dir =
        PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let manifest = env::var_os(MANIFEST_ENV).map(PathBuf::from);
    if let Some(path) = &manifest {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let (source, sources) = constants_source(manifest.as_deref(), &crate_name)
        .unwrap_or_else(|message| panic!("{message}"));
    // The base of a manifest that extends one counts too.
    for path in sources.iter().skip(1) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let file = out_dir.join(CONSTANTS_FILE);
    std::fs::write(&file, source)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", file.display()));
}

/// The generated file for `crate_name`, given the manifest path (if any),
/// and the files the manifest was made from; an error message when the
/// manifest cannot be used.
fn constants_source(
    manifest: Option<&Path>,
    crate_name: &str,
) -> Result<(String, Vec<PathBuf>), String> {
    let Some(path) = manifest else {
        return Ok((unset(crate_name), Vec::new()));
    };
    if path.is_relative() {
        return Err(format!(
            "{MANIFEST_ENV} is the relative path `{}`; cargo runs build scripts in each package's own directory, so set it to an absolute path",
            path.display()
        ));
    }
    let (manifest, sources) = crate::load_with_sources(path).map_err(|error| error.to_string())?;
    Ok((task_constants(&manifest, crate_name), sources))
}

/// Whether the task of crate `me` runs on another CPU than the task of
/// crate `peer` — with `peer` `None`, than any other task — in `manifest`;
/// false when either is not in it. A server polls for work, and a client
/// for answers, only when its peer can run meanwhile: on a CPU of its own.
pub fn runs_apart(manifest: &crate::Manifest, me: &str, peer: Option<&str>) -> bool {
    let cpu_of = |name: &str| {
        manifest
            .tasks
            .iter()
            .find(|t| t.crate_name == name)
            .map(|t| t.cpu)
    };
    let Some(mine) = cpu_of(me) else {
        return false;
    };
    match peer {
        Some(peer) => cpu_of(peer).is_some_and(|theirs| theirs != mine),
        None => manifest
            .tasks
            .iter()
            .any(|t| t.crate_name != me && t.cpu != mine),
    }
}

/// For a task's build script, after [`build_script_main`]: declares
/// `cfg(name)` and sets it when [`runs_apart`] holds for the manifest
/// being built (never without one).
pub fn cfg_when_apart(name: &str, me: &str, peer: Option<&str>) {
    println!("cargo::rustc-check-cfg=cfg({name})");
    let Some(path) = env::var_os(MANIFEST_ENV) else {
        return;
    };
    // build_script_main has loaded (and checked) the manifest already.
    if crate::load(Path::new(&path)).is_ok_and(|m| runs_apart(&m, me, peer)) {
        println!("cargo::rustc-cfg={name}");
    }
}

fn unset(crate_name: &str) -> String {
    let message = format!(
        "{MANIFEST_ENV} is not set, so task `{crate_name}` does not know which system it is built for; build tasks through `cargo make run` (or the qemu runner), which sets it, or set {MANIFEST_ENV} to the absolute path of a system manifest"
    );
    format!("{}compile_error!({message:?});\n", header("no manifest"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(name: &str) -> crate::Manifest {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../systems/{name}.toml"));
        crate::load(&path).expect("the system's manifest loads")
    }

    #[test]
    fn a_task_runs_apart_only_from_tasks_on_another_cpu() {
        let one = system("ringbench");
        assert!(!runs_apart(&one, "fs", None));
        let two = system("ringbench-2cpu");
        assert!(runs_apart(&two, "fs", None));
        assert!(runs_apart(&two, "ringbench", Some("fs")));
        let httpd = system("httpd-ring-2cpu");
        assert!(runs_apart(&httpd, "httpd", Some("net")));
        assert!(!runs_apart(&httpd, "httpd", Some("fs")));
        // A task the manifest does not have is apart from nothing.
        assert!(!runs_apart(&two, "no-such-crate", None));
        assert!(!runs_apart(&two, "fs", Some("no-such-crate")));
    }

    #[test]
    fn unset_manifest_gives_a_compile_error() {
        let (source, _) = constants_source(None, "hello").unwrap();
        assert!(source.starts_with("// Generated by conflux-manifest from no manifest.\n"));
        assert!(source.contains(
            "compile_error!(\"CONFLUX_MANIFEST is not set, so task `hello` does not know which system it is built for; build tasks through `cargo make run`"
        ));
    }

    #[test]
    fn relative_manifest_path_is_refused() {
        let error = constants_source(Some(Path::new("systems/default.toml")), "hello").unwrap_err();
        assert_eq!(
            error,
            "CONFLUX_MANIFEST is the relative path `systems/default.toml`; cargo runs build scripts in each package's own directory, so set it to an absolute path"
        );
    }

    #[test]
    fn unreadable_manifest_reports_the_path() {
        let error =
            constants_source(Some(Path::new("/nonexistent/system.toml")), "hello").unwrap_err();
        assert!(
            error.starts_with("/nonexistent/system.toml: cannot read the manifest: "),
            "{error}"
        );
    }
}
