//! bonnie-like (FSL-02-01 §4.3, after Bonnie): the phases of Bonnie on
//! one file, each timed on its own, in order:
//!
//! - `putc-N`: N one-byte writes to a new file (Bonnie's per-character
//!   `putc` loop, not through a stdio buffer): VAN makes one IPC per
//!   byte; the compound loops over the app's N bytes. N is far below
//!   Bonnie's whole file: 32 Mi one-byte IPCs would take hours under
//!   TCG, so the plan says N and the parameter carries it.
//! - `write`: the file written in 4 KiB blocks (created, truncated).
//! - `rewrite`: each block read, its first byte changed (to the block's
//!   number), written back in place (`pread` + `pwrite`: Bonnie's
//!   `read`, `lseek` back, `write`).
//! - `read`: the file read in 4 KiB blocks, each block's CRC-32C chained
//!   into a checksum (the data is used, and checked: the answer is the
//!   bytes read << 32 plus the checksum).
//! - `seeks-N`: N random blocks (xorshift64) sought and read, every
//!   tenth written back (Bonnie's seekers dirty one in ten).
//!
//! COSY copies each block (or byte) between the operation's buffer and
//! the app's buffer (`COPY`), COSY-FAST's operations use the app's buffer
//! in the data region (`cosybench_core::Config`). Every phase's answer
//! (bytes moved, plus offsets or the checksum) must be VAN's.
//!
//! Plan parameters: the file, its size in bytes (whole 4 KiB blocks),
//! the bytes of `putc`, the seeks.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_CREAT, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY, SEEK_SET};
use cosy_abi::{crc32c, BuildError};
use cosy_macro::cosy;
use cosybench_core::dbsim::{next, BLOCK};
use cosybench_core::layout::{put_path, APP, CHUNK, CHUNK_LEN, PATH_A, PATH_LEN};

use crate::measure::{self, Config};
use crate::plan::Step;
use crate::Bench;

const CREATE: u64 = O_WRONLY | O_CREAT | O_TRUNC;
/// Where the seekers' block sequence starts.
const SEEK_SEED: u64 = 0x6a09_e667_f3bc_c908;
/// The largest `putc` count: the app's buffer ([`cosybench_core::layout::APP_LEN`]).
const MAX_CHARS: u64 = cosybench_core::layout::APP_LEN as u64;

/// A phase of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Putc,
    Write,
    Rewrite,
    Read,
    Seeks,
}

/// What the phases run with.
#[derive(Clone, Copy)]
struct Sizes {
    blocks: u64,
    chars: u64,
    seeks: u64,
}

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let [file, size, chars, seeks] = step.params[..] else {
        let what = "bonnie: parameters are FILE SIZE PUTC-BYTES SEEKS";
        return b.checks.that(what, false, &step.params);
    };
    let number = |w: &str| w.parse::<u64>().ok().filter(|n| *n > 0);
    let sizes = match (number(size), number(chars), number(seeks)) {
        (Some(s), Some(c), Some(k)) if s % BLOCK == 0 && c <= MAX_CHARS => Sizes {
            blocks: s / BLOCK,
            chars: c,
            seeks: k,
        },
        _ => {
            let what = format!(
                "bonnie: size `{size}` (whole 4 KiB blocks), putc bytes `{chars}` (1 to {MAX_CHARS}), seeks `{seeks}` are positive numbers"
            );
            return b.checks.that(&what, false, ());
        }
    };
    let putc_file = format!("{file}.putc");
    let phases = [
        (
            Phase::Putc,
            format!("putc-{}", sizes.chars),
            putc_file.as_str(),
        ),
        (Phase::Write, "write".into(), file),
        (Phase::Rewrite, "rewrite".into(), file),
        (Phase::Read, "read".into(), file),
        (Phase::Seeks, format!("seeks-{}", sizes.seeks), file),
    ];
    // The app's bytes: what putc and the block writes write.
    let data: Vec<u8> = (0..MAX_CHARS).map(|i| (i % 95) as u8 + b' ').collect();
    for (phase, param, path) in phases {
        let built = (
            compound(phase, None, sizes),
            compound(phase, Some(b.data), sizes),
        );
        let (cosy, fast) = match built {
            (Ok(c), Ok(f)) => (c, f),
            (c, f) => {
                let what = format!("bonnie {param}: build the compounds");
                return b.checks.that(&what, false, (c.err(), f.err()));
            }
        };
        let bytes = match phase {
            Phase::Putc => &data[..sizes.chars as usize],
            _ => &data[..CHUNK_LEN as usize],
        };
        measure::rounds(
            b,
            "bonnie",
            &param,
            step.rounds,
            &Config::ALL,
            |b, config| {
                match config {
                    Config::Van => van(&mut b.fs, phase, path, sizes, bytes),
                    Config::Cosy => in_compound(b, 0, APP, &cosy, path, bytes),
                    Config::CosyFast => {
                        let data = b.data;
                        in_compound(b, data, CHUNK, &fast, path, bytes)
                    }
                }
                .map_err(|e| format!("{e}"))
            },
        );
    }
}

/// The compound over `region` (0: control), the path and the app's
/// bytes (at `at`) put in first; one IPC.
fn in_compound(
    b: &mut Bench,
    region: u8,
    at: u32,
    compound: &[u8],
    path: &str,
    bytes: &[u8],
) -> Result<u64, Error> {
    b.run_compound(region, compound, |m| {
        let place = at as usize..at as usize + bytes.len();
        put_path(m, PATH_A, path) && m.get_mut(place).map(|d| d.copy_from_slice(bytes)).is_some()
    })
}

/// One IPC per operation, the data in the app's buffers.
fn van(fs: &mut Fs, phase: Phase, path: &str, s: Sizes, bytes: &[u8]) -> Result<u64, Error> {
    let mut total = 0u64;
    match phase {
        Phase::Putc => {
            let fd = fs.open(path, CREATE, 0o644)?;
            for ch in bytes.chunks(1) {
                total += fs.write(fd, ch)? as u64;
            }
            fs.close(fd)?;
        }
        Phase::Write => {
            let fd = fs.open(path, CREATE, 0o644)?;
            for _ in 0..s.blocks {
                total += fs.write(fd, bytes)? as u64;
            }
            fs.close(fd)?;
        }
        Phase::Rewrite => {
            let fd = fs.open(path, O_RDWR, 0)?;
            let mut block = vec![0u8; BLOCK as usize];
            for i in 0..s.blocks {
                let n = fs.pread(fd, &mut block, i * BLOCK)?;
                block[0] = i as u8;
                total += fs.pwrite(fd, &block[..n], i * BLOCK)? as u64;
            }
            fs.close(fd)?;
        }
        Phase::Read => {
            let fd = fs.open(path, O_RDONLY, 0)?;
            let mut block = vec![0u8; BLOCK as usize];
            let mut crc = 0;
            loop {
                let n = fs.read(fd, &mut block)?;
                crc = crc32c(crc, &block[..n]);
                total += n as u64;
                if n != block.len() {
                    break;
                }
            }
            fs.close(fd)?;
            total = (total << 32) + u64::from(crc);
        }
        Phase::Seeks => {
            let fd = fs.open(path, O_RDWR, 0)?;
            let mut block = vec![0u8; BLOCK as usize];
            let mut x = SEEK_SEED;
            for i in 0..s.seeks {
                x = next(x);
                let at = x % s.blocks * BLOCK;
                fs.seek(fd, at as i64, SEEK_SET)?;
                let n = fs.read(fd, &mut block)?;
                total += n as u64 + at;
                if i % 10 == 9 {
                    fs.seek(fd, at as i64, SEEK_SET)?;
                    total += fs.write(fd, &block[..n])? as u64;
                }
            }
            fs.close(fd)?;
        }
    }
    Ok(total)
}

/// `phase` as a compound: COSY's (`fast` = `None`: in the control
/// region, each operation's data copied to or from the app's buffer at
/// `APP`) or COSY-FAST's (over the app's buffer at `CHUNK` of data region
/// `fast`), written with `cosy!` from [`van`]'s loops.
fn compound(phase: Phase, fast: Option<u8>, s: Sizes) -> Result<Vec<u8>, BuildError> {
    let (blocks, chars, seeks) = (s.blocks, s.chars, s.seeks);
    match (phase, fast) {
        (Phase::Putc, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH_A, PATH_LEN);
                let mut at = 0;
                let ch = buf_at(region, at, CHUNK, 1);
                let fd = open(path, CREATE, 0o644);
                let mut total = 0;
                for i in 0..chars {
                    at = i;
                    total += write(fd, ch, 1);
                }
                close(fd);
                total
            })
            .build()
        }
        (Phase::Putc, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let one = buf(0, CHUNK, 1);
            let mut at = 0;
            let ch = buf_at(0, at, APP, 1);
            let fd = open(path, CREATE, 0o644);
            let mut total = 0;
            for i in 0..chars {
                at = i;
                copy(one, ch, 1);
                total += write(fd, one, 1);
            }
            close(fd);
            total
        })
        .build(),
        (Phase::Write, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH_A, PATH_LEN);
                let block = buf(region, CHUNK, CHUNK_LEN);
                let fd = open(path, CREATE, 0o644);
                let mut total = 0;
                for _ in 0..blocks {
                    total += write(fd, block, BLOCK);
                }
                close(fd);
                total
            })
            .build()
        }
        (Phase::Write, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let block = buf(0, CHUNK, CHUNK_LEN);
            let app = buf(0, APP, CHUNK_LEN);
            let fd = open(path, CREATE, 0o644);
            let mut total = 0;
            for _ in 0..blocks {
                copy(block, app, BLOCK);
                total += write(fd, block, BLOCK);
            }
            close(fd);
            total
        })
        .build(),
        (Phase::Rewrite, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH_A, PATH_LEN);
                let block = buf(region, CHUNK, CHUNK_LEN);
                let first = buf(region, CHUNK, 1);
                let fd = open(path, O_RDWR, 0);
                let mut total = 0;
                for i in 0..blocks {
                    let at = i * BLOCK;
                    let n = pread(fd, block, BLOCK, at);
                    fill(first, i & 255, 1);
                    total += pwrite(fd, block, n, at);
                }
                close(fd);
                total
            })
            .build()
        }
        (Phase::Rewrite, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let block = buf(0, CHUNK, CHUNK_LEN);
            let app = buf(0, APP, CHUNK_LEN);
            let first = buf(0, APP, 1);
            let fd = open(path, O_RDWR, 0);
            let mut total = 0;
            for i in 0..blocks {
                let at = i * BLOCK;
                let n = pread(fd, block, BLOCK, at);
                copy(app, block, n);
                fill(first, i & 255, 1);
                copy(block, app, n);
                total += pwrite(fd, block, n, at);
            }
            close(fd);
            total
        })
        .build(),
        (Phase::Read, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH_A, PATH_LEN);
                let block = buf(region, CHUNK, CHUNK_LEN);
                let fd = open(path, O_RDONLY, 0);
                let mut total = 0;
                let mut crc = 0;
                loop {
                    let n = read(fd, block, BLOCK);
                    crc = crc32c(block, n, crc);
                    total += n;
                    if n != BLOCK {
                        break;
                    }
                }
                close(fd);
                (total << 32) + crc
            })
            .build()
        }
        (Phase::Read, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let block = buf(0, CHUNK, CHUNK_LEN);
            let app = buf(0, APP, CHUNK_LEN);
            let fd = open(path, O_RDONLY, 0);
            let mut total = 0;
            let mut crc = 0;
            loop {
                let n = read(fd, block, BLOCK);
                copy(app, block, n);
                crc = crc32c(app, n, crc);
                total += n;
                if n != BLOCK {
                    break;
                }
            }
            close(fd);
            (total << 32) + crc
        })
        .build(),
        (Phase::Seeks, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH_A, PATH_LEN);
                let block = buf(region, CHUNK, CHUNK_LEN);
                let fd = open(path, O_RDWR, 0);
                let mut x = SEEK_SEED;
                let mut total = 0;
                for i in 0..seeks {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let at = x % blocks * BLOCK;
                    seek(fd, at, SEEK_SET);
                    let n = read(fd, block, BLOCK);
                    total += n + at;
                    if i % 10 == 9 {
                        seek(fd, at, SEEK_SET);
                        total += write(fd, block, n);
                    }
                }
                close(fd);
                total
            })
            .build()
        }
        (Phase::Seeks, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH_A, PATH_LEN);
            let block = buf(0, CHUNK, CHUNK_LEN);
            let app = buf(0, APP, CHUNK_LEN);
            let fd = open(path, O_RDWR, 0);
            let mut x = SEEK_SEED;
            let mut total = 0;
            for i in 0..seeks {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = x % blocks * BLOCK;
                seek(fd, at, SEEK_SET);
                let n = read(fd, block, BLOCK);
                copy(app, block, n);
                total += n + at;
                if i % 10 == 9 {
                    copy(block, app, n);
                    seek(fd, at, SEEK_SET);
                    total += write(fd, block, n);
                }
            }
            close(fd);
            total
        })
        .build(),
    }
}
