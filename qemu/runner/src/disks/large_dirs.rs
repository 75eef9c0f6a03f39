//! Generated directories of many files, built in linear time.
//!
//! `mke2fs -d` adds each file to a linear directory by scanning the
//! directory for a free slot, after a lookup (also a scan) that checks
//! the name is new: building one directory of n files reads about n²/250
//! directory blocks. Measured on this host (tmpfs, e2fsprogs 1.47.0,
//! empty files): 50,000 files took 2 min 26 s of wall time and 79 s of
//! CPU, 21 GB read through 5 million `pread`s, and 12.5 min on a busier
//! host; 6,000 and 12,000 through `debugfs mknod` 0.5 and 2.0 s of CPU
//! (quadratic as well).
//!
//! So a large generated directory is built in three steps:
//!
//! 1. The staging folder holds its first [`DIRECT`] files in the
//!    directory itself and the rest in part folders of [`PART`] files
//!    each, beside it (`DIR.parts/p000`, ...): `mke2fs -d` builds only
//!    small directories.
//! 2. `e2fsck -fyD` gives the directory (then some blocks long) a
//!    hash-tree index.
//! 3. One `debugfs -w` batch links every part file into the directory
//!    (`ln`, which adds the name through the index: libext2fs's
//!    `ext2fs_link` inserts into a hash-tree leaf, without a scan), and
//!    unlinks it from its part (`unlink`; neither changes the inode's
//!    link count, so each file keeps one link, its name in the
//!    directory), then removes the empty parts (`rmdir`).
//!
//! A last `e2fsck -fyD` packs the directory (the index's splits leave
//! leaves half full), and the runner's `e2fsck -fn` after each guest
//! test checks the result. 50,000 empty files: mke2fs 5.9 s, debugfs
//! 9.5 s wall (3.0 s CPU), instead of minutes.

use std::path::Path;

/// Files put in the directory itself by `mke2fs -d`: enough to make it
/// several blocks long, so `e2fsck -D` indexes it.
pub const DIRECT: u32 = 1000;
/// Files per part folder.
pub const PART: u32 = 1000;

/// A generated directory whose files past the first [`DIRECT`] are
/// staged in part folders, to be linked into it in the image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parted {
    /// The directory, relative to the image's root (`ls/50000/van`).
    pub dir: String,
    /// The number of its files.
    pub files: u32,
}

impl Parted {
    /// The folder holding the parts, beside the directory.
    pub fn parts(&self) -> String {
        format!("{}.parts", self.dir)
    }

    /// The part folder of file `i` (≥ [`DIRECT`]).
    pub fn part_of(&self, i: u32) -> String {
        format!("{}/p{:03}", self.parts(), (i - DIRECT) / PART)
    }

    /// Where the staging folder puts file `i`, relative to the root.
    pub fn staged_dir(&self, i: u32) -> String {
        if i < DIRECT {
            self.dir.clone()
        } else {
            self.part_of(i)
        }
    }
}

/// Whether a directory of `files` files is built through parts.
pub fn parted(files: u32) -> bool {
    files > DIRECT
}

/// The `debugfs -f` batch that moves every part file of `dirs` into its
/// directory and removes the parts; `name(i)` is file `i`'s name.
pub fn batch(dirs: &[Parted], name: impl Fn(u32) -> String) -> String {
    let mut out = String::new();
    for d in dirs {
        for i in DIRECT..d.files {
            let source = format!("{}/{}", d.part_of(i), name(i));
            out.push_str(&format!("ln {source} {}\nunlink {source}\n", d.dir));
        }
        let parts = (d.files - DIRECT).div_ceil(PART);
        for p in 0..parts {
            out.push_str(&format!("rmdir {}/p{p:03}\n", d.parts()));
        }
        out.push_str(&format!("rmdir {}\n", d.parts()));
    }
    out
}

/// What debugfs printed that is not its banner or an echoed command: its
/// complaints (debugfs exits 0 even when a command of a batch failed).
pub fn complaints(stdout: &str, stderr: &str) -> Vec<String> {
    stdout
        .lines()
        .chain(stderr.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("debugfs"))
        .map(String::from)
        .collect()
}

/// The image path of `dir` within the staging folder's root, `/` between
/// its parts whatever the host's separator.
pub fn image_path(dir: &Path) -> String {
    dir.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_past_the_first_thousand_go_to_parts_of_a_thousand() {
        let d = Parted {
            dir: "ls/5000/van".into(),
            files: 2500,
        };
        assert!(!parted(1000) && parted(1001));
        assert_eq!(d.staged_dir(999), "ls/5000/van");
        assert_eq!(d.staged_dir(1000), "ls/5000/van.parts/p000");
        assert_eq!(d.staged_dir(1999), "ls/5000/van.parts/p000");
        assert_eq!(d.staged_dir(2000), "ls/5000/van.parts/p001");
        let text = batch(&[d], |i| format!("f{i:05}"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 * 1500 + 2 + 1);
        assert_eq!(lines[0], "ln ls/5000/van.parts/p000/f01000 ls/5000/van");
        assert_eq!(lines[1], "unlink ls/5000/van.parts/p000/f01000");
        assert_eq!(lines[2999], "unlink ls/5000/van.parts/p001/f02499");
        assert_eq!(
            &lines[3000..],
            [
                "rmdir ls/5000/van.parts/p000",
                "rmdir ls/5000/van.parts/p001",
                "rmdir ls/5000/van.parts"
            ]
        );
    }

    #[test]
    fn only_what_is_not_the_banner_or_a_command_is_a_complaint() {
        let out = "debugfs 1.47.0 (5-Feb-2023)\ndebugfs: ln a b\n\n";
        assert!(complaints(out, "").is_empty());
        let err = "ln: File not found by ext2_lookup while trying to resolve filename\n";
        assert_eq!(complaints(out, err).len(), 1);
        assert_eq!(image_path(Path::new("ls/50000/van")), "ls/50000/van");
    }
}
