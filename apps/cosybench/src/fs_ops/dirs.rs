//! fs-ops' operations on directories: listing one with `readdir` (the
//! figure is per entry; batches of [`BATCH`] entries, VAN's batch too)
//! and open + read + close of each file of one (1 KiB files `f00000`,
//! `f00001`, ... as the manifest generates them; the read asks for
//! 4 KiB, as a program reading a whole small file does). COSY copies
//! each batch of entries into the app's buffer, and each path from the
//! app's table of paths into the operation's buffer and each file's
//! bytes into the app's buffer; COSY-FAST's operations use the app's
//! table and buffers in the data region.
//!
//! readdir's answer packs the entries listed and the size of the last
//! batch (`entries * 256 + last`), so that the last batch's names can be
//! compared in every configuration.

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{self, O_DIRECTORY, O_RDONLY};
use conflux_userlib::sys::rdtsc;
use cosy_abi::BuildError;
use cosy_macro::cosy;
use cosybench_core::fs_ops::layout::{
    APP_DATA, APP_PATH, BATCH, BLOCK, DATA, DIRENT, NAMES, NAME_LEN, PATH, PATH_LEN,
};
use cosybench_core::fs_ops::Op;

use super::Work;

/// What readdir's answer multiplies the entries by (above any batch).
pub const PACK: u64 = 256;
const BATCH_BYTES: u32 = BATCH * DIRENT;

/// The run as one compound, written with `cosy!` from [`van`]'s loops:
/// COSY's (`fast` = `None`, in the control region) or COSY-FAST's (over
/// data region `fast`). Exit value: readdir's packed answer, or the
/// bytes open-read-close read.
pub fn compound(work: &Work<'_>, fast: Option<u8>) -> Result<Vec<u8>, BuildError> {
    let n = work.spec.n;
    let path_bytes = work.spec.path.len() as u64 + 1;
    let name_bytes = work.names.first().map_or(0, |p| p.len() as u64 + 1);
    let (batch_bytes, dirent, stride, block) = (
        u64::from(BATCH_BYTES),
        u64::from(DIRENT),
        u64::from(NAME_LEN),
        u64::from(BLOCK),
    );
    match (work.spec.op, fast) {
        (Op::Readdir, Some(region)) => {
            cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
                let path = buf(region, PATH, PATH_LEN);
                let batch = buf(region, DATA, BATCH_BYTES);
                let fd = open(path, O_DIRECTORY, 0);
                let mut total = 0;
                let mut last = 0;
                loop {
                    let got = readdir(fd, batch, batch_bytes);
                    if got == 0 {
                        break;
                    }
                    total += got;
                    last = got;
                }
                close(fd);
                total * PACK + last
            })
            .build()
        }
        (Op::Readdir, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let app_path = buf(0, APP_PATH, PATH_LEN);
            let batch = buf(0, DATA, BATCH_BYTES);
            let app = buf(0, APP_DATA, BATCH_BYTES);
            copy(path, app_path, path_bytes);
            let fd = open(path, O_DIRECTORY, 0);
            let mut total = 0;
            let mut last = 0;
            loop {
                let got = readdir(fd, batch, batch_bytes);
                if got == 0 {
                    break;
                }
                copy(app, batch, got * dirent);
                total += got;
                last = got;
            }
            close(fd);
            total * PACK + last
        })
        .build(),
        (_, Some(region)) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let data = buf(region, DATA, BLOCK);
            let mut at = 0;
            // The i-th file's path in the app's table.
            let name = buf_at(region, at, NAMES, NAME_LEN);
            let mut total = 0;
            for i in 0..n {
                at = i * stride;
                let fd = open(name, O_RDONLY, 0);
                total += read(fd, data, block);
                close(fd);
            }
            total
        })
        .build(),
        (_, None) => cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] || {
            let path = buf(0, PATH, PATH_LEN);
            let data = buf(0, DATA, BLOCK);
            let app = buf(0, APP_DATA, BLOCK);
            let mut at = 0;
            let name = buf_at(0, at, NAMES, NAME_LEN);
            let mut total = 0;
            for i in 0..n {
                at = i * stride;
                copy(path, name, name_bytes);
                let fd = open(path, O_RDONLY, 0);
                let got = read(fd, data, block);
                copy(app, data, got);
                close(fd);
                total += got;
            }
            total
        })
        .build(),
    }
}

/// One IPC per operation through the client library's typed calls, the
/// data in the app's buffer at `data` of `mine`; the answer (as the
/// compounds give it) and the TSC the run took. readdir's last batch is
/// written into the app's buffer as the compounds leave it, after the
/// clock stops.
pub fn van(
    fs: &mut Fs,
    work: &Work<'_>,
    mine: &mut [u8],
    data: usize,
) -> Result<(u64, u64), Error> {
    let mut total = 0;
    let start = rdtsc();
    if work.spec.op == Op::Readdir {
        let fd = fs.open(work.spec.path, O_DIRECTORY, 0)?;
        let mut last = Vec::new();
        loop {
            let entries = fs.readdir(fd)?;
            if entries.is_empty() {
                break;
            }
            total += entries.len() as u64;
            last = entries;
        }
        fs.close(fd)?;
        let took = rdtsc() - start;
        let app = &mut mine[data..];
        for (entry, out) in last.iter().zip(app.chunks_mut(DIRENT as usize)) {
            entry.encode(out);
        }
        return Ok((total * PACK + last.len() as u64, took));
    }
    let app = &mut mine[data..data + BLOCK as usize];
    for name in &work.names {
        let fd = fs.open(name, O_RDONLY, 0)?;
        total += fs.read(fd, app)? as u64;
        fs.close(fd)?;
    }
    Ok((total, rdtsc() - start))
}
