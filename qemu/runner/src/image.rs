//! Manifest → boot image: builds the kernel and the system's tasks, then
//! lays the tasks, objects and capabilities out (see `lower`) in the boot
//! image the kernel reads as its initrd.

use crate::{build_hints, loadable, lower, task_config, workspace};
use conflux_bootimg::encode;
use conflux_manifest::Manifest;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How much of the build to show.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// One line naming what is built, then cargo's own `Compiling ...`
    /// lines: a cold build takes minutes, and silence looks like a hang.
    Show,
    /// Only errors (the test suite builds dozens of systems).
    Quiet,
}

/// A built system, ready to boot.
pub struct Built {
    pub manifest: Manifest,
    pub kernel: PathBuf,
    pub image: PathBuf,
    /// Rebuild a disk made from a folder before booting (see `disks`).
    pub fresh_disk: bool,
    /// The network backend the caller asks for (`run --net`, a
    /// benchmark); `None` leaves it to `CONFLUX_NET` and the default
    /// (`netback::choose`).
    pub network: Option<conflux_manifest::Network>,
}

/// Builds the system named `system` (see [`workspace::resolve_system`]).
pub fn build_named(system: &str) -> Result<Built, String> {
    build(&workspace::resolve_system(system)?, Progress::Show)
}

/// Compiles the kernel and the manifest's task crates for the guest.
///
/// Each task's `build.rs` reads the manifest named by `CONFLUX_MANIFEST`
/// and generates that task's constants, so the manifest is the only place
/// any of those numbers are written.
fn cargo_build(manifest_path: &Path, m: &Manifest, progress: Progress) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    let mut crates: Vec<&str> = m.tasks.iter().map(|t| t.crate_name.as_str()).collect();
    // A crate that runs as several tasks is built once.
    crates.sort_unstable();
    crates.dedup();
    cmd.current_dir(workspace::root()).arg("build");
    if progress == Progress::Show {
        eprintln!(
            "conflux: building system `{}` for x86_64-unknown-none: the kernel and {} task crates ({})",
            m.system.name,
            crates.len(),
            crates.join(", ")
        );
    } else {
        cmd.arg("--quiet");
    }
    // Cargo's stderr is read here (for `build_hints`), so it is no
    // terminal to cargo: keep its colours, and its progress bar when
    // progress is shown, when ours is one.
    if std::io::stderr().is_terminal() {
        cmd.arg("--color=always");
        if progress == Progress::Show {
            cmd.env("CARGO_TERM_PROGRESS_WHEN", "always")
                .env("CARGO_TERM_PROGRESS_WIDTH", "80");
        }
    }
    cmd.args([
        "--release",
        "--target",
        "x86_64-unknown-none",
        "-p",
        "conflux-kernel",
    ])
    .env(conflux_manifest::MANIFEST_ENV, manifest_path);
    for c in &crates {
        cmd.args(["-p", c]);
    }
    let (ok, stderr) = run_teeing_stderr(cmd)?;
    if ok {
        return Ok(());
    }
    let mut message = format!(
        "building system `{}` ({}) failed: see cargo's messages above",
        m.system.name,
        manifest_path.display()
    );
    for hint in build_hints::hints(&stderr, m, manifest_path) {
        message.push_str("\n  hint: ");
        message.push_str(&hint);
    }
    Err(message)
}

/// Runs `cmd` with its stderr copied to ours as it arrives; whether it
/// succeeded, and all it wrote there.
fn run_teeing_stderr(mut cmd: Command) -> Result<(bool, String), String> {
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let mut pipe = child
        .stderr
        .take()
        .ok_or("cargo's stderr was not captured")?;
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    let mut ours = std::io::stderr();
    while let Ok(n) = pipe.read(&mut buf) {
        if n == 0 {
            break;
        }
        let _ = ours.write_all(&buf[..n]);
        all.extend_from_slice(&buf[..n]);
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for cargo: {e}"))?;
    Ok((status.success(), String::from_utf8_lossy(&all).into_owned()))
}

/// Builds the system described by the manifest at `path`.
pub fn build(path: &Path, progress: Progress) -> Result<Built, String> {
    let manifest = conflux_manifest::load(path).map_err(|e| e.to_string())?;
    cargo_build(path, &manifest, progress)?;
    let bins = workspace::guest_bin_dir();
    // One ELF per crate; each task gets its own copy with its own
    // configuration section (several tasks may run one crate).
    let elfs: Vec<Vec<u8>> = manifest
        .tasks
        .iter()
        .enumerate()
        .map(|(index, t)| {
            let p = bins.join(&t.crate_name);
            let mut elf = std::fs::read(&p).map_err(|e| {
                format!(
                    "task `{}`: cannot read its ELF {}: {e}",
                    t.name,
                    p.display()
                )
            })?;
            // The task's own values first (their section is loaded, so
            // it survives the trimming), then only what the kernel loads.
            task_config::fill(&mut elf, &manifest, index)?;
            loadable::loadable_only(&elf)
                .map_err(|e| format!("task `{}`: its ELF {}: {e}", t.name, p.display()))
        })
        .collect::<Result<_, String>>()?;
    let image = lower::image(&manifest, &elfs);
    let bytes = encode(&image).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = workspace::root()
        .join("target/images")
        .join(&manifest.system.name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let image = dir.join("boot.img");
    std::fs::write(&image, bytes).map_err(|e| format!("cannot write {}: {e}", image.display()))?;
    Ok(Built {
        manifest,
        kernel: bins.join("conflux-kernel"),
        image,
        fresh_disk: false,
        network: None,
    })
}
