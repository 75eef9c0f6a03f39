//! The mounted file system: mounting and unmounting, path lookup, `stat`,
//! file data and directory listing. Operations that change names are in
//! `names`.
//!
//! Everything goes through rsext4's owned `Ext4` handle, which holds the
//! device, its caches and the journal: mounting replays the journal if
//! the last user did not unmount, and every metadata change is journaled.
//! Decoded inodes and names are kept in `meta_cache` between operations;
//! every operation here and in `names` that changes what they hold says
//! so to the cache in the same call, whether it succeeded or not (a
//! failed operation may have changed part of what it meant to).

use alloc::vec::Vec;

use rsext4::{Ext4, FileName, InodeNumber, MountServices, MountedServices, NoopObserver};

use crate::device::{BlockDevice, Clock, Io, Time};
use crate::error::{Error, Result};
use crate::journal_room;
use crate::meta_cache::{MetaCache, MetaSizes};
use crate::path;
use crate::types::{DirCursor, DirEntry, FileType, FsStats, Ino, Stat};

/// rsext4's mount: no entropy source and no MMP delay (multi-mount
/// protection is for shared disks; this disk has one user).
pub(crate) type Inner<D> = Ext4<Io<D>, MountedServices<(), NoopObserver, ()>>;

/// An ext4 file system (4 KiB blocks) mounted read-write on `D`.
pub struct FileSystem<D: BlockDevice> {
    pub(crate) inner: Inner<D>,
    pub(crate) cache: MetaCache,
}

impl<D: BlockDevice> FileSystem<D> {
    /// Mounts the file system on `device`, replaying its journal first if
    /// the last mount did not end cleanly. An image that recorded errors
    /// mounts read-only (every change then fails with `ReadOnly`).
    pub fn mount<C: Clock + Send + 'static>(device: D, clock: C) -> Result<Self> {
        Self::mount_sized(device, clock, MetaSizes::DEFAULT)
    }

    /// [`FileSystem::mount`] with metadata caches of `sizes`.
    pub fn mount_sized<C: Clock + Send + 'static>(
        device: D,
        clock: C,
        sizes: MetaSizes,
    ) -> Result<Self> {
        let services = MountServices::new(Time(clock), (), NoopObserver);
        let io = Io::new(device).map_err(|_| Error::Io)?;
        let inner = Ext4::mount_with_readonly_fallback(io, services)?;
        Ok(FileSystem {
            inner,
            cache: MetaCache::new(sizes),
        })
    }

    /// True if the mount fell back to read-only.
    pub fn is_read_only(&self) -> bool {
        self.inner.options().readonly
    }

    /// Writes everything back, marks the file system clean and gives the
    /// device up. Until this returns `Ok`, the image needs journal replay.
    pub fn unmount(mut self) -> Result<()> {
        if !self.is_read_only() {
            // rsext4 cannot checkpoint for the write that marks the image
            // clean; give it room first (`journal_room`).
            self.inner.sync()?;
            journal_room::make_room(&mut self.inner)?;
        }
        self.inner.unmount()?;
        Ok(())
    }

    /// Commits the journal and writes every cached block back, then
    /// flushes the device.
    pub fn sync(&mut self) -> Result<()> {
        let synced = self.inner.sync();
        // The flush may have repaired directories' block counts on the
        // disk (`dirblocks`): read attributes again from here on.
        self.cache.touch_all();
        synced?;
        Ok(())
    }

    /// Block and inode counts.
    pub fn stats(&self) -> FsStats {
        let s = self.inner.statfs();
        FsStats {
            block_size: s.block_size,
            total_blocks: s.total_blocks,
            free_blocks: s.free_blocks,
            total_inodes: s.total_inodes,
            free_inodes: s.free_inodes,
        }
    }

    /// The root directory's inode.
    pub fn root(&self) -> Ino {
        Ino(self.inner.root_inode().raw())
    }

    /// The inode `path` (absolute) names.
    pub fn lookup(&mut self, path: &str) -> Result<Stat> {
        match path::plain(path) {
            // The common case, walked without collecting the names.
            Some(names) => self.walk(names),
            None => self.walk(path::components(path)?),
        }
    }

    /// The entry `name` of directory `dir`, without walking a path: what
    /// a listing needs for each name it read (`ls -l`).
    pub fn lookup_at(&mut self, dir: Ino, name: &[u8]) -> Result<Stat> {
        let dir = self.stat(dir)?;
        self.child(&dir, name)?.ok_or(Error::NotFound)
    }

    /// The attributes of inode `ino`.
    pub fn stat(&mut self, ino: Ino) -> Result<Stat> {
        if let Some(stat) = self.cache.stat(ino) {
            return Ok(stat);
        }
        let info = self.inner.inode(number(ino)?)?;
        let stat = Stat::from_info(&info);
        self.cache.put_stat(stat);
        Ok(stat)
    }

    /// Reads from byte `offset` of file `ino` into `buf`; returns how many
    /// bytes were read (fewer than asked only at the end of the file).
    pub fn read_at(&mut self, ino: Ino, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.file(ino)?;
        let read = self.inner.read_inode(number(ino)?, offset, buf);
        // Reading may set the access time.
        self.cache.touched(ino);
        Ok(read?)
    }

    /// Writes `data` at byte `offset` of file `ino`, growing it if the
    /// write ends past its end (a gap reads as zeros).
    pub fn write_at(&mut self, ino: Ino, offset: u64, data: &[u8]) -> Result<()> {
        self.file(ino)?;
        if data.is_empty() {
            return Ok(());
        }
        let written = self.inner.write_inode(number(ino)?, offset, data);
        self.cache.touched(ino);
        written?;
        Ok(())
    }

    /// Makes file `ino` exactly `len` bytes long: truncating frees the
    /// blocks past the end, growing adds a hole that reads as zeros.
    pub fn set_len(&mut self, ino: Ino, len: u64) -> Result<()> {
        self.file(ino)?;
        let cut = self.inner.truncate_inode(number(ino)?, len);
        self.cache.touched(ino);
        cut?;
        Ok(())
    }

    /// Up to `max` entries of directory `dir` from `cursor` on, and the
    /// cursor to continue from (`is_end()` once all were read).
    pub fn read_dir(
        &mut self,
        dir: Ino,
        cursor: DirCursor,
        max: usize,
    ) -> Result<(Vec<DirEntry>, DirCursor)> {
        let mut entries = Vec::new();
        let next = self.read_dir_each(dir, cursor, max, |ino, kind, name| {
            entries.push(DirEntry {
                ino,
                kind,
                name: name.to_vec(),
            })
        })?;
        Ok((entries, next))
    }

    /// [`FileSystem::read_dir`] handing each entry to `each` instead of
    /// collecting them: a page listed before (and not changed since)
    /// comes from the listings cache without a copy of its names.
    pub fn read_dir_each(
        &mut self,
        dir: Ino,
        cursor: DirCursor,
        max: usize,
        mut each: impl FnMut(Ino, FileType, &[u8]),
    ) -> Result<DirCursor> {
        if let Some(next) = self.cache.listings.replay(dir, cursor, max, &mut each) {
            return Ok(next);
        }
        let records = self.inner.read_directory(number(dir)?, cursor.0, max)?;
        let next = match records.last() {
            Some(last) if records.len() == max => DirCursor(last.next_cursor),
            _ => DirCursor::END,
        };
        let mut page = self.cache.listings.record(dir, cursor, max);
        let mut named = Vec::with_capacity(records.len());
        for r in records.iter().filter(|r| r.name != b"." && r.name != b"..") {
            let (ino, kind) = (Ino(r.inode.raw()), r.file_type.into());
            page.push(ino, kind, &r.name);
            each(ino, kind, &r.name);
            named.push((ino, &r.name));
        }
        page.finish(next);
        // The names just read are current: `ls -l`'s stat of each finds
        // its inode number without a lookup.
        for (ino, name) in named {
            self.cache.put_child(dir, name, ino);
        }
        Ok(next)
    }

    /// Every entry of directory `dir`.
    pub fn read_dir_all(&mut self, dir: Ino) -> Result<Vec<DirEntry>> {
        const PAGE: usize = 256;
        let mut all = Vec::new();
        let mut cursor = DirCursor::START;
        while !cursor.is_end() {
            let (entries, next) = self.read_dir(dir, cursor, PAGE)?;
            all.extend(entries);
            cursor = next;
        }
        Ok(all)
    }

    /// Follows `names` from the root; every name but the last must be a
    /// directory.
    pub(crate) fn walk<'n>(&mut self, names: impl IntoIterator<Item = &'n [u8]>) -> Result<Stat> {
        let mut at = self.stat(self.root())?;
        for name in names {
            at = self.child(&at, name)?.ok_or(Error::NotFound)?;
        }
        Ok(at)
    }

    /// The entry `name` of directory `dir`, if there is one.
    pub(crate) fn child(&mut self, dir: &Stat, name: &[u8]) -> Result<Option<Stat>> {
        if !dir.is_dir() {
            return Err(Error::NotADirectory);
        }
        // `.` and `..` are never cached, and neither is a name with `/`
        // or NUL (only names rsext4 found are), so such a name misses
        // and is refused below; the full check waits for a miss.
        if name == b"." || name == b".." {
            return Err(Error::InvalidPath);
        }
        if let Some(ino) = self.cache.child(dir.ino, name) {
            match self.stat(ino) {
                Ok(stat) => return Ok(Some(stat)),
                // The invalidation keeps this from happening; if it did,
                // the file system's own answer is the right one.
                Err(Error::NotFound) => self.cache.unnamed(dir.ino, name),
                Err(e) => return Err(e),
            }
        }
        let found = self
            .inner
            .lookup_child(number(dir.ino)?, file_name(name)?)?;
        Ok(found.as_ref().map(|info| {
            let stat = Stat::from_info(info);
            self.cache.put_child(dir.ino, name, stat.ino);
            self.cache.put_stat(stat);
            stat
        }))
    }

    /// `ino` is a regular file (data operations refuse anything else).
    fn file(&mut self, ino: Ino) -> Result<()> {
        let kind = match self.cache.kind(ino) {
            Some(kind) => kind,
            None => self.stat(ino)?.kind,
        };
        match kind {
            FileType::File => Ok(()),
            FileType::Directory => Err(Error::IsADirectory),
            _ => Err(Error::InvalidArgument),
        }
    }
}

/// `ino` as rsext4's inode number (0 is not one).
pub(crate) fn number(ino: Ino) -> Result<InodeNumber> {
    InodeNumber::new(ino.0).map_err(|_| Error::NotFound)
}

/// A checked name as rsext4's `FileName`.
pub(crate) fn file_name(name: &[u8]) -> Result<FileName<'_>> {
    path::check_name(name)?;
    FileName::new(name).map_err(|_| Error::InvalidPath)
}
