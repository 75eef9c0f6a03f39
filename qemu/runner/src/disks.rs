//! Disks built from host folders: `[devices.NAME] folder = "...",
//! size_mib = N` becomes the ext4 image `target/disks/SYSTEM.img`, made
//! by the host's own `mke2fs -t ext4 -b 4096 -d FOLDER` (4 KiB blocks
//! and extents are what the guest's file system library handles; see
//! `servers/fs/ext4`) and checked with `e2fsck -fn` after each guest test.
//!
//! The image is built once and then kept, so what the guest writes
//! persists from run to run, until `cargo make clean` or `--fresh-disk`
//! rebuilds it. Guest tests always rebuild it: a test then starts from
//! the folder's contents alone and its result cannot depend on an
//! earlier run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use conflux_manifest::{DiskImage, GeneratedFile, Manifest};

use crate::workspace;

pub mod generate;
pub mod large_dirs;

/// The folder-built disk of `manifest`'s system (there is at most one).
pub fn image_path(manifest: &Manifest) -> PathBuf {
    workspace::root()
        .join("target/disks")
        .join(format!("{}.img", manifest.system.name))
}

/// The folder and size of the system's folder-built disk, if it has one.
fn folder_disk(manifest: &Manifest) -> Option<(&Path, u32)> {
    manifest.devices.iter().find_map(|d| match &d.disk {
        Some(DiskImage::Folder {
            folder, size_mib, ..
        }) => Some((folder.as_path(), *size_mib)),
        _ => None,
    })
}

/// The folder of the system's folder-built disk and its generated files.
pub fn folder_and_generated(manifest: &Manifest) -> Option<(&Path, &[GeneratedFile])> {
    manifest.devices.iter().find_map(|d| match &d.disk {
        Some(DiskImage::Folder {
            folder, generate, ..
        }) => Some((folder.as_path(), generate.as_slice())),
        _ => None,
    })
}

/// Builds the system's folder disk at `image` unless it exists and
/// `fresh` is false.
pub fn prepare(manifest: &Manifest, image: &Path, fresh: bool) -> Result<(), String> {
    let Some((folder, size_mib)) = folder_disk(manifest) else {
        return Ok(());
    };
    if image.is_file() && !fresh {
        return Ok(());
    }
    let generated = folder_and_generated(manifest).map_or(&[][..], |(_, g)| g);
    if generated.is_empty() {
        return build(folder, size_mib, image);
    }
    // The folder is never written: the generated files go into a copy.
    let staging = image.with_extension("staging");
    let parted = generate::stage(folder, generated, &staging);
    let built = parted.and_then(|p| {
        build_with(&staging, size_mib, image, inodes_for(generated))?;
        Ok(p)
    });
    let _ = std::fs::remove_dir_all(&staging);
    let parted = built?;
    if generated.iter().any(|g| g.files.is_some()) {
        index_directories(image)?;
    }
    if !parted.is_empty() {
        link_parts(image, &parted)?;
        // Packs the directories the links grew through their index.
        index_directories(image)?;
    }
    Ok(())
}

/// Inodes a disk with `generated` needs beyond mke2fs's default (one per
/// 16 KiB): `Some` when its generated directories hold many files.
fn inodes_for(generated: &[GeneratedFile]) -> Option<u64> {
    let files: u64 = generated
        .iter()
        .map(|g| u64::from(g.files.unwrap_or(1)))
        .sum();
    // Room for the folder's own files and what the guest creates.
    (files > 10_000).then_some(files + 8192)
}

/// Links the part files of `parted` into their directories in `image`
/// ([`large_dirs`]), in one debugfs batch.
fn link_parts(image: &Path, parted: &[large_dirs::Parted]) -> Result<(), String> {
    let script = image.with_extension("links");
    let text = large_dirs::batch(parted, generate::dir_file_name);
    std::fs::write(&script, text).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let out = run(Command::new(tool("debugfs")?)
        .arg("-w")
        .arg("-f")
        .arg(&script)
        .arg(image));
    let _ = std::fs::remove_file(&script);
    let out = out?;
    let complaints = large_dirs::complaints(
        &String::from_utf8_lossy(&out.stdout),
        &String::from_utf8_lossy(&out.stderr),
    );
    if out.status.success() && complaints.is_empty() {
        return Ok(());
    }
    Err(format!(
        "debugfs could not link the generated directories' files into {} (exit {:?}); first complaints:\n{}",
        image.display(),
        out.status.code(),
        complaints.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    ))
}

/// `e2fsck -fyD`: gives the image's large directories a hash-tree index.
/// `mke2fs -d` links every name into a linear directory, where each name
/// lookup scans the whole directory; a real ext4 directory of thousands
/// of files is indexed (the kernel indexes it as it grows), and the file
/// server looks names up through the index when there is one.
fn index_directories(image: &Path) -> Result<(), String> {
    let out = run(Command::new(tool("e2fsck")?).arg("-fyD").arg(image))?;
    // 0: nothing changed; 1: the file system was modified (the index).
    if matches!(out.status.code(), Some(0 | 1)) {
        return Ok(());
    }
    Err(format!(
        "e2fsck -fyD {} could not index the generated directories (exit {:?}):\n{}",
        image.display(),
        out.status.code(),
        text(&out)
    ))
}

/// Makes `image`, `size_mib` MiB of ext4 holding a copy of `folder`.
pub fn build(folder: &Path, size_mib: u32, image: &Path) -> Result<(), String> {
    build_with(folder, size_mib, image, None)
}

/// [`build`], with room for `inodes` inodes (`-N`) if given.
fn build_with(
    folder: &Path,
    size_mib: u32,
    image: &Path,
    inodes: Option<u64>,
) -> Result<(), String> {
    if let Some(dir) = image.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let _ = std::fs::remove_file(image);
    let mut mke2fs = Command::new(tool("mke2fs")?);
    if let Some(n) = inodes {
        mke2fs.arg("-N").arg(n.to_string());
    }
    let out = run(mke2fs
        .args([
            "-q", "-F", "-t", "ext4", "-b", "4096", "-L", "conflux", "-d",
        ])
        .arg(folder)
        .arg(image)
        .arg(format!("{size_mib}M")))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(image);
        return Err(format!(
            "mke2fs could not build the disk {} from {} ({size_mib} MiB; is the folder larger?):\n{}",
            image.display(),
            folder.display(),
            text(&out)
        ));
    }
    Ok(())
}

/// `e2fsck -fn` on the system's folder disk, if it has one: `Err` with
/// e2fsck's report unless the image is clean.
pub fn check(manifest: &Manifest, image: &Path) -> Result<(), String> {
    if folder_disk(manifest).is_none() {
        return Ok(());
    }
    let out = run(Command::new(tool("e2fsck")?).arg("-fn").arg(image))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "e2fsck -fn {} found the disk not clean (exit {:?}):\n{}",
        image.display(),
        out.status.code(),
        text(&out)
    ))
}

/// An e2fsprogs tool: on `PATH`, or in `/usr/sbin` or `/sbin` (not on an
/// ordinary user's `PATH` on Debian).
fn tool(name: &str) -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            format!("`{name}` (e2fsprogs) is not installed; disks built from folders need it: run `bash qemu/setup.sh`")
        })
}

fn run(cmd: &mut Command) -> Result<Output, String> {
    cmd.output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("conflux-disks-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn manifest(folder: &Path) -> Manifest {
        let text = format!(
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
             [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"a\"\nfolder = \"{}\"\nsize_mib = 16\n",
            folder.display()
        );
        conflux_manifest::parse(&text, "/t.toml").unwrap()
    }

    fn debugfs_cat(image: &Path, file: &str) -> Vec<u8> {
        let out = run(Command::new(tool("debugfs").unwrap())
            .arg("-R")
            .arg(format!("cat {file}"))
            .arg(image))
        .unwrap();
        out.stdout
    }

    #[test]
    fn a_generated_directory_is_built_clean_and_indexed() {
        let dir = scratch("gendir");
        let folder = dir.join("files");
        std::fs::create_dir_all(&folder).unwrap();
        let text = format!(
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
             [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"a\"\nfolder = \"{}\"\nsize_mib = 16\n\
             generate = [{{ dir = \"ls/500\", files = 500, size = 0, seed = 5 }}]\n",
            folder.display()
        );
        let m = conflux_manifest::parse(&text, "/t.toml").unwrap();
        let image = dir.join("t.img");
        prepare(&m, &image, true).unwrap();
        check(&m, &image).unwrap();
        let stat = run(Command::new(tool("debugfs").unwrap())
            .arg("-R")
            .arg("stat /ls/500")
            .arg(&image))
        .unwrap();
        let stat = String::from_utf8_lossy(&stat.stdout);
        // 0x1000: EXT4_INDEX_FL, the hash-tree index e2fsck -D added.
        let flags = stat
            .split("Flags: 0x")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .unwrap_or_else(|| panic!("no flags in {stat}"));
        assert_ne!(flags & 0x1000, 0, "not indexed: {stat}");
        assert_eq!(debugfs_cat(&image, "/ls/500/f00499"), b"");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_large_generated_directory_is_linked_whole_clean_and_indexed() {
        let dir = scratch("largedir");
        let folder = dir.join("files");
        std::fs::create_dir_all(&folder).unwrap();
        let text = format!(
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
             [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"a\"\nfolder = \"{}\"\nsize_mib = 32\n\
             generate = [{{ dir = \"ls/2500\", files = 2500, size = 3, seed = 5 }}]\n",
            folder.display()
        );
        let m = conflux_manifest::parse(&text, "/t.toml").unwrap();
        let image = dir.join("t.img");
        prepare(&m, &image, true).unwrap();
        check(&m, &image).unwrap();
        let listing = |path: &str| {
            let out = run(Command::new(tool("debugfs").unwrap())
                .arg("-R")
                .arg(format!("ls -p {path}"))
                .arg(&image))
            .unwrap();
            // `/inode/mode/uid/gid/name/size/`, one entry a line.
            let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split('/').nth(5).map(String::from))
                .filter(|n| n != "." && n != "..")
                .collect();
            names.sort();
            names
        };
        let expected: Vec<String> = (0..2500).map(generate::dir_file_name).collect();
        assert_eq!(listing("/ls/2500"), expected);
        // The part folders are gone; each file has its generated bytes.
        assert_eq!(listing("/ls"), ["2500"]);
        assert_eq!(
            debugfs_cat(&image, "/ls/2500/f02499"),
            generate::bytes(5 + 2499, 3)
        );
        assert_eq!(
            debugfs_cat(&image, "/ls/2500/f00007"),
            generate::bytes(5 + 7, 3)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_folder_becomes_a_clean_ext4_image_that_persists() {
        let dir = scratch("persist");
        let folder = dir.join("files");
        std::fs::create_dir_all(folder.join("etc")).unwrap();
        std::fs::write(folder.join("README"), b"hello from the host\n").unwrap();
        std::fs::write(folder.join("etc/motd"), b"motd\n").unwrap();
        let image = dir.join("t.img");
        let m = manifest(&folder);
        prepare(&m, &image, false).unwrap();
        check(&m, &image).unwrap();
        assert_eq!(debugfs_cat(&image, "/README"), b"hello from the host\n");
        assert_eq!(debugfs_cat(&image, "/etc/motd"), b"motd\n");
        let out = run(Command::new(tool("dumpe2fs").unwrap())
            .arg("-h")
            .arg(&image))
        .unwrap();
        let header = String::from_utf8_lossy(&out.stdout);
        assert!(
            header.contains("Block size:               4096"),
            "{header}"
        );
        assert!(header.contains("extent"), "{header}");

        // Kept unless fresh: a change to the folder shows only after a rebuild.
        std::fs::write(folder.join("README"), b"changed\n").unwrap();
        prepare(&m, &image, false).unwrap();
        assert_eq!(debugfs_cat(&image, "/README"), b"hello from the host\n");
        prepare(&m, &image, true).unwrap();
        assert_eq!(debugfs_cat(&image, "/README"), b"changed\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn generated_files_are_in_the_image_and_not_in_the_folder() {
        let dir = scratch("generated");
        let folder = dir.join("files");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("README"), b"r\n").unwrap();
        let text = format!(
            "[system]\nname = \"t\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n\
             [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"a\"\nfolder = \"{}\"\nsize_mib = 16\n\
             generate = [{{ path = \"data/g.bin\", size = 70000, seed = 9 }}]\n",
            folder.display()
        );
        let m = conflux_manifest::parse(&text, "/t.toml").unwrap();
        let image = dir.join("t.img");
        prepare(&m, &image, true).unwrap();
        check(&m, &image).unwrap();
        assert_eq!(
            debugfs_cat(&image, "/data/g.bin"),
            generate::bytes(9, 70000)
        );
        assert_eq!(debugfs_cat(&image, "/README"), b"r\n");
        assert!(!folder.join("data").exists());
        assert!(!image.with_extension("staging").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_image_fails_the_check_with_e2fscks_report() {
        let dir = scratch("damaged");
        let folder = dir.join("files");
        std::fs::create_dir_all(&folder).unwrap();
        let image = dir.join("t.img");
        let m = manifest(&folder);
        prepare(&m, &image, true).unwrap();
        // Zero the root directory's inode: e2fsck must notice.
        let out = run(Command::new(tool("debugfs").unwrap())
            .args(["-w", "-R", "clri <2>"])
            .arg(&image))
        .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let error = check(&m, &image).unwrap_err();
        assert!(error.contains("found the disk not clean"), "{error}");
        assert!(error.contains("Root inode"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_folder_too_big_for_the_disk_says_so() {
        let dir = scratch("too-big");
        let folder = dir.join("files");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("big"), vec![1u8; 20 << 20]).unwrap();
        let error = build(&folder, 16, &dir.join("t.img")).unwrap_err();
        assert!(error.contains("is the folder larger?"), "{error}");
        assert!(!dir.join("t.img").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
