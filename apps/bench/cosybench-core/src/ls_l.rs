//! `ls -l`'s work (FSL-02-01 §4.3, HotOS 2003), shared by the Cosy
//! benchmark (`apps/bench/cosybench/src/ls_l.rs`, which times it cold and
//! warm in VAN / COSY / COSY-FAST) and the rings benchmark
//! (`apps/bench/ringbench`, which runs it through each path to the file
//! server): read a directory and stat every entry. [`van`] makes one IPC
//! per `readdir` batch and one per `statat`; [`compound`] is the whole
//! listing as one compound (written with `cosy!`). The answer is the
//! number of entries listed (the server lists no `.` and `..`).
//!
//! As `ls -l` would print them, each batch's entries and stats are in
//! shared memory when the compound goes on to the next batch, which
//! overwrites them: the app of a compound sees the last batch only.

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{CLOSE, OPEN, O_DIRECTORY, READDIR, STATAT, TABLE};
use conflux_fs_protocol::record::{Dirent, Stat};
use cosy_abi::Builder;
use cosy_macro::cosy;

use crate::layout::{APP, PATH_A, PATH_B, PATH_LEN};

/// Entries one `readdir` asks for: VAN's batch too (`Fs::readdir`).
pub const BATCH: u32 = 64;
/// Where a batch of entries goes, in the region the compound uses.
pub const ENTRIES: u32 = 4096;
pub const BATCH_BYTES: u32 = BATCH * Dirent::SIZE as u32;
/// Where the batch's stats go, the i-th for the i-th entry.
pub const STATS: u32 = ENTRIES + BATCH_BYTES;
pub const DIRENT: u64 = Dirent::SIZE as u64;
pub const STAT_LEN: u64 = Stat::SIZE as u64;
/// The name field of an entry (NUL-terminated within it).
pub const NAME_AT: u32 = ENTRIES + Dirent::NAME_OFFSET as u32;
pub const NAME_LEN: u32 = (Dirent::SIZE - Dirent::NAME_OFFSET) as u32;
/// COSY: the name a `statat` looks up, copied there from the app's entry.
pub const OP_NAME: u32 = PATH_B;
/// COSY: the app's copies of the batch (at [`APP`]) and of its stats.
pub const APP_NAME: u32 = APP + Dirent::NAME_OFFSET as u32;
pub const APP_STATS: u32 = APP + BATCH_BYTES;

/// The listing as one compound, the path at [`PATH_A`], written with
/// `cosy!`: COSY-FAST's (`fast` = `Some(data region)`: each batch of
/// entries and its stats land in the app's buffers there) or COSY's
/// (`None`: in the control region, each batch copied into the app's
/// buffer at [`APP`], each name copied out of it for its `statat` and
/// each stat copied into it, as Cosy's `readdir` and `stat` into user
/// buffers did). Exit value: the entries listed.
pub fn compound(fast: Option<u8>) -> Builder {
    match fast {
        Some(region) => cosy!(TABLE, || {
            #![fail_fast]
            #![step_budget(u32::MAX)]
            let path = buf(region, PATH_A, PATH_LEN);
            let batch = buf(region, ENTRIES, BATCH_BYTES);
            let mut entry = 0;
            let mut record = 0;
            // Entry i's name and stat move with its offsets in the batch.
            let name = buf_at(region, entry, NAME_AT, NAME_LEN);
            let stat = buf_at(region, record, STATS, STAT_LEN as u32);
            let fd = open(path, O_DIRECTORY, 0);
            let mut total = 0;
            loop {
                let n = readdir(fd, batch, BATCH_BYTES);
                if n == 0 {
                    break;
                }
                for i in 0..n {
                    entry = i * DIRENT;
                    record = i * STAT_LEN;
                    statat(fd, name, stat);
                }
                total += n;
            }
            close(fd);
            total
        }),
        None => cosy!(TABLE, || {
            #![fail_fast]
            #![step_budget(u32::MAX)]
            let path = buf(0, PATH_A, PATH_LEN);
            let batch = buf(0, ENTRIES, BATCH_BYTES);
            let app_batch = buf(0, APP, BATCH_BYTES);
            let op_name = buf(0, OP_NAME, NAME_LEN);
            let op_stat = buf(0, STATS, STAT_LEN as u32);
            let mut entry = 0;
            let mut record = 0;
            // Entry i's name and stat in the app's buffers.
            let name = buf_at(0, entry, APP_NAME, NAME_LEN);
            let stat = buf_at(0, record, APP_STATS, STAT_LEN as u32);
            let fd = open(path, O_DIRECTORY, 0);
            let mut total = 0;
            loop {
                let n = readdir(fd, batch, BATCH_BYTES);
                if n == 0 {
                    break;
                }
                copy(app_batch, batch, n * DIRENT);
                for i in 0..n {
                    entry = i * DIRENT;
                    record = i * STAT_LEN;
                    copy(op_name, name, NAME_LEN);
                    statat(fd, op_name, op_stat);
                    copy(stat, op_stat, STAT_LEN);
                }
                total += n;
            }
            close(fd);
            total
        }),
    }
}

/// One IPC per batch of entries and one per entry's stat; the entries
/// listed.
pub fn van(fs: &mut Fs, path: &str) -> Result<u64, Error> {
    let fd = fs.open(path, O_DIRECTORY, 0)?;
    let mut total = 0;
    loop {
        let entries = fs.readdir(fd)?;
        if entries.is_empty() {
            break;
        }
        for entry in &entries {
            fs.statat(fd, entry.name())?;
        }
        total += entries.len() as u64;
    }
    fs.close(fd)?;
    Ok(total)
}
