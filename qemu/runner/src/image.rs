//! Manifest → boot image: builds the kernel and the system's tasks, then
//! lays the tasks, objects and capabilities out (see `lower`) in the boot
//! image the kernel reads as its initrd.

use crate::{lower, workspace};
use conflux_bootimg::encode;
use conflux_manifest::Manifest;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A built system, ready to boot.
pub struct Built {
    pub manifest: Manifest,
    pub kernel: PathBuf,
    pub image: PathBuf,
    /// Rebuild a disk made from a folder before booting (see `disks`).
    pub fresh_disk: bool,
}

/// Builds the system named `system` (see [`workspace::resolve_system`]).
pub fn build_named(system: &str) -> Result<Built, String> {
    build(&workspace::resolve_system(system)?)
}

/// Compiles the kernel and the manifest's task crates for the guest.
///
/// Each task's `build.rs` reads the manifest named by `CONFLUX_MANIFEST`
/// and generates that task's constants, so the manifest is the only place
/// any of those numbers are written.
fn cargo_build(manifest_path: &Path, m: &Manifest) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace::root())
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "x86_64-unknown-none",
            "-p",
            "conflux-kernel",
        ])
        .env(conflux_manifest::MANIFEST_ENV, manifest_path);
    for t in &m.tasks {
        cmd.args(["-p", &t.crate_name]);
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building system `{}` ({}) failed: see cargo's messages above (a task crate named in the manifest must be a workspace member)",
            m.system.name,
            manifest_path.display()
        ));
    }
    Ok(())
}

/// Builds the system described by the manifest at `path`.
pub fn build(path: &Path) -> Result<Built, String> {
    let manifest = conflux_manifest::load(path).map_err(|e| e.to_string())?;
    cargo_build(path, &manifest)?;
    let bins = workspace::guest_bin_dir();
    let elfs: Vec<Vec<u8>> = manifest
        .tasks
        .iter()
        .map(|t| {
            let p = bins.join(&t.crate_name);
            std::fs::read(&p).map_err(|e| {
                format!(
                    "task `{}`: cannot read its ELF {}: {e}",
                    t.name,
                    p.display()
                )
            })
        })
        .collect::<Result<_, _>>()?;
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
    })
}
