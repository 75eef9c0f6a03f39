//! `ls -l` on Linux: list a directory with `getdents64` (32 KiB at a
//! time, as glibc's `readdir`) and stat every entry, as Conflux's VAN
//! listing does with `readdir` batches and `statat`: `fstatat` per entry
//! (`linux-syscall`), or a STATX batch per [`crate::ring::BATCH`] names
//! (`linux-io_uring`; io_uring has no getdents). Each plan parameter is a
//! directory holding copies `van`, `cosy` and `cosy-fast` of one
//! generated directory (the cosybench manifest): **cold**, each way lists
//! its own copy once, untouched since boot (its directory blocks and
//! inodes never read: the disk is mounted just before) — system calls the
//! `van` copy, io_uring the `cosy` copy; **warm**, each way lists the
//! `van` copy after one untimed warm-up listing, ROUNDS times. Params
//! `5000-cold`, `5000-warm`, as Conflux's. The answer is the entries
//! listed (without `.` and `..`), which must be the directory's file
//! count (its name).

use std::ffi::CString;

use super::files::ring;
use super::plan::{count, Step};
use super::uring::{self, Uring};
use super::{rounds, timed, Via, VIAS};
use crate::fs_ops::dirents::{self, LIST_BUF};
use crate::fs_ops::sys::stat_at;
use crate::ipc::check;
use crate::report::{say, Checks, Samples};

/// The copy each way lists cold; warm, both list the first.
fn copy(via: Via) -> &'static str {
    match via {
        Via::Syscall => "van",
        Via::IoUring => "cosy",
    }
}

/// What one listing uses, made before it is timed.
struct Lister {
    buf: Vec<u8>,
    names: Vec<(usize, usize)>,
    ring: Uring,
}

pub fn run(checks: &mut Checks, step: &Step) -> Result<(), String> {
    let mut l = Lister {
        buf: vec![0u8; LIST_BUF],
        names: Vec::new(),
        ring: ring()?,
    };
    for dir in &step.params {
        let name = dir.rsplit('/').next().unwrap_or(dir);
        let files =
            count(name, 1_000_000).map_err(|e| format!("ls-l: the directory's name {e}"))?;
        let path = |via: Via| {
            CString::new(format!("{dir}/{}", copy(via))).map_err(|e| format!("ls-l {dir}: {e}"))
        };
        let cold = format!("{name}-cold");
        for via in VIAS {
            let config = via.config();
            let at = path(via)?;
            let (answer, took) = timed(|| l.list(via, &at))
                .map_err(|e| format!("ls-l {dir}/{} {config}: {e}", copy(via)))?;
            say(&format!("ls-l {cold} {config}: answer Some({answer})"));
            checks.that(
                &format!("ls-l {cold} {config}: lists {files} entries"),
                answer == files,
                answer,
            );
            let mut samples = Samples::new("ls-l", config, &cold, 1);
            samples.push(took);
            samples.report();
        }
        let warm = path(Via::Syscall)?;
        for via in VIAS {
            let param = format!("{name}-warm");
            rounds(
                checks,
                "ls-l",
                &param,
                via,
                step.rounds,
                Some(files),
                || timed(|| l.list(via, &warm)),
            )?;
        }
    }
    Ok(())
}

impl Lister {
    /// One listing of `path` with a stat of every entry; the entries.
    fn list(&mut self, via: Via, path: &CString) -> std::io::Result<u64> {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
        // Safety: `path` is NUL-terminated and outlives the call.
        let fd = check(unsafe { libc::open(path.as_ptr(), flags) })?;
        let listed = match via {
            Via::Syscall => dirents::list(fd, &mut self.buf, &mut self.names, |filled, names| {
                for &(from, _) in names {
                    // The name lies NUL-terminated in `filled` at `from`.
                    stat_at(fd, filled[from..].as_ptr().cast())?;
                }
                Ok(())
            }),
            Via::IoUring => uring::ls_l(&mut self.ring, fd, &mut self.buf, &mut self.names),
        };
        // Safety: `fd` is this function's open descriptor, closed once.
        unsafe { libc::close(fd) };
        listed
    }
}
