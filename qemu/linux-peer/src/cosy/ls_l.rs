//! `ls -l` on Linux: list a directory with `getdents64` (32 KiB at a
//! time, as glibc's `readdir`) and `fstatat` every entry, as Conflux's
//! VAN listing does with `readdir` batches and `statat`. Each plan
//! parameter is a directory holding copies `van`, `cosy` and `cosy-fast`
//! of one generated directory (the cosybench manifest): **cold**, Linux
//! lists the `van` copy once, untouched since boot (its directory blocks
//! and inodes never read: the disk is mounted just before); **warm**, it
//! lists the same copy again after one untimed warm-up listing, ROUNDS
//! times. Params `5000-cold`, `5000-warm`, as Conflux's. The answer is
//! the entries listed (without `.` and `..`), which must be the
//! directory's file count (its name).

use std::ffi::CString;

use super::plan::{count, Step};
use super::{rounds, timed, CONFIG};
use crate::fs_ops::dirents::{self, LIST_BUF};
use crate::fs_ops::sys::stat_at;
use crate::ipc::check;
use crate::report::{Checks, Samples};

/// The copy Linux lists (the one Conflux's VAN lists).
const COPY: &str = "van";

pub fn run(checks: &mut Checks, step: &Step) -> Result<(), String> {
    for dir in &step.params {
        let name = dir.rsplit('/').next().unwrap_or(dir);
        let files =
            count(name, 1_000_000).map_err(|e| format!("ls-l: the directory's name {e}"))?;
        let path = CString::new(format!("{dir}/{COPY}")).map_err(|e| format!("ls-l {dir}: {e}"))?;
        let mut buf = vec![0u8; LIST_BUF];
        let mut names = Vec::new();
        let cold = format!("{name}-cold");
        let (answer, took) = timed(|| list(&path, &mut buf, &mut names))
            .map_err(|e| format!("ls-l {dir}/{COPY}: {e}"))?;
        crate::report::say(&format!("ls-l {cold}: answer Some({answer})"));
        checks.that(
            &format!("ls-l {cold}: lists {files} entries"),
            answer == files,
            answer,
        );
        let mut samples = Samples::new("ls-l", CONFIG, &cold, 1);
        samples.push(took);
        samples.report();
        rounds(
            checks,
            "ls-l",
            &format!("{name}-warm"),
            step.rounds,
            Some(files),
            || timed(|| list(&path, &mut buf, &mut names)),
        )?;
    }
    Ok(())
}

/// One listing of `path` with a stat of every entry; the entries.
fn list(path: &CString, buf: &mut [u8], names: &mut Vec<(usize, usize)>) -> std::io::Result<u64> {
    // Safety: `path` is NUL-terminated and outlives the call.
    let fd = check(unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    })?;
    let listed = dirents::list(fd, buf, names, |filled, names| {
        for &(from, _) in names {
            // The name lies NUL-terminated in `filled` at `from`.
            stat_at(fd, filled[from..].as_ptr().cast())?;
        }
        Ok(())
    });
    // Safety: `fd` is this function's open descriptor, closed once.
    unsafe { libc::close(fd) };
    listed
}
