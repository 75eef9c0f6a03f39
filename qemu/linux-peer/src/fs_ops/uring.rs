//! fs-ops through io_uring: batches of up to [`BATCH`] entries per
//! `io_uring_enter`; chains on direct descriptors where an operation
//! needs a descriptor the previous one made.

use std::io;

use io_uring::{opcode, squeue, types};

use super::dirents::list;
use super::{close, open, read_entry, uresult, Scratch, Work, BLOCK, CHUNK};
use crate::plan::Op;
use crate::ring::{Ring, BATCH};

/// One run of the work's N operations; its answer (calls, bytes, entries).
pub fn run(w: &Work<'_>, ring: &mut Ring, s: &mut Scratch) -> io::Result<u64> {
    let n = w.step.n;
    let mut results = [0i32; BATCH];
    let mut entries: Vec<squeue::Entry> = Vec::with_capacity(BATCH);
    let mut total = 0;
    let op = w.step.op;
    // Ops per batch: a chain takes 2 (open, close) or 3 (open, read, close) entries.
    let per = match op {
        Op::OpenClose => BATCH / 2,
        Op::OpenReadClose => BATCH / 3,
        _ => BATCH,
    };
    let fd = match op {
        Op::Pread | Op::Read64k => Some(open(&w.path, libc::O_RDONLY)?),
        Op::Pwrite => Some(open(&w.path, libc::O_WRONLY)?),
        _ => None,
    };
    if matches!(op, Op::Readdir | Op::Readdirplus) {
        return readdirplus(w, ring, s);
    }
    let mut start = 0;
    while start < n {
        let count = (n - start).min(per as u64) as usize;
        entries.clear();
        for k in 0..count {
            let i = start + k as u64;
            let slot = k as u32;
            let buf = &mut s.bufs[k * CHUNK..(k + 1) * CHUNK];
            match op {
                Op::Nop => entries.push(opcode::Nop::new().build()),
                Op::Stat => entries.push(statx(libc::AT_FDCWD, w.path.as_ptr(), &mut s.stx[k])),
                Op::OpenClose | Op::OpenReadClose => {
                    let path = if op == Op::OpenClose {
                        &w.path
                    } else {
                        &w.names[i as usize]
                    };
                    let dest = types::DestinationSlot::try_from_slot_target(slot)
                        .map_err(|s| io::Error::other(format!("slot {s} out of range")))?;
                    let opened = opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), path.as_ptr())
                        .flags(libc::O_RDONLY)
                        .file_index(Some(dest))
                        .build()
                        .flags(squeue::Flags::IO_LINK);
                    entries.push(opened);
                    if op == Op::OpenReadClose {
                        // A hard link: the 1 KiB file's short read must not
                        // cancel the close.
                        let read =
                            opcode::Read::new(types::Fixed(slot), buf.as_mut_ptr(), BLOCK as u32)
                                .build()
                                .flags(squeue::Flags::IO_HARDLINK);
                        entries.push(read);
                    }
                    entries.push(opcode::Close::new(types::Fixed(slot)).build());
                }
                Op::Pread => entries.push(read_entry(
                    types::Fd(fd.unwrap_or(-1)),
                    &mut buf[..BLOCK],
                    w.block_offset(i),
                )),
                Op::Read64k => entries.push(read_entry(
                    types::Fd(fd.unwrap_or(-1)),
                    buf,
                    i * CHUNK as u64,
                )),
                Op::Pwrite => entries.push(
                    opcode::Write::new(types::Fd(fd.unwrap_or(-1)), w.block.as_ptr(), BLOCK as u32)
                        .offset(w.block_offset(i))
                        .build(),
                ),
                Op::Readdir | Op::Readdirplus => unreachable!("listed above"),
            }
        }
        // Safety: the entries point at `w`'s paths and block and at `s`'s
        // buffers and records, all alive until `run` returns after every completion.
        unsafe { ring.run(&entries, &mut results) }?;
        for (k, r) in results[..entries.len()].iter().enumerate() {
            let got = uresult(*r, op.name())?;
            total += match op {
                Op::Nop | Op::Stat => 1,
                // The close of each chain counts the operation; the read its bytes.
                Op::OpenClose => u64::from(k % 2 == 1),
                Op::OpenReadClose if k % 3 == 1 => got,
                Op::OpenReadClose => 0,
                _ => got,
            };
        }
        start += count as u64;
    }
    if let Some(fd) = fd {
        close(fd);
    }
    Ok(total)
}

fn statx(dirfd: i32, name: *const libc::c_char, out: &mut libc::statx) -> squeue::Entry {
    // The crate's `statx` is an opaque stand-in for the kernel's record,
    // which libc's is.
    let out: *mut libc::statx = out;
    opcode::Statx::new(types::Fd(dirfd), name, out.cast())
        .flags(libc::AT_SYMLINK_NOFOLLOW)
        .mask(libc::STATX_BASIC_STATS)
        .build()
}

/// readdirplus: getdents64 lists (io_uring has no getdents), then each
/// batch of the listed names is stat'ed with STATX in one submission.
fn readdirplus(w: &Work<'_>, ring: &mut Ring, s: &mut Scratch) -> io::Result<u64> {
    let fd = open(&w.path, libc::O_RDONLY | libc::O_DIRECTORY)?;
    let stx = &mut s.stx;
    let mut entries = Vec::with_capacity(BATCH);
    let mut results = [0i32; BATCH];
    let listed = list(fd, &mut s.list, &mut s.names, |filled, names| {
        for batch in names.chunks(BATCH) {
            entries.clear();
            for (k, &(a, _)) in batch.iter().enumerate() {
                entries.push(statx(fd, filled[a..].as_ptr().cast(), &mut stx[k]));
            }
            // Safety: the names lie in `filled` and the records in `stx`,
            // both alive until `run` returns after every completion.
            unsafe { ring.run(&entries, &mut results) }?;
            for r in &results[..batch.len()] {
                uresult(*r, "statx")?;
            }
        }
        Ok(())
    });
    close(fd);
    listed
}
