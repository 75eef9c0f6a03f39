//! The Linux peer's inputs, fetched once and cached under
//! `target/linux-peer/`: Debian's cloud kernel (the real package behind
//! the `linux-image-cloud-amd64` metapackage) and `busybox-static`,
//! downloaded with `apt-get download` and unpacked with `dpkg-deb -x`.
//! `qemu/setup.sh linux-peer` first makes sure apt knows the packages (a
//! fresh machine may have empty package lists).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace;

/// The metapackage that names the current cloud kernel.
const METAPACKAGE: &str = "linux-image-cloud-amd64";
/// BusyBox, statically linked: `/init`'s shell, `insmod`, `mount`.
const BUSYBOX: &str = "busybox-static";

/// The unpacked inputs.
#[derive(Debug)]
pub struct Inputs {
    pub vmlinuz: PathBuf,
    /// The kernel's `lib/modules/<version>/kernel` folder.
    pub modules: PathBuf,
    pub busybox: PathBuf,
    /// The kernel package, e.g. `linux-image-6.1.0-56-cloud-amd64`.
    pub kernel_package: String,
}

/// Where everything is cached.
pub fn cache_dir() -> PathBuf {
    workspace::root().join("target/linux-peer")
}

/// The inputs, fetched and unpacked unless a previous run left them.
pub fn inputs() -> Result<Inputs, String> {
    let root = cache_dir().join("root");
    if let Ok(found) = find(&root) {
        return Ok(found);
    }
    setup()?;
    let out = run(
        Command::new("apt-cache").args(["depends", METAPACKAGE]),
        "apt-cache",
    )?;
    let kernel = kernel_package(&out).ok_or_else(|| {
        format!(
            "`apt-cache depends {METAPACKAGE}` names no linux-image-*-cloud-amd64 package:\n{out}"
        )
    })?;
    let debs = cache_dir().join("debs");
    let _ = std::fs::remove_dir_all(&debs);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&debs).map_err(|e| format!("cannot create {}: {e}", debs.display()))?;
    eprintln!(
        "linux peer: downloading {kernel} and {BUSYBOX} (once; cached in {})",
        cache_dir().display()
    );
    run(
        Command::new("apt-get")
            .args(["download", "-q", &kernel, BUSYBOX])
            .current_dir(&debs),
        "apt-get download",
    )?;
    for deb in
        std::fs::read_dir(&debs).map_err(|e| format!("cannot list {}: {e}", debs.display()))?
    {
        let deb = deb.map_err(|e| e.to_string())?.path();
        run(
            Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&root),
            "dpkg-deb -x",
        )?;
    }
    // The unpacked tree is the cache; the packages, the modules the peer
    // does not load and the documentation would only take room (~90 MB).
    let _ = std::fs::remove_dir_all(&debs);
    let _ = std::fs::remove_dir_all(root.join("usr"));
    let found = find(&root)?;
    prune(&found.modules, &found.modules, &super::initramfs::MODULES)?;
    Ok(found)
}

/// Runs `qemu/setup.sh linux-peer`: the install step only this bench needs.
fn setup() -> Result<(), String> {
    let script = workspace::root().join("qemu/setup.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg("linux-peer")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`bash {} linux-peer` failed (see above)",
            script.display()
        ))
    }
}

/// Runs `cmd`; its stdout, or an error with its stderr.
fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| {
        format!("cannot run {what}: {e} (is this a Debian machine? run `bash qemu/setup.sh`)")
    })?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The kernel package `apt-cache depends linux-image-cloud-amd64` names:
/// its first `Depends: linux-image-*-cloud-amd64` line.
pub fn kernel_package(depends: &str) -> Option<String> {
    depends.lines().find_map(|line| {
        let name = line.trim().strip_prefix("Depends:")?.trim();
        let name = name.split_whitespace().next()?;
        let ok = name.starts_with("linux-image-")
            && name.ends_with("-cloud-amd64")
            && name != METAPACKAGE;
        ok.then(|| name.to_owned())
    })
}

/// The unpacked inputs under `root`, or what is missing.
fn find(root: &Path) -> Result<Inputs, String> {
    let boot = root.join("boot");
    let vmlinuz = only(&boot, "vmlinuz-")?;
    let name = vmlinuz.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let version = name.trim_start_matches("vmlinuz-").to_owned();
    let modules = root.join("lib/modules").join(&version).join("kernel");
    let busybox = root.join("bin/busybox");
    for p in [&modules, &busybox] {
        if !p.exists() {
            return Err(format!("{} is missing", p.display()));
        }
    }
    Ok(Inputs {
        vmlinuz,
        modules,
        busybox,
        kernel_package: format!("linux-image-{version}"),
    })
}

/// Removes every file under `dir` but the modules `keep` names (paths
/// under `base` without `.ko`), and the folders left empty.
fn prune(base: &Path, dir: &Path, keep: &[&str]) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            prune(base, &path, keep)?;
            // Fails, as it should, while the folder holds a kept module.
            let _ = std::fs::remove_dir(&path);
            continue;
        }
        let name = path
            .strip_prefix(base)
            .ok()
            .and_then(|p| p.to_str())
            .unwrap_or("");
        if !keep.iter().any(|k| name.strip_suffix(".ko") == Some(k)) {
            std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The one file in `dir` whose name starts with `prefix`.
fn only(dir: &Path, prefix: &str) -> Result<PathBuf, String> {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "{} holds {} files named {prefix}*, not one",
            dir.display(),
            found.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metapackage_s_kernel_is_found() {
        let out = "linux-image-cloud-amd64\n  Depends: linux-image-6.1.0-56-cloud-amd64\n";
        assert_eq!(
            kernel_package(out).as_deref(),
            Some("linux-image-6.1.0-56-cloud-amd64")
        );
        let two = "linux-image-cloud-amd64\n  Depends: linux-image-6.1.0-56-cloud-amd64\n  Depends: linux-image-6.1.0-50-cloud-amd64\n";
        assert_eq!(
            kernel_package(two).as_deref(),
            Some("linux-image-6.1.0-56-cloud-amd64")
        );
    }

    #[test]
    fn other_dependencies_are_not_the_kernel() {
        assert_eq!(
            kernel_package(
                "x\n  Depends: initramfs-tools\n  Recommends: linux-image-6.1.0-1-amd64\n"
            ),
            None
        );
        assert_eq!(
            kernel_package("  Depends: linux-image-6.1.0-56-amd64\n"),
            None
        );
        assert_eq!(kernel_package(""), None);
    }

    #[test]
    fn pruning_keeps_only_the_modules_named() {
        let dir = std::env::temp_dir().join(format!("linux-peer-prune-{}", std::process::id()));
        for f in [
            "drivers/virtio/virtio.ko",
            "drivers/virtio/virtio_mem.ko",
            "sound/x.ko",
            "drivers/block/virtio_blk.ko",
        ] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, b"m").unwrap();
        }
        prune(
            &dir,
            &dir,
            &["drivers/virtio/virtio", "drivers/block/virtio_blk"],
        )
        .unwrap();
        assert!(dir.join("drivers/virtio/virtio.ko").is_file());
        assert!(dir.join("drivers/block/virtio_blk.ko").is_file());
        assert!(!dir.join("drivers/virtio/virtio_mem.ko").exists());
        assert!(!dir.join("sound").exists(), "an emptied folder goes too");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_cache_says_what_is_missing() {
        let dir = std::env::temp_dir().join(format!("linux-peer-find-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("boot")).unwrap();
        assert!(find(&dir).unwrap_err().contains("0 files named vmlinuz-"));
        std::fs::write(dir.join("boot/vmlinuz-6.1.0-9-cloud-amd64"), b"k").unwrap();
        assert!(find(&dir)
            .unwrap_err()
            .contains("lib/modules/6.1.0-9-cloud-amd64/kernel is missing"));
        std::fs::create_dir_all(dir.join("lib/modules/6.1.0-9-cloud-amd64/kernel")).unwrap();
        assert!(find(&dir).unwrap_err().contains("bin/busybox is missing"));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/busybox"), b"b").unwrap();
        assert_eq!(
            find(&dir).unwrap().kernel_package,
            "linux-image-6.1.0-9-cloud-amd64"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
