//! fs-ops through plain system calls: one call per operation, as a C
//! program calls libc.

use std::io;

use super::dirents::list;
use super::{bytes, close, open, Scratch, Work, BLOCK, CHUNK};
use crate::ipc::check;
use crate::plan::Op;

/// One run of the work's N operations; its answer (calls, bytes, entries).
pub fn run(w: &Work<'_>, s: &mut Scratch) -> io::Result<u64> {
    let n = w.step.n;
    let buf = &mut s.bufs;
    match w.step.op {
        Op::Nop => {
            for _ in 0..n {
                // Safety: getpid has no preconditions.
                unsafe { libc::getpid() };
            }
            Ok(n)
        }
        Op::Stat => {
            for _ in 0..n {
                stat_at(libc::AT_FDCWD, w.path.as_ptr())?;
            }
            Ok(n)
        }
        Op::OpenClose => {
            for _ in 0..n {
                close(open(&w.path, libc::O_RDONLY)?);
            }
            Ok(n)
        }
        Op::Pread | Op::Pwrite => {
            let write = w.step.op == Op::Pwrite;
            let fd = open(
                &w.path,
                if write {
                    libc::O_WRONLY
                } else {
                    libc::O_RDONLY
                },
            )?;
            let mut moved = 0;
            for i in 0..n {
                let off = w.block_offset(i) as i64;
                let r = if write {
                    // Safety: `w.bufs` holds at least BLOCK bytes.
                    unsafe { libc::pwrite(fd, w.block.as_ptr().cast(), BLOCK, off) }
                } else {
                    // Safety: `buf` has room for BLOCK bytes.
                    unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), BLOCK, off) }
                };
                moved += bytes(r)?;
            }
            close(fd);
            Ok(moved)
        }
        Op::Read64k => {
            let fd = open(&w.path, libc::O_RDONLY)?;
            let mut moved = 0;
            for _ in 0..n {
                // Safety: `buf` has room for CHUNK bytes.
                moved += bytes(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), CHUNK) })?;
            }
            close(fd);
            Ok(moved)
        }
        Op::Readdir | Op::Readdirplus => {
            let plus = w.step.op == Op::Readdirplus;
            let fd = open(&w.path, libc::O_RDONLY | libc::O_DIRECTORY)?;
            let listed = list(fd, &mut s.list, &mut s.names, |filled, names| {
                if plus {
                    for &(a, _) in names {
                        // The name is NUL-terminated inside `filled`.
                        stat_at(fd, filled[a..].as_ptr().cast())?;
                    }
                }
                Ok(())
            });
            close(fd);
            listed
        }
        Op::OpenReadClose => {
            let mut moved = 0;
            for name in &w.names {
                let fd = open(name, libc::O_RDONLY)?;
                // Safety: `buf` has room for BLOCK bytes.
                let r = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), BLOCK) };
                close(fd);
                moved += bytes(r)?;
            }
            Ok(moved)
        }
    }
}

/// `fstatat(dirfd, name)` without following a last symlink (`ls -l`).
pub fn stat_at(dirfd: i32, name: *const libc::c_char) -> io::Result<()> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // Safety: `name` is NUL-terminated (callers pass a CString or a name
    // inside a getdents buffer) and `st` has room for a `struct stat`.
    check(unsafe { libc::fstatat(dirfd, name, st.as_mut_ptr(), libc::AT_SYMLINK_NOFOLLOW) })?;
    Ok(())
}
