//! Generated disk files (`[devices.NAME] generate = [{ path, size, seed }]`):
//! their bytes, and the staging folder the disk is built from.
//!
//! The bytes of a file are the little-endian 8-byte outputs of xorshift64
//! (Marsaglia's shifts 13, 7, 17) started from `seed ^ 0x9e37_79b9_7f4a_7c15`
//! (or that constant if the result is 0), cut to `size`. [`bytes`] is the
//! one place they are made: the runner writes the file with it, and the
//! HTTP peer checks what the guest serves against it.
//!
//! A directory entry (`{ dir, files, size, seed }`) holds `files` files
//! named [`dir_file_name`] (`f00000`, `f00001`, ...), the *i*-th holding
//! the bytes of seed `seed + i` (wrapping): with `size = 0`, empty files,
//! as an `ls -l` benchmark lists them.
//!
//! The folder itself is never written: it is copied to a staging folder
//! under `target/disks/`, the files are added there, and `mke2fs -d`
//! reads the copy. A directory of many files is staged partly in part
//! folders and completed in the image (`super::large_dirs`).

use std::path::{Path, PathBuf};

use conflux_manifest::GeneratedFile;

use super::large_dirs::{self, Parted};

/// Mixed into the seed so that seed 0 does not start xorshift at 0 (where
/// it would stay).
const SEED_MIX: u64 = 0x9e37_79b9_7f4a_7c15;
/// Deepest folder the staging copy follows (a bound, not a real limit).
const MAX_DEPTH: usize = 32;

/// The `size` bytes generated from `seed`.
pub fn bytes(seed: u64, size: u64) -> Vec<u8> {
    let mut state = match seed ^ SEED_MIX {
        0 => SEED_MIX,
        s => s,
    };
    let len = usize::try_from(size).expect("generated sizes are at most 256 MiB");
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(&state.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Copies `folder` to `staging` (emptied first) and writes each generated
/// file into the copy; a generated path that the folder already has is an
/// error, so no file of the folder is silently replaced. A directory of
/// more than [`large_dirs::DIRECT`] files is staged partly in part
/// folders beside it; the directories returned are to be completed in the
/// image ([`large_dirs`]).
pub fn stage(
    folder: &Path,
    files: &[GeneratedFile],
    staging: &Path,
) -> Result<Vec<Parted>, String> {
    if staging.exists() {
        std::fs::remove_dir_all(staging)
            .map_err(|e| format!("cannot empty {}: {e}", staging.display()))?;
    }
    copy_tree(folder, staging, 0)?;
    let mut parted = Vec::new();
    for file in files {
        let target = staging.join(&file.path);
        if target.symlink_metadata().is_ok() {
            return Err(format!(
                "the generated file `{}` is also in the disk folder {} ; remove one of them (generated files are added to the folder's files, never replace them)",
                file.path,
                folder.display()
            ));
        }
        match file.files {
            None => write_file(&target, file.seed, file.size)?,
            Some(count) => {
                let dir = Parted {
                    dir: large_dirs::image_path(Path::new(&file.path)),
                    files: count,
                };
                if large_dirs::parted(count) && staging.join(dir.parts()).exists() {
                    return Err(format!(
                        "`{}` is in the disk folder {} or generated twice; a generated directory of {count} files is staged there (rename it)",
                        dir.parts(),
                        folder.display()
                    ));
                }
                for i in 0..count {
                    let seed = file.seed.wrapping_add(u64::from(i));
                    let at = staging.join(dir.staged_dir(i)).join(dir_file_name(i));
                    write_file(&at, seed, file.size)?;
                }
                if large_dirs::parted(count) {
                    parted.push(dir);
                }
            }
        }
    }
    Ok(parted)
}

/// The name of the `i`-th file of a generated directory: `f` and five
/// digits or more, so a listing sorted by name is in generation order.
pub fn dir_file_name(i: u32) -> String {
    format!("f{i:05}")
}

/// Writes the `size` bytes of `seed` at `target`, its folders made first.
fn write_file(target: &Path, seed: u64, size: u64) -> Result<(), String> {
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(target, bytes(seed, size))
        .map_err(|e| format!("cannot write {}: {e}", target.display()))
}

/// Copies the tree at `from` to `to`: directories, files and symbolic
/// links (as links).
fn copy_tree(from: &Path, to: &Path, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{} is more than {MAX_DEPTH} folders deep; flatten the disk folder",
            from.display()
        ));
    }
    let fail = |what: &str, path: &Path, e: std::io::Error| {
        format!("cannot {what} {}: {e}", path.display())
    };
    std::fs::create_dir_all(to).map_err(|e| fail("create", to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| fail("read", from, e))? {
        let entry = entry.map_err(|e| fail("read", from, e))?;
        let (source, target): (PathBuf, PathBuf) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| fail("inspect", &source, e))?;
        if kind.is_dir() {
            copy_tree(&source, &target, depth + 1)?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(&source).map_err(|e| fail("read", &source, e))?;
            std::os::unix::fs::symlink(link, &target).map_err(|e| fail("link", &target, e))?;
        } else {
            std::fs::copy(&source, &target).map_err(|e| fail("copy", &source, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_fixed_by_its_seed() {
        // The first output of xorshift64 from 7 ^ SEED_MIX, worked out by hand
        // from the three shifts: the documented generator, not just any.
        let mut x: u64 = 7 ^ SEED_MIX;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_eq!(bytes(7, 8), x.to_le_bytes());
        assert_eq!(bytes(7, 1000)[..13], bytes(7, 13)[..]);
        assert_ne!(bytes(7, 64), bytes(8, 64));
        assert_eq!(bytes(SEED_MIX, 16).len(), 16);
        assert!(bytes(0, 0).is_empty());
        assert!(bytes(SEED_MIX, 64).iter().any(|b| *b != 0));
    }

    #[test]
    fn staging_adds_files_and_leaves_the_folder_alone() {
        let dir = std::env::temp_dir().join(format!("conflux-stage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let folder = dir.join("folder");
        std::fs::create_dir_all(folder.join("www")).unwrap();
        std::fs::write(folder.join("www/index.html"), b"hi").unwrap();
        let file = |path: &str| GeneratedFile {
            path: path.into(),
            size: 100,
            seed: 3,
            files: None,
        };
        let staging = dir.join("staging");
        stage(&folder, &[file("data/x.bin")], &staging).unwrap();
        assert_eq!(
            std::fs::read(staging.join("www/index.html")).unwrap(),
            b"hi"
        );
        assert_eq!(
            std::fs::read(staging.join("data/x.bin")).unwrap(),
            bytes(3, 100)
        );
        assert!(!folder.join("data").exists());
        let error = stage(&folder, &[file("www/index.html")], &staging).unwrap_err();
        assert!(error.contains("is also in the disk folder"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_generated_directory_holds_its_files_seeded_in_turn() {
        let dir = std::env::temp_dir().join(format!("conflux-stage-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let folder = dir.join("folder");
        std::fs::create_dir_all(&folder).unwrap();
        let entry = |path: &str, size, files| GeneratedFile {
            path: path.into(),
            size,
            seed: 5,
            files: Some(files),
        };
        let staging = dir.join("staging");
        let entries = [entry("ls/20", 0, 20), entry("ls/3", 10, 3)];
        stage(&folder, &entries, &staging).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(staging.join("ls/20"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let expected: Vec<String> = (0..20).map(dir_file_name).collect();
        assert_eq!(names, expected);
        assert_eq!(expected[7], "f00007");
        let sizes = std::fs::read_dir(staging.join("ls/20"))
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len());
        assert!(sizes.into_iter().all(|len| len == 0));
        for i in 0..3 {
            let got = std::fs::read(staging.join("ls/3").join(dir_file_name(i))).unwrap();
            assert_eq!(got, bytes(5 + u64::from(i), 10));
        }
        assert_eq!(dir_file_name(49_999), "f49999");
        assert_eq!(dir_file_name(100_000), "f100000");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
