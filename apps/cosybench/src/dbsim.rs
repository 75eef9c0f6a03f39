//! Database simulation (FSL-02-01 §4.3, after pgmeter's database load):
//! random 4 KiB blocks of a file read with `pread`, and every second block
//! read written back with `pwrite` (2 reads : 1 write), one client. The
//! blocks come from xorshift64 (shifts 13, 7, 17) from [`SEED`], computed
//! by the app in VAN and by the compound's own arithmetic in COSY and
//! COSY-FAST, so every configuration touches the same blocks; the file's
//! bytes never change (each write puts back what was read). The answer
//! every configuration must agree on is the bytes moved plus the sum of
//! the blocks' offsets.
//!
//! Plan parameters: the file, then the number of reads per run; the
//! record's parameter is `SIZE-1-proc-READS` (the paper ran growing
//! files: one far larger than the file server's cache is bound by the
//! disk, one that fits shows what compounds save).

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::Error;
use conflux_fs_protocol::ops::{self, O_RDWR};
use cosy_abi::BuildError;
use cosy_macro::cosy;

use crate::copy::size_name;
use crate::layout::{put_path, CHUNK, CHUNK_LEN, PATH_A, PATH_LEN};
use crate::measure::{self, Config};
use crate::plan::{self, Step};
use crate::Bench;

/// Where the block sequence starts (never 0: xorshift would stay there).
pub const SEED: u64 = 0x2545_f491_4f6c_dd1d;
const BLOCK: u64 = CHUNK_LEN as u64;

/// The next state of xorshift64.
pub fn next(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// `reads` transactions over a file of `blocks` blocks as one compound
/// over buffers in `region`, written with `cosy!` from [`van`]'s loop;
/// exit value: the bytes read and written plus the sum of the blocks'
/// offsets (so a wrong block sequence shows).
pub fn compound(region: u8, reads: u64, blocks: u64) -> Result<Vec<u8>, BuildError> {
    cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
        let path = buf(region, PATH_A, PATH_LEN);
        let block = buf(region, CHUNK, CHUNK_LEN);
        let fd = open(path, O_RDWR, 0);
        let mut x = SEED;
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

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let Some((file, counts)) = step.params.split_first() else {
        return;
    };
    let blocks = match b.fs.stat(file) {
        Ok(st) if st.size >= BLOCK => st.size / BLOCK,
        other => {
            let what = format!("dbsim: {file} is a file of at least one block");
            return b.checks.that(&what, false, other);
        }
    };
    for count in counts {
        let Some(reads) = plan::length(count) else {
            let what = format!("dbsim: reads `{count}` is a whole number from 1 to 100000");
            return b.checks.that(&what, false, ());
        };
        let Some((cosy, fast)) = b.compounds("dbsim", |r| compound(r, reads, blocks)) else {
            return;
        };
        let param = format!("{}-1-proc-{reads}", size_name(blocks * BLOCK));
        let configs = [Config::Van, Config::Cosy, Config::CosyFast];
        measure::rounds(
            b,
            "dbsim",
            &param,
            step.rounds,
            &configs,
            |b, config| match config {
                Config::Van => van(b, file, reads, blocks),
                Config::Cosy => in_compound(b, 0, &cosy, file),
                Config::CosyFast => {
                    let data = b.data;
                    in_compound(b, data, &fast, file)
                }
            },
        );
    }
}

/// One IPC per read and per write, the block in the app's buffer.
fn van(b: &mut Bench, file: &str, reads: u64, blocks: u64) -> Result<u64, Error> {
    let fd = b.fs.open(file, O_RDWR, 0)?;
    let mut block = vec![0u8; BLOCK as usize];
    let (mut x, mut total) = (SEED, 0u64);
    for i in 0..reads {
        x = next(x);
        let at = x % blocks * BLOCK;
        total += b.fs.pread(fd, &mut block, at)? as u64 + at;
        if i & 1 == 1 {
            total += b.fs.pwrite(fd, &block, at)? as u64;
        }
    }
    b.fs.close(fd)?;
    Ok(total)
}

/// The compound over `region` (0: control), the path put in first.
fn in_compound(b: &mut Bench, region: u8, compound: &[u8], file: &str) -> Result<u64, Error> {
    b.run_compound(region, compound, |m| put_path(m, PATH_A, file))
}
