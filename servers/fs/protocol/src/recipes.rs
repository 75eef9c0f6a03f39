//! Compounds for common jobs, built once with cosy-abi's builder and run
//! by any client. Each recipe documents the region layout it expects; all
//! run in fail-fast mode, so the first failing operation stops the run and
//! its code is the report's stop code.

use cosy_abi::{BuildError, Builder, Cmp};

use crate::ops::{CLOSE, OPEN, O_DIRECTORY, READDIR, STATAT};
use crate::record::{Dirent, Stat};

/// Where `ls -l` finds its path and puts what it read, in one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListLayout {
    /// The region (0: the control region).
    pub region: u8,
    /// Offset of the directory's path, NUL-terminated, at most
    /// `path_len` bytes.
    pub path: u32,
    /// Bytes set aside for the path.
    pub path_len: u32,
    /// Offset of the entries: `capacity` [`Dirent`] records.
    pub entries: u32,
    /// Offset of the stats: `capacity` [`Stat`] records, the i-th for the
    /// i-th entry.
    pub stats: u32,
    /// How many entries fit.
    pub capacity: u32,
}

impl ListLayout {
    /// Entries one `readdir` asks for.
    pub const BATCH: u32 = 32;

    /// A layout from `base` on: path, entries, stats, back to back.
    pub const fn packed(region: u8, base: u32, capacity: u32) -> ListLayout {
        let path_len = 4096;
        let entries = base + path_len;
        let stats = entries + capacity * Dirent::SIZE as u32;
        ListLayout {
            region,
            path: base,
            path_len,
            entries,
            stats,
            capacity,
        }
    }

    /// The bytes the layout spans from `path` on.
    pub const fn len(&self) -> u32 {
        self.stats + self.capacity * Stat::SIZE as u32 - self.path
    }

    /// True if no entry fits.
    pub const fn is_empty(&self) -> bool {
        self.capacity == 0
    }
}

/// Bit 63 of the exit value: the listing stopped because the layout was
/// full, and the directory has more entries.
pub const LIST_TRUNCATED: u64 = 1 << 63;

/// `ls -l` as one compound: open the directory, then until it is read to
/// the end (or the layout is full), read a batch of entries and `statat`
/// each by name. Exit value: the number of entries listed, with
/// [`LIST_TRUNCATED`] set if more did not fit. Entry *i* is at
/// `entries + i * Dirent::SIZE`, its stat at `stats + i * Stat::SIZE`.
pub fn list_long(at: ListLayout) -> Result<alloc::vec::Vec<u8>, BuildError> {
    let batch = ListLayout::BATCH.min(at.capacity.max(1));
    let mut b = Builder::new();
    b.fail_fast(true).step_budget(u32::MAX);
    let (fd, n, total, i, t, eoff, soff) = (
        b.reg(),
        b.reg(),
        b.reg(),
        b.reg(),
        b.reg(),
        b.reg(),
        b.reg(),
    );
    let path = b.buf(at.region, at.path, at.path_len);
    let batch_bytes = batch * Dirent::SIZE as u32;
    let into = b.buf_at(at.region, eoff, at.entries, batch_bytes);
    let name = b.buf_at(
        at.region,
        eoff,
        at.entries + Dirent::NAME_OFFSET as u32,
        256,
    );
    let stat = b.buf_at(at.region, soff, at.stats, Stat::SIZE as u32);
    let (again, done, full) = (b.label(), b.label(), b.label());
    b.call(fd, OPEN, (path, O_DIRECTORY, 0));
    b.bind(again);
    // Stop before a batch that might not fit.
    b.add(t, total, u64::from(batch));
    b.branch(Cmp::GtU, t, u64::from(at.capacity), full);
    b.mul(eoff, total, Dirent::SIZE as u64);
    b.call(n, READDIR, (fd, into, u64::from(batch_bytes)));
    b.branch(Cmp::Eq, n, 0, done);
    b.for_loop(i, 0, Cmp::LtU, n, 1, |b| {
        b.add(t, total, i);
        b.mul(eoff, t, Dirent::SIZE as u64);
        b.mul(soff, t, Stat::SIZE as u64);
        b.call_void(STATAT, (fd, name, stat));
    });
    b.add(total, total, n);
    b.jump(again);
    b.bind(full);
    b.or(total, total, LIST_TRUNCATED);
    b.bind(done);
    b.call_void(CLOSE, (fd,));
    b.exit(total);
    b.build()
}
