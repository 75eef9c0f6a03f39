//! Database simulation (FSL-02-01 §4.3, after pgmeter's database load):
//! random 4 KiB blocks of a file read with `pread`, and every second
//! block read written back with `pwrite` (2 reads : 1 write). The blocks
//! come from xorshift64 (shifts 13, 7, 17) from a seed — [`seed`] of the
//! process's number, so the processes of a multi-process run touch
//! different blocks — computed by the app in VAN and by the compound's
//! own arithmetic in COSY and COSY-FAST, so every configuration touches
//! the same blocks. The file's bytes never change (each write puts back
//! what was read, and concurrent processes write the same bytes). The
//! answer every configuration must agree on is the bytes moved plus the
//! sum of the blocks' offsets.
//!
//! COSY copies each block read from the read's buffer into the app's
//! buffer, and each block written from the app's buffer into the write's
//! buffer first (`COPY`, [`crate::Config`]); COSY-FAST reads into and
//! writes from the app's buffer in the data region.

use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_RDWR};
use cosy_abi::BuildError;
use cosy_macro::cosy;

use crate::layout::{put_path, APP, CHUNK, CHUNK_LEN, PATH_A, PATH_LEN};
pub use crate::work::{next, seed, Work, BLOCK, SEED};
use crate::{run_in, Config};

/// COSY-FAST's compound: the transactions over the app's buffer in
/// `region`, written with `cosy!` from [`van`]'s loop; exit value: the
/// bytes read and written plus the sum of the blocks' offsets (so a
/// wrong block sequence shows).
pub fn in_place(region: u8, w: Work) -> Result<Vec<u8>, BuildError> {
    let (reads, blocks, seed) = (w.reads, w.blocks, w.seed);
    cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
        let path = buf(region, PATH_A, PATH_LEN);
        let block = buf(region, CHUNK, CHUNK_LEN);
        let fd = open(path, O_RDWR, 0);
        let mut x = seed;
        let mut total = 0;
        for i in 0..reads {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = x % blocks * BLOCK;
            total += pread(fd, block, BLOCK, at) + at;
            if i & 1 == 1 {
                total += pwrite(fd, block, BLOCK, at);
            }
        }
        close(fd);
        total
    })
    .build()
}

/// COSY's compound: as [`in_place`] in the control region, each block
/// read copied into the app's buffer and each block written copied out
/// of it first.
pub fn copying(w: Work) -> Result<Vec<u8>, BuildError> {
    let (reads, blocks, seed) = (w.reads, w.blocks, w.seed);
    cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
        let path = buf(0, PATH_A, PATH_LEN);
        let block = buf(0, CHUNK, CHUNK_LEN);
        let app = buf(0, APP, CHUNK_LEN);
        let fd = open(path, O_RDWR, 0);
        let mut x = seed;
        let mut total = 0;
        for i in 0..reads {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = x % blocks * BLOCK;
            let n = pread(fd, block, BLOCK, at);
            copy(app, block, n);
            total += n + at;
            if i & 1 == 1 {
                copy(block, app, BLOCK);
                total += pwrite(fd, block, BLOCK, at);
            }
        }
        close(fd);
        total
    })
    .build()
}

/// A process's compounds for one work.
pub struct Compounds {
    pub cosy: Vec<u8>,
    /// Over the data region.
    pub fast: Vec<u8>,
}

/// A process's compounds for `w`, COSY-FAST's over data region `data`.
pub fn compounds(data: u8, w: Work) -> Result<Compounds, BuildError> {
    Ok(Compounds {
        cosy: copying(w)?,
        fast: in_place(data, w)?,
    })
}

/// One IPC per read and per write, the block in the app's buffer.
pub fn van(fs: &mut Fs, file: &str, w: Work) -> Result<u64, Error> {
    let fd = fs.open(file, O_RDWR, 0)?;
    let mut block = vec![0u8; BLOCK as usize];
    let (mut x, mut total) = (w.seed, 0u64);
    for i in 0..w.reads {
        x = next(x);
        let at = x % w.blocks * BLOCK;
        total += fs.pread(fd, &mut block, at)? as u64 + at;
        if i & 1 == 1 {
            total += fs.pwrite(fd, &block, at)? as u64;
        }
    }
    fs.close(fd)?;
    Ok(total)
}

/// One run of `w` on `file` in `config`: `compounds` are the process's
/// ([`compounds`]), `data` the data region's number.
pub fn run(
    fs: &mut Fs,
    config: Config,
    data: u8,
    compounds: &Compounds,
    file: &str,
    w: Work,
) -> Result<u64, Error> {
    let place = |m: &mut [u8]| put_path(m, PATH_A, file);
    match config {
        Config::Van => van(fs, file, w),
        Config::Cosy => run_in(fs, 0, &compounds.cosy, place),
        Config::CosyFast => run_in(fs, data, &compounds.fast, place),
    }
}
