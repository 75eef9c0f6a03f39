//! fs-ops on Linux: what one file operation costs through Linux's
//! system calls (`linux-syscall`) and through io_uring
//! (`linux-io_uring`), on the ext4 disk Conflux's `bench fs-ops` uses,
//! mounted from virtio-blk. As on Conflux (`apps/bench/cosybench/src/fs_ops`):
//! each plan line runs one untimed warm-up round (which warms the page
//! cache where Conflux's caches are warm) and then ROUNDS timed ones; a
//! sample is the TSC across one run of N operations divided by N, and a
//! run must answer the calls, bytes or entries N operations make.
//!
//! io_uring runs submit up to [`ring::BATCH`] entries per
//! `io_uring_enter` (the analogue of Conflux's compound, which makes N
//! operations per IPC); open-close and open-read-close are linked chains
//! on direct descriptors (open into a slot, read and close the slot), so
//! a chain needs no round trip to user space. io_uring has no getdents:
//! readdir is syscall-only, and io_uring's readdirplus lists with
//! getdents64 and stats each batch of entries with STATX.

use std::ffi::CString;
use std::io;

use io_uring::{opcode, squeue, types};

use crate::ipc::check;
use crate::plan::{Op, Step};
use crate::report::{rdtsc, Checks, Samples};
use crate::ring::{Ring, BATCH};

pub mod dirents;
pub mod sys;
mod uring;

/// The two ways to make the calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Syscall,
    IoUring,
}

impl Via {
    pub fn config(self) -> &'static str {
        match self {
            Via::Syscall => "linux-syscall",
            Via::IoUring => "linux-io_uring",
        }
    }
}

/// Where the bytes of one 4 KiB block or 64 KiB chunk go.
const BLOCK: usize = 4096;
const CHUNK: usize = 65536;
/// Slots of direct descriptors one batch of chains uses.
const SLOTS: u32 = BATCH as u32;

/// A plan line's work, looked up once before the rounds.
pub struct Work<'a> {
    pub step: &'a Step,
    /// The file or directory (under the mount point).
    pub path: CString,
    /// pread, pwrite: the file's whole 4 KiB blocks (the offsets cycle).
    pub blocks: u64,
    /// open-read-close: the N files' paths.
    pub names: Vec<CString>,
    /// What pwrite writes.
    pub block: Vec<u8>,
}

/// Buffers a run reads into, made once per plan line (outside the timed
/// runs).
pub struct Scratch {
    /// One block or chunk per entry of a batch.
    pub bufs: Vec<u8>,
    /// One `statx` record per entry of a batch.
    pub stx: Vec<libc::statx>,
    /// What getdents64 fills, and where its names lie.
    pub list: Vec<u8>,
    pub names: Vec<(usize, usize)>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            bufs: vec![0; BATCH * CHUNK],
            stx: (0..BATCH)
                // Safety: `statx` is plain integers, for which all zeroes is valid.
                .map(|_| unsafe { std::mem::zeroed() })
                .collect(),
            list: vec![0; dirents::LIST_BUF],
            names: Vec::with_capacity(dirents::LIST_BUF / 24),
        }
    }
}

impl<'a> Work<'a> {
    fn new(step: &'a Step) -> io::Result<Work<'a>> {
        let full = step.path.clone();
        let path = CString::new(full.clone()).map_err(io::Error::other)?;
        let mut blocks = 0;
        if matches!(step.op, Op::Pread | Op::Pwrite) {
            blocks = std::fs::metadata(&full)?.len() / BLOCK as u64;
            if blocks == 0 {
                return Err(io::Error::other(format!(
                    "{full} holds no whole 4 KiB block"
                )));
            }
        }
        let names = match step.op {
            Op::OpenReadClose => (0..step.n)
                .map(|i| CString::new(format!("{full}/f{i:05}")).map_err(io::Error::other))
                .collect::<io::Result<_>>()?,
            _ => Vec::new(),
        };
        let block = vec![0x5a; BLOCK];
        Ok(Work {
            step,
            path,
            blocks,
            names,
            block,
        })
    }

    /// The offset of the `i`th block a pread or pwrite run touches.
    fn block_offset(&self, i: u64) -> u64 {
        (i % self.blocks) * BLOCK as u64
    }
}

/// Whether `via` has operation `op` (io_uring has no getdents).
pub fn has(via: Via, op: Op) -> bool {
    !(via == Via::IoUring && op == Op::Readdir)
}

/// Runs every plan step (on the disk, which is the root directory now).
pub fn run(checks: &mut Checks, steps: &[Step]) {
    let mut ring = match Ring::new(SLOTS) {
        Ok(r) => Some(r),
        Err(e) => {
            checks.that("io_uring ring with direct-descriptor slots", false, e);
            None
        }
    };
    for step in steps {
        let label = format!("fs-ops {} {} {}", step.op.name(), step.n, step.path);
        let work = match Work::new(step) {
            Ok(w) => w,
            Err(e) => {
                checks.that(&label, false, e);
                continue;
            }
        };
        let vias: Vec<Via> = [Via::Syscall, Via::IoUring]
            .into_iter()
            .filter(|v| has(*v, step.op) && (*v == Via::Syscall || ring.is_some()))
            .collect();
        let mut samples: Vec<Samples> = vias
            .iter()
            .map(|v| Samples::new("fs-ops", v.config(), step.op.name(), step.rounds as usize))
            .collect();
        let want = step.op.expected(step.n);
        let mut scratch = Scratch::new();
        'rounds: for round in 0..=step.rounds {
            for (via, s) in vias.iter().zip(samples.iter_mut()) {
                let t0 = rdtsc();
                let answer = match via {
                    Via::Syscall => sys::run(&work, &mut scratch),
                    Via::IoUring => {
                        uring::run(&work, ring.as_mut().expect("filtered above"), &mut scratch)
                    }
                };
                let took = rdtsc() - t0;
                let what = format!("{label} {} round {round}", via.config());
                match answer {
                    Ok(got) if got == want => {}
                    Ok(got) => {
                        checks.that(&what, false, format!("answered {got}, not {want}"));
                        break 'rounds;
                    }
                    Err(e) => {
                        checks.that(&what, false, e);
                        break 'rounds;
                    }
                }
                if round > 0 {
                    s.push(took / step.n);
                }
            }
        }
        checks.that(&format!("{label}: every run answered {want}"), true, "");
        for s in samples {
            s.report();
        }
    }
}

/// A result of a read or write: the bytes, or the error it is.
fn bytes(r: isize) -> io::Result<u64> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as u64)
    }
}

/// Opens `path` with `flags` (a plain syscall: the file a pread, pwrite or
/// read-64k run works on is opened once per run on both paths).
fn open(path: &CString, flags: i32) -> io::Result<i32> {
    // Safety: `path` is NUL-terminated and outlives the call.
    check(unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) })
}

fn close(fd: i32) {
    // Safety: closes a descriptor the caller opened and no longer uses.
    unsafe { libc::close(fd) };
}

/// An io_uring result as the bytes or count it carries.
fn uresult(r: i32, what: &str) -> io::Result<u64> {
    if r < 0 {
        Err(io::Error::other(format!(
            "io_uring {what}: {}",
            io::Error::from_raw_os_error(-r)
        )))
    } else {
        Ok(r as u64)
    }
}

/// The entry reading block-sized or chunk-sized piece `i` of a batch.
fn read_entry(fd: types::Fd, buf: &mut [u8], offset: u64) -> squeue::Entry {
    opcode::Read::new(fd, buf.as_mut_ptr(), buf.len() as u32)
        .offset(offset)
        .build()
}
