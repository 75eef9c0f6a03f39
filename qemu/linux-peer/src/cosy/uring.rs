//! The Cosy workloads' runs through io_uring (`linux-io_uring`): the same
//! operations as the system-call runs, submitted up to [`BATCH`] per
//! `io_uring_enter` (the counterpart of Conflux's compound). Reads and
//! writes carry their offsets, so a batch needs no file position; a write
//! that must follow its read (dbsim's write-back, bonnie's seekers) is
//! linked to it (`IO_LINK`) in the same batch; a write of changed bytes
//! (bonnie's rewrite) goes in the batch after its read. A workload that
//! reads to the end makes the reads the system-call run makes (the file's
//! whole chunks and the short or empty last one), its size read before
//! the clock starts. Files are opened and closed with plain calls, once
//! per run; the null loop is `IORING_OP_NOP`; `ls -l` lists with
//! getdents64 (io_uring has no getdents) and stats each batch of names
//! with STATX.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;

use cosy_abi::crc32c;
use cosybench_core::work::{next, Work, BLOCK};
use io_uring::{opcode, squeue, types};

use super::files::{matches, STRING};
use crate::fs_ops::dirents;
use crate::ring::{Ring, BATCH};

const CHUNK: usize = BLOCK as usize;

/// A ring and the buffers its batches point into.
pub struct Uring {
    ring: Ring,
    bufs: Vec<u8>,
    stx: Vec<libc::statx>,
}

impl Uring {
    pub fn new() -> io::Result<Uring> {
        Ok(Uring {
            ring: Ring::new(0)?,
            bufs: vec![0u8; BATCH * CHUNK],
            // Safety: `statx` is plain old data; zero is a valid value.
            stx: vec![unsafe { std::mem::zeroed() }; BATCH],
        })
    }

    /// Submits `entries` (at most [`BATCH`]) and waits for them; each
    /// one's result, a negative errno on failure (`what` names it then).
    ///
    /// # Safety
    ///
    /// Every buffer an entry points at must be in `self.bufs` or
    /// `self.stx`, or outlive the call.
    unsafe fn submit(&mut self, entries: &[squeue::Entry], what: &str) -> io::Result<Vec<u64>> {
        let mut results = [0i32; BATCH];
        // Safety: the caller's promise is `Ring::run`'s precondition.
        unsafe { self.ring.run(entries, &mut results) }?;
        results[..entries.len()]
            .iter()
            .map(|&r| {
                if r < 0 {
                    Err(io::Error::other(format!(
                        "io_uring {what}: {}",
                        io::Error::from_raw_os_error(-r)
                    )))
                } else {
                    Ok(r as u64)
                }
            })
            .collect()
    }

    /// Buffer `k` of the batch.
    fn buf(&mut self, k: usize) -> &mut [u8] {
        &mut self.bufs[k * CHUNK..(k + 1) * CHUNK]
    }
}

fn read(fd: &File, buf: &mut [u8], at: u64) -> squeue::Entry {
    opcode::Read::new(
        types::Fd(fd.as_raw_fd()),
        buf.as_mut_ptr(),
        buf.len() as u32,
    )
    .offset(at)
    .build()
}

fn write(fd: &File, buf: &[u8], at: u64) -> squeue::Entry {
    opcode::Write::new(types::Fd(fd.as_raw_fd()), buf.as_ptr(), buf.len() as u32)
        .offset(at)
        .build()
}

/// The reads a read-to-the-end loop of a `size`-byte file makes.
fn reads_of(size: u64) -> u64 {
    size / BLOCK + 1
}

/// N no-ops; how many answered 0.
pub fn nops(u: &mut Uring, n: u64) -> io::Result<u64> {
    let mut ok = 0;
    let mut left = n;
    while left > 0 {
        let count = left.min(BATCH as u64) as usize;
        let entries = vec![opcode::Nop::new().build(); count];
        // Safety: no-ops point at nothing.
        let results = unsafe { u.submit(&entries, "nop") }?;
        ok += results.iter().filter(|&&r| r == 0).count() as u64;
        left -= count as u64;
    }
    Ok(ok)
}

/// Reads `file` (`size` bytes) to the end in batches of chunks, calling
/// `each` with every chunk in order; stops after the first short one.
fn read_through(
    u: &mut Uring,
    f: &File,
    size: u64,
    mut each: impl FnMut(&[u8]),
) -> io::Result<u64> {
    let reads = reads_of(size);
    let (mut i, mut total) = (0, 0);
    while i < reads {
        let count = (reads - i).min(BATCH as u64) as usize;
        let entries: Vec<_> = (0..count)
            .map(|k| {
                let at = (i + k as u64) * BLOCK;
                read(f, u.buf(k), at)
            })
            .collect();
        // Safety: the entries point into `u.bufs`.
        let results = unsafe { u.submit(&entries, "read") }?;
        for (k, &n) in results.iter().enumerate() {
            each(&u.bufs[k * CHUNK..k * CHUNK + n as usize]);
            total += n;
            if n != BLOCK {
                return Ok(total);
            }
        }
        i += count as u64;
    }
    Ok(total)
}

/// One grep run: the matches in `file`'s chunks.
pub fn grep(u: &mut Uring, file: &str, size: u64) -> io::Result<u64> {
    let f = File::open(file)?;
    let mut found = 0;
    read_through(u, &f, size, |chunk| found += matches(chunk, STRING))?;
    Ok(found)
}

/// One copy run of `source` (`size` bytes) to `target`: a batch of reads,
/// then a batch writing what they read; the bytes written.
pub fn copy(u: &mut Uring, source: &str, size: u64, target: &str) -> io::Result<u64> {
    let from = File::open(source)?;
    let to = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(target)?;
    let reads = reads_of(size);
    let (mut i, mut total) = (0, 0);
    while i < reads {
        let count = (reads - i).min(BATCH as u64) as usize;
        let at = |k: usize| (i + k as u64) * BLOCK;
        let entries: Vec<_> = (0..count).map(|k| read(&from, u.buf(k), at(k))).collect();
        // Safety: the entries point into `u.bufs`.
        let got = unsafe { u.submit(&entries, "read") }?;
        let entries: Vec<_> = got
            .iter()
            .enumerate()
            .map(|(k, &n)| write(&to, &u.buf(k)[..n as usize], at(k)))
            .collect();
        // Safety: the entries point into `u.bufs`.
        let put = unsafe { u.submit(&entries, "write") }?;
        for (n, m) in got.iter().zip(&put) {
            if n != m {
                return Err(io::Error::other(format!("a write of {n} bytes wrote {m}")));
            }
            total += m;
        }
        i += count as u64;
    }
    Ok(total)
}

/// Random block reads, the `i`-th written back (linked after its read)
/// when `back(i)`: dbsim's and bonnie's seekers' loop. Blocks from
/// xorshift64 after `seed`; per read its bytes and offset, per write its
/// bytes.
fn random(
    u: &mut Uring,
    f: &File,
    seed: u64,
    n: u64,
    blocks: u64,
    back: impl Fn(u64) -> bool,
) -> io::Result<u64> {
    let (mut x, mut i, mut total) = (seed, 0, 0);
    while i < n {
        let mut entries = Vec::with_capacity(BATCH);
        let mut offsets = Vec::new();
        let mut k = 0;
        while i < n && entries.len() + 2 <= BATCH {
            x = next(x);
            let at = x % blocks * BLOCK;
            let buf = u.buf(k);
            if back(i) {
                entries.push(read(f, buf, at).flags(squeue::Flags::IO_LINK));
                entries.push(write(f, buf, at));
            } else {
                entries.push(read(f, buf, at));
            }
            offsets.push(at);
            k += 1;
            i += 1;
        }
        // Safety: the entries point into `u.bufs`.
        let results = unsafe { u.submit(&entries, "read or linked write") }?;
        total += results.iter().sum::<u64>() + offsets.iter().sum::<u64>();
    }
    Ok(total)
}

/// One dbsim process's run of `w` on `file`.
pub fn dbsim(u: &mut Uring, file: &str, w: Work) -> io::Result<u64> {
    let f = OpenOptions::new().read(true).write(true).open(file)?;
    random(u, &f, w.seed, w.reads, w.blocks, |i| i & 1 == 1)
}

/// bonnie's seekers: `seeks` blocks from `seed`, every tenth written back.
pub fn seeks(u: &mut Uring, file: &str, seed: u64, seeks: u64, blocks: u64) -> io::Result<u64> {
    let f = OpenOptions::new().read(true).write(true).open(file)?;
    random(u, &f, seed, seeks, blocks, |i| i % 10 == 9)
}

/// Writes `count` pieces of `len` bytes of `bytes` (piece i from
/// `bytes[i * len..]`, or all pieces `bytes` when `len` is its length)
/// at offsets `i * len` to a new `file`: bonnie's putc (len 1) and write.
pub fn write_pieces(
    u: &mut Uring,
    file: &str,
    bytes: &[u8],
    len: usize,
    count: u64,
) -> io::Result<u64> {
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(file)?;
    let (mut i, mut total) = (0, 0);
    while i < count {
        let n = (count - i).min(BATCH as u64);
        let entries: Vec<_> = (i..i + n)
            .map(|j| {
                let piece = if len == bytes.len() {
                    bytes
                } else {
                    &bytes[j as usize * len..(j as usize + 1) * len]
                };
                write(&f, piece, j * len as u64)
            })
            .collect();
        // Safety: the entries point into `bytes`, which outlives the call.
        total += unsafe { u.submit(&entries, "write") }?.iter().sum::<u64>();
        i += n;
    }
    Ok(total)
}

/// bonnie's rewrite: each block read, its first byte set to its number,
/// written back (a batch of reads, then a batch of writes).
pub fn rewrite(u: &mut Uring, file: &str, blocks: u64) -> io::Result<u64> {
    let f = OpenOptions::new().read(true).write(true).open(file)?;
    let (mut i, mut total) = (0, 0);
    while i < blocks {
        let count = (blocks - i).min(BATCH as u64) as usize;
        let at = |k: usize| (i + k as u64) * BLOCK;
        let entries: Vec<_> = (0..count).map(|k| read(&f, u.buf(k), at(k))).collect();
        // Safety: the entries point into `u.bufs`.
        let got = unsafe { u.submit(&entries, "read") }?;
        let entries: Vec<_> = got
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                let block = u.buf(k);
                block[0] = (i + k as u64) as u8;
                write(&f, &block[..n as usize], at(k))
            })
            .collect();
        // Safety: the entries point into `u.bufs`.
        total += unsafe { u.submit(&entries, "write") }?.iter().sum::<u64>();
        i += count as u64;
    }
    Ok(total)
}

/// bonnie's read: the bytes << 32 plus the chained CRC-32C of the blocks.
pub fn read_crc(u: &mut Uring, file: &str, size: u64) -> io::Result<u64> {
    let f = File::open(file)?;
    let mut crc = 0;
    let total = read_through(u, &f, size, |block| crc = crc32c(crc, block))?;
    Ok((total << 32) + u64::from(crc))
}

/// One `ls -l` of directory `fd`'s path: getdents64, then a STATX batch
/// per [`BATCH`] names; the entries.
pub fn ls_l(
    u: &mut Uring,
    fd: i32,
    list: &mut [u8],
    names: &mut Vec<(usize, usize)>,
) -> io::Result<u64> {
    dirents::list(fd, list, names, |filled, names| {
        for group in names.chunks(BATCH) {
            let entries: Vec<_> = group
                .iter()
                .zip(u.stx.iter_mut())
                .map(|(&(from, _), out)| {
                    let out: *mut libc::statx = out;
                    opcode::Statx::new(types::Fd(fd), filled[from..].as_ptr().cast(), out.cast())
                        .flags(libc::AT_SYMLINK_NOFOLLOW)
                        .mask(libc::STATX_BASIC_STATS)
                        .build()
                })
                .collect();
            // Safety: the names lie NUL-terminated in `filled`, which
            // outlives the call; the records go to `u.stx`.
            unsafe { u.submit(&entries, "statx") }?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// io_uring may be refused in a host's sandbox (seccomp); the guest
    /// always has it. The tests say so rather than pass silently.
    fn ring_or_skip() -> Option<Uring> {
        match Uring::new() {
            Ok(u) => Some(u),
            Err(e) => {
                eprintln!("io_uring unavailable on this host ({e}); test skipped");
                None
            }
        }
    }

    #[test]
    fn grep_copy_and_dbsim_answer_as_their_system_call_runs() {
        let Some(mut u) = ring_or_skip() else { return };
        let dir = std::env::temp_dir().join(format!("linux-peer-uring-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("src.bin");
        // 40 blocks and a bit: more than one batch, a short last read.
        let data: Vec<u8> = (0..40 * CHUNK + 100).map(|i| b"xcfy"[i % 4]).collect();
        std::fs::write(&src, &data).unwrap();
        let (src, size) = (src.to_str().unwrap(), data.len() as u64);
        let want: u64 = data.chunks(CHUNK).map(|c| matches(c, STRING)).sum();
        assert_eq!(grep(&mut u, src, size).unwrap(), want);
        let out = dir.join("out.bin");
        assert_eq!(
            copy(&mut u, src, size, out.to_str().unwrap()).unwrap(),
            size
        );
        assert_eq!(std::fs::read(&out).unwrap(), data);
        let w = Work {
            reads: 70,
            blocks: 40,
            seed: 5,
        };
        assert_eq!(
            dbsim(&mut u, src, w).unwrap(),
            super::super::dbsim::answer_of(w)
        );
        assert_eq!(nops(&mut u, 33).unwrap(), 33);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
