//! dbsim and `ls -l` through each path to the file server, for the rings
//! benchmark (`cargo make bench rings`, `apps/bench/ringbench` and its
//! client tasks `apps/bench/ringbench-client`): the same work
//! ([`crate::dbsim`]'s blocks, [`crate::ls_l`]'s listing) and the same
//! compounds (COSY-FAST's, over the control region), carried four ways:
//!
//! - [`Path::Calls`]: one synchronous IPC per operation (VAN);
//! - [`Path::Compound`]: the whole request as one compound, by IPC;
//! - [`Path::RingOps`]: each operation its own ring entry, as FlexSC
//!   posts each system call; operations that need an earlier one's value
//!   (the handle `open` gives, the count `readdir` gives) wait for it,
//!   the rest go in batches of up to the depth, one doorbell (if asked)
//!   per batch. The server serves a ring's entries in order, so a block
//!   written back after its read goes in the same batch as the read;
//! - [`Path::RingCompound`]: the whole request as one compound ring
//!   entry.
//!
//! Every path must give the same answer: dbsim's bytes moved plus the
//! blocks' offsets ([`crate::work::expected`]), `ls -l`'s entries listed.
//! Buffers are in the control region (region 0), which the ring entries
//! see too (the ring's own region reads as empty to them).

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, Operand};
use conflux_fs_protocol::ops::{self, O_DIRECTORY, O_RDWR};
use cosy_abi::ring::DEPTH;
use cosy_abi::BuildError;

use crate::layout::{put_path, CHUNK, CHUNK_LEN, PATH_A, PATH_LEN};
use crate::ls_l::{BATCH_BYTES, DIRENT, ENTRIES, NAME_AT, NAME_LEN, STATS, STAT_LEN};
pub use crate::many::Path;
use crate::work::{next, Work, BLOCK};
use crate::{dbsim, ls_l, run_in};

/// The compounds of one client: dbsim's for its work and the listing,
/// both over the control region.
pub struct Compounds {
    pub dbsim: Vec<u8>,
    pub ls_l: Vec<u8>,
}

impl Compounds {
    pub fn new(w: Work) -> Result<Compounds, BuildError> {
        Ok(Compounds {
            dbsim: dbsim::in_place(0, w)?,
            ls_l: ls_l::compound(Some(0)).build()?,
        })
    }
}

/// One dbsim request (`w` on `file`) through `path`; its answer.
pub fn dbsim(fs: &mut Fs, path: Path, c: &Compounds, file: &str, w: Work) -> Result<u64, Error> {
    match path {
        Path::Calls => dbsim::van(fs, file, w),
        Path::Compound => run_in(fs, 0, &c.dbsim, |m| put_path(m, PATH_A, file)),
        Path::RingOps => dbsim_ring_ops(fs, file, w),
        Path::RingCompound => ring_compound(fs, &c.dbsim, file),
    }
}

/// One `ls -l` of `dir` through `path`; the entries listed.
pub fn ls_l(fs: &mut Fs, path: Path, c: &Compounds, dir: &str) -> Result<u64, Error> {
    match path {
        Path::Calls => ls_l::van(fs, dir),
        Path::Compound => run_in(fs, 0, &c.ls_l, |m| put_path(m, PATH_A, dir)),
        Path::RingOps => ls_l_ring_ops(fs, dir),
        Path::RingCompound => ring_compound(fs, &c.ls_l, dir),
    }
}

/// A buffer operand in the control region.
fn buf(offset: u32, len: u32) -> Operand {
    Operand::Buf {
        region: 0,
        offset,
        len,
    }
}

/// Places `path` at [`PATH_A`] of the control region.
fn place(fs: &mut Fs, path: &str) -> Result<(), Error> {
    if put_path(fs.control(), PATH_A, path) {
        Ok(())
    } else {
        Err(Error::TooLarge)
    }
}

/// Rings the doorbell if the server asked, then reaps `n` answers; the
/// sum of their values. An entry that failed is the request's error.
fn drain(fs: &mut Fs, n: u32) -> Result<u64, Error> {
    fs.ring_flush()?;
    let mut sum = 0;
    for _ in 0..n {
        let r = fs.ring_wait()?;
        if !r.completion.is_ok() {
            return Err(Error::Request(r.completion.status));
        }
        sum += r.completion.value;
    }
    Ok(sum)
}

/// One operation as one ring entry, waited for; its value.
fn ring_call(fs: &mut Fs, op: u16, operands: &[Operand]) -> Result<u64, Error> {
    fs.ring_submit(op, operands)?;
    drain(fs, 1)
}

/// Submits an entry, first reaping everything in flight if the ring
/// holds `DEPTH - room + 1` already (so `room` more always fit); `sum`
/// gathers the reaped values.
fn submit(
    fs: &mut Fs,
    in_flight: &mut u32,
    sum: &mut u64,
    room: u32,
    op: u16,
    operands: &[Operand],
) -> Result<(), Error> {
    if *in_flight + room > DEPTH {
        *sum += drain(fs, *in_flight)?;
        *in_flight = 0;
    }
    fs.ring_submit(op, operands)?;
    *in_flight += 1;
    Ok(())
}

/// dbsim with each read and write its own ring entry (VAN's loop, the
/// block in the control region's chunk).
fn dbsim_ring_ops(fs: &mut Fs, file: &str, w: Work) -> Result<u64, Error> {
    place(fs, file)?;
    let fd = ring_call(
        fs,
        ops::OPEN,
        &[
            buf(PATH_A, PATH_LEN),
            Operand::Value(O_RDWR),
            Operand::Value(0),
        ],
    )?;
    let block = buf(CHUNK, CHUNK_LEN);
    let (mut x, mut total, mut in_flight) = (w.seed, 0u64, 0u32);
    for i in 0..w.reads {
        x = next(x);
        let at = x % w.blocks * BLOCK;
        total += at;
        let io = [
            Operand::Value(fd),
            block,
            Operand::Value(BLOCK),
            Operand::Value(at),
        ];
        // A read and its write-back go in one batch, read first.
        submit(fs, &mut in_flight, &mut total, 2, ops::PREAD, &io)?;
        if i & 1 == 1 {
            submit(fs, &mut in_flight, &mut total, 1, ops::PWRITE, &io)?;
        }
    }
    total += drain(fs, in_flight)?;
    ring_call(fs, ops::CLOSE, &[Operand::Value(fd)])?;
    Ok(total)
}

/// `ls -l` with each `readdir` and each `statat` its own ring entry: a
/// batch's stats go in flight together.
fn ls_l_ring_ops(fs: &mut Fs, dir: &str) -> Result<u64, Error> {
    place(fs, dir)?;
    let fd = ring_call(
        fs,
        ops::OPEN,
        &[
            buf(PATH_A, PATH_LEN),
            Operand::Value(O_DIRECTORY),
            Operand::Value(0),
        ],
    )?;
    let listing = [
        Operand::Value(fd),
        buf(ENTRIES, BATCH_BYTES),
        Operand::Value(u64::from(BATCH_BYTES)),
    ];
    let mut total = 0;
    loop {
        let n = ring_call(fs, ops::READDIR, &listing)?;
        if n == 0 {
            break;
        }
        if n > u64::from(ls_l::BATCH) {
            // More entries than the batch holds: the offsets below would
            // name bytes past it.
            return Err(Error::Request(cosy_abi::code::REF_OUT_OF_BOUNDS));
        }
        let (mut in_flight, mut ignored) = (0, 0);
        for i in 0..n {
            // Entry i's name and stat, as the compound's `buf_at`s.
            let name = buf(NAME_AT + (i * DIRENT) as u32, NAME_LEN);
            let stat = buf(STATS + (i * STAT_LEN) as u32, STAT_LEN as u32);
            let operands = [Operand::Value(fd), name, stat];
            submit(fs, &mut in_flight, &mut ignored, 1, ops::STATAT, &operands)?;
        }
        drain(fs, in_flight)?;
        total += n;
    }
    ring_call(fs, ops::CLOSE, &[Operand::Value(fd)])?;
    Ok(total)
}

/// A whole request as one compound ring entry, `path` placed first; its
/// exit value.
fn ring_compound(fs: &mut Fs, compound: &[u8], path: &str) -> Result<u64, Error> {
    place(fs, path)?;
    fs.ring_submit_compound(compound, &[])?;
    drain(fs, 1)
}
