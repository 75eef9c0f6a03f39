//! The file system as the file operations see it: `conflux-ext4` with a
//! page cache above it ([`Pages`]), as Linux keeps a page cache above each
//! file system. A read or write of cached pages touches neither rsext4
//! nor the block cache under it; this is what makes a cached `pread` cost
//! a copy instead of an extent walk, a block-cache lookup and an inode
//! update.
//!
//! The file server is the disk's only writer, so coherence is this
//! module's own bookkeeping, and every operation that could break it
//! passes here:
//!
//! - **Writes inside the file** go to cached pages, which become dirty.
//!   A write that makes the file longer goes through the file system at
//!   once (and into any cached page it covers): the disk's size is then
//!   always the file's size, and blocks are allocated — and a full disk
//!   refused — when the write is made, as ext4's delayed allocation
//!   reserves space at write time. What can still fail later is a write
//!   into a hole (a sparse file's unallocated page): its page stays
//!   dirty, and `fsync`, `sync` or unmount report the error.
//! - **Dirty pages go down** through the file system (in runs of
//!   consecutive pages, one write each) on `fsync` (that file's), `sync`
//!   and unmount (all), when the clock hand must reuse a dirty page's
//!   slot, and when more than half the pool is dirty (Linux's dirty
//!   ratio). Until then `stat` shows the change time of the last write.
//! - **Truncate** drops the pages past the new end and zeroes the tail of
//!   the page it cuts; **a freed inode** (its last name unlinked or
//!   renamed over) loses its pages, dirty or not, so a later file with
//!   the same number never sees them.
//! - **Access times** follow Linux's default, `relatime`: a cached read
//!   sets the access time only if it is older than the last change or a
//!   day old. (A read that misses goes through rsext4, which sets it.)
//!   Times are whole seconds, so "older" is strictly older.
//!
//! A restart loses the pages with the server, as a crash loses Linux's:
//! what was fsynced is on the disk (`fs-crash`, `fs-restart`).

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use conflux_ext4::{
    BlockDevice, Clock, DirCursor, Error, FileSystem, FileType, FsStats, Ino, Result, Stat,
};

use crate::pages::{PageKey, Pages, Slot, PAGE};

/// Pages a miss reads, or a write-back writes, in one call at most.
const RUN_PAGES: usize = 16;
/// How old an access time may get before a read sets it anyway.
const RELATIME_SECS: i64 = 24 * 60 * 60;

/// The mounted file system with its page cache.
pub struct Files<B: BlockDevice> {
    fs: FileSystem<B>,
    pages: Pages,
    clock: Box<dyn Clock>,
    /// Where a miss reads a run of pages (`RUN_PAGES` pages).
    run: Vec<u8>,
    /// Where a write-back gathers a run of pages: apart from `run`, as a
    /// fill may write a dirty page back to make room while its own run
    /// waits to be copied.
    gather: Vec<u8>,
}

impl<B: BlockDevice> Files<B> {
    /// The file system `fs` with the page cache `pages`, timing writes by
    /// `clock` (the clock `fs` was mounted with).
    pub fn new(fs: FileSystem<B>, pages: Pages, clock: impl Clock + 'static) -> Self {
        Files {
            fs,
            pages,
            clock: Box::new(clock),
            run: vec![0; RUN_PAGES * PAGE],
            gather: vec![0; RUN_PAGES * PAGE],
        }
    }

    /// The file system under the cache, for what needs no file data.
    pub fn fs(&self) -> &FileSystem<B> {
        &self.fs
    }

    pub fn pages(&self) -> &Pages {
        &self.pages
    }

    pub fn is_read_only(&self) -> bool {
        self.fs.is_read_only()
    }

    pub fn stats(&self) -> FsStats {
        self.fs.stats()
    }

    /// Writes every dirty page back, then unmounts. A page that cannot be
    /// written is reported and the file system is not unmounted (the
    /// journal is replayed at the next mount).
    pub fn unmount(mut self) -> Result<()> {
        self.write_back(None)?;
        self.fs.unmount()
    }

    /// `fsync`: inode `ino`'s dirty pages, then everything the file system
    /// holds, reach the disk.
    pub fn sync_file(&mut self, ino: Ino) -> Result<()> {
        self.write_back(Some(ino))?;
        self.fs.sync()
    }

    /// `sync`: every dirty page, then everything else.
    pub fn sync(&mut self) -> Result<()> {
        self.write_back(None)?;
        self.fs.sync()
    }

    /// The attributes of `ino`, with the change time of writes still in
    /// the cache.
    pub fn stat(&mut self, ino: Ino) -> Result<Stat> {
        let stat = self.fs.stat(ino)?;
        Ok(self.with_changes(stat))
    }

    pub fn lookup(&mut self, path: &str) -> Result<Stat> {
        let stat = self.fs.lookup(path)?;
        Ok(self.with_changes(stat))
    }

    pub fn lookup_at(&mut self, dir: Ino, name: &[u8]) -> Result<Stat> {
        let stat = self.fs.lookup_at(dir, name)?;
        Ok(self.with_changes(stat))
    }

    /// Reads from byte `offset` of file `ino` into `buf`; how many bytes
    /// were read (fewer than asked only at the end of the file).
    pub fn read_at(&mut self, ino: Ino, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let stat = self.file(ino)?;
        let Some(left) = stat.size.checked_sub(offset).filter(|&l| l > 0) else {
            return Ok(0);
        };
        let want = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        if want == 0 {
            return Ok(0);
        }
        let last = (offset + want as u64 - 1) / PAGE as u64;
        let mut missed = false;
        let mut done = 0;
        while done < want {
            let pos = offset + done as u64;
            let key = PageKey {
                ino: ino.0,
                index: pos / PAGE as u64,
            };
            let slot = match self.pages.get(key) {
                Some(slot) => slot,
                None => {
                    missed = true;
                    self.fill(key, last, stat.size)?
                }
            };
            let at = (pos % PAGE as u64) as usize;
            let n = (PAGE - at).min(want - done);
            buf[done..done + n].copy_from_slice(&self.pages.data(slot)[at..at + n]);
            done += n;
        }
        // A miss went through rsext4, which set the access time.
        if !missed && !self.fs.is_read_only() {
            let now = self.clock.now_secs();
            if relatime_due(&stat, now) {
                self.fs.set_atime(ino, now)?;
            }
        }
        Ok(want)
    }

    /// Writes `data` at byte `offset` of file `ino`, growing it if the
    /// write ends past its end (a gap reads as zeros).
    pub fn write_at(&mut self, ino: Ino, offset: u64, data: &[u8]) -> Result<()> {
        let stat = self.file(ino)?;
        if data.is_empty() {
            return Ok(());
        }
        if self.fs.is_read_only() {
            return Err(Error::ReadOnly);
        }
        let end = offset
            .checked_add(data.len() as u64)
            .ok_or(Error::FileTooLarge)?;
        if end > stat.size {
            return self.write_through(ino, offset, data);
        }
        let now = self.clock.now_secs();
        let mut done = 0;
        while done < data.len() {
            let pos = offset + done as u64;
            let key = PageKey {
                ino: ino.0,
                index: pos / PAGE as u64,
            };
            let at = (pos % PAGE as u64) as usize;
            let n = (PAGE - at).min(data.len() - done);
            let slot = match self.pages.get(key) {
                Some(slot) => slot,
                // A whole page written needs nothing from the disk.
                None if n == PAGE => self.slot_for(key)?,
                None => self.fill(key, key.index, stat.size)?,
            };
            self.pages.data_mut(slot)[at..at + n].copy_from_slice(&data[done..done + n]);
            self.pages.set_dirty(slot, now);
            done += n;
        }
        if self.pages.dirty_count() > self.pages.capacity() / 2 {
            // As Linux's writeback past its dirty ratio: the write itself
            // succeeded; a page that cannot go down stays dirty, and the
            // next fsync, sync or unmount reports why.
            let _ = self.write_back(None);
        }
        Ok(())
    }

    /// Makes file `ino` exactly `len` bytes long.
    pub fn set_len(&mut self, ino: Ino, len: u64) -> Result<()> {
        self.file(ino)?;
        if let Err(e) = self.fs.set_len(ino, len) {
            // What the disk holds now is unknown: keep only what no one
            // else has (dirty pages, written back over it later).
            for slot in self.pages.slots(Some(ino.0), |_, dirty| !dirty) {
                self.pages.release(slot);
            }
            return Err(e);
        }
        let cut = len.div_ceil(PAGE as u64);
        for slot in self.pages.slots(Some(ino.0), |k, _| k.index >= cut) {
            self.pages.release(slot);
        }
        let tail = (len % PAGE as u64) as usize;
        let partial = PageKey {
            ino: ino.0,
            index: len / PAGE as u64,
        };
        if let (true, Some(slot)) = (tail != 0, self.pages.peek(partial)) {
            // The disk reads zeros past the end now; so does the page.
            self.pages.data_mut(slot)[tail..].fill(0);
        }
        Ok(())
    }

    pub fn create(&mut self, path: &str, perm: u16) -> Result<Stat> {
        self.fs.create(path, perm)
    }

    pub fn mkdir(&mut self, path: &str, perm: u16) -> Result<Stat> {
        self.fs.mkdir(path, perm)
    }

    pub fn rmdir(&mut self, path: &str) -> Result<()> {
        self.fs.rmdir(path)
    }

    pub fn link(&mut self, existing: &str, new: &str) -> Result<Stat> {
        self.fs.link(existing, new)
    }

    /// Removes the name `path` of a file; its pages go if that was its
    /// last name.
    pub fn unlink(&mut self, path: &str) -> Result<()> {
        let target = self.fs.lookup(path).ok();
        let unlinked = self.fs.unlink(path);
        if let Some(t) = target {
            self.maybe_freed(t.ino);
        }
        unlinked
    }

    /// Moves `from` to `to`; a file it replaced loses its pages if that
    /// was its last name.
    pub fn rename(&mut self, from: &str, to: &str) -> Result<()> {
        let replaced = self.fs.lookup(to).ok();
        let renamed = self.fs.rename(from, to);
        if let Some(t) = replaced {
            self.maybe_freed(t.ino);
        }
        renamed
    }

    pub fn read_dir_each(
        &mut self,
        dir: Ino,
        cursor: DirCursor,
        max: usize,
        each: impl FnMut(Ino, FileType, &[u8]),
    ) -> Result<DirCursor> {
        self.fs.read_dir_each(dir, cursor, max, each)
    }

    /// `stat` with the change time of writes that wait in the cache.
    fn with_changes(&self, mut stat: Stat) -> Stat {
        if let Some(t) = self.pages.file(stat.ino.0).and_then(|f| f.changed_at) {
            let t = u32::try_from(t).unwrap_or(u32::MAX);
            stat.mtime = stat.mtime.max(t);
            stat.ctime = stat.ctime.max(t);
        }
        stat
    }

    /// The attributes of `ino`, which must be a regular file.
    fn file(&mut self, ino: Ino) -> Result<Stat> {
        let stat = self.stat(ino)?;
        match stat.kind {
            FileType::File => Ok(stat),
            FileType::Directory => Err(Error::IsADirectory),
            _ => Err(Error::InvalidArgument),
        }
    }

    /// After `ino` lost a name: if that freed it, its pages are dropped
    /// unwritten (the file system answers `NotFound` for a freed inode).
    fn maybe_freed(&mut self, ino: Ino) {
        if self.pages.file(ino.0).is_none() {
            return;
        }
        if let Err(Error::NotFound) = self.fs.stat(ino) {
            for slot in self.pages.slots(Some(ino.0), |_, _| true) {
                self.pages.release(slot);
            }
        }
    }

    /// A write that makes the file longer: through the file system now,
    /// then into the pages it covers (which stay as clean or dirty as
    /// they were: the bytes written are on the file system already).
    fn write_through(&mut self, ino: Ino, offset: u64, data: &[u8]) -> Result<()> {
        let written = self.fs.write_at(ino, offset, data);
        if self.pages.file(ino.0).is_none() {
            return written;
        }
        let first = offset / PAGE as u64;
        let last = (offset + data.len() as u64 - 1) / PAGE as u64;
        // The pages the write covers, looked up one by one: an append
        // covers one or two, and scanning the whole pool for them would
        // put the pool's size on every appending write.
        for index in first..=last {
            let Some(slot) = self.pages.peek(PageKey { ino: ino.0, index }) else {
                continue;
            };
            if written.is_err() {
                // The disk may hold part of the write: read it again.
                if !self.pages.is_dirty(slot) {
                    self.pages.release(slot);
                }
                continue;
            }
            let page_start = index * PAGE as u64;
            let from = offset.max(page_start);
            let to = (offset + data.len() as u64).min(page_start + PAGE as u64);
            let (src, dst) = ((from - offset) as usize, (from - page_start) as usize);
            let n = (to - from) as usize;
            self.pages.data_mut(slot)[dst..dst + n].copy_from_slice(&data[src..src + n]);
        }
        written
    }

    /// Reads `key`'s page, and the pages after it up to page `last` that
    /// are not cached either (one run, one file-system read), into the
    /// cache; the slot of `key`'s page.
    fn fill(&mut self, key: PageKey, last: u64, size: u64) -> Result<Slot> {
        let end_page = size.div_ceil(PAGE as u64);
        let room = (self.pages.capacity() / 2).clamp(1, RUN_PAGES) as u64;
        let mut count = 1;
        while count < room
            && key.index + count <= last
            && key.index + count < end_page
            && self
                .pages
                .peek(PageKey {
                    index: key.index + count,
                    ..key
                })
                .is_none()
        {
            count += 1;
        }
        let bytes = count as usize * PAGE;
        let read = self.fs.read_at(
            Ino(key.ino),
            key.index * PAGE as u64,
            &mut self.run[..bytes],
        )?;
        self.run[read..bytes].fill(0);
        // Last page first: `key`'s page is bound last, so no bind of this
        // run can take its slot.
        let mut first = None;
        for i in (0..count).rev() {
            let key = PageKey {
                index: key.index + i,
                ..key
            };
            let slot = self.slot_for(key)?;
            let at = i as usize * PAGE;
            self.pages
                .data_mut(slot)
                .copy_from_slice(&self.run[at..at + PAGE]);
            first = Some(slot);
        }
        first.ok_or(Error::Io)
    }

    /// A slot for `key`'s page: free, or taken from a page the clock hand
    /// chose (written back first if dirty). Its bytes are the caller's to
    /// fill.
    fn slot_for(&mut self, key: PageKey) -> Result<Slot> {
        let victim = self.pages.victim();
        if victim.dirty {
            self.write_slots(&[victim.slot])?;
        }
        self.pages.bind(victim.slot, key);
        Ok(victim.slot)
    }

    /// Writes back the dirty pages of `ino` (of every inode: `None`).
    fn write_back(&mut self, ino: Option<Ino>) -> Result<()> {
        let dirty = self.pages.slots(ino.map(|i| i.0), |_, dirty| dirty);
        self.write_slots(&dirty)
    }

    /// Writes the dirty pages in `slots` (in (inode, index) order) to the
    /// file system, each run of consecutive pages of one file in one
    /// write; stops at the first failure, leaving the rest dirty.
    fn write_slots(&mut self, slots: &[Slot]) -> Result<()> {
        let mut rest = slots;
        while let Some(&first) = rest.first() {
            let start = self.pages.key(first);
            let run = rest
                .iter()
                .take(RUN_PAGES)
                .enumerate()
                .take_while(|(i, s)| {
                    let k = self.pages.key(**s);
                    k.ino == start.ino && k.index == start.index + *i as u64
                })
                .count();
            let size = self.fs.stat(Ino(start.ino))?.size;
            let offset = start.index * PAGE as u64;
            let len = size.saturating_sub(offset).min((run * PAGE) as u64) as usize;
            for (i, &slot) in rest[..run].iter().enumerate() {
                let at = i * PAGE;
                self.gather[at..at + PAGE].copy_from_slice(self.pages.data(slot));
            }
            if len > 0 {
                self.fs
                    .write_at(Ino(start.ino), offset, &self.gather[..len])?;
            }
            for &slot in &rest[..run] {
                self.pages.set_clean(slot);
            }
            rest = &rest[run..];
        }
        Ok(())
    }
}

/// Linux's `relatime`: a read sets the access time if it is older than
/// the last change of the data or the inode, or a day old — and would
/// change it: with a clock behind the file's times (the fixed clock of a
/// system without a real-time clock, and files the host made later),
/// the time a read would write is the time already there.
fn relatime_due(stat: &Stat, now: i64) -> bool {
    let atime = i64::from(stat.atime);
    let stale = atime < i64::from(stat.mtime)
        || atime < i64::from(stat.ctime)
        || now.saturating_sub(atime) >= RELATIME_SECS;
    stale && atime != now
}
