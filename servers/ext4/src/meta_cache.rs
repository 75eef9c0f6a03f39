//! Decoded inodes and names, kept between operations so that a `stat` or
//! a name lookup that was answered before costs a map lookup instead of
//! rsext4's inode fetch, hash-tree walk and leaf scan (about 29,000
//! instructions per `statat` on the host, 47,000 in the guest: see
//! `docs/PERFORMANCE.md`, "fs operations").
//!
//! Two maps, both owned by [`crate::FileSystem`], which is the only way
//! to the file system, so every change passes the code that invalidates
//! them:
//!
//! - **inodes**: inode number → its [`Stat`], and whether the attributes
//!   are still current. An operation that changes a live inode's
//!   attributes (a write, a truncate, a read's access time, a name added
//!   to a directory) marks the entry *touched*: its kind stays known
//!   (a live inode never changes type), its attributes are read again at
//!   the next `stat`. An operation that may free the inode (the last name
//!   removed, a replacing rename) drops the entry, so a number reused by a
//!   new file never shows the old one's attributes.
//! - **names**: (directory, name) → inode number, positive entries only
//!   (a name not found is not remembered, so creating one needs no
//!   invalidation). Removing or replacing a name drops its entry; removing
//!   a directory drops every entry under it, so a later directory with the
//!   same number starts empty. Names longer than [`SHORT_NAME`] bytes are
//!   not cached (as Linux keeps long names out of its dentry's inline
//!   name), which bounds the memory an entry takes.
//!
//! Both maps hold at most [`CAPACITY`] entries; when full, the entry with
//! the highest key goes (`pop_last`): a listing larger than the cache then
//! keeps a fixed part of itself cached from one pass to the next (rather
//! than none of it, as least-recently-used order would), and the root and
//! other early, low-numbered directories stay.

use alloc::collections::BTreeMap;

use crate::types::{FileType, Ino, Stat};

/// The longest name the names map keeps, in bytes.
pub(crate) const SHORT_NAME: usize = 64;
/// Entries each map holds at most (about 1.5 MiB for names and 1 MiB
/// for inodes when full).
pub(crate) const CAPACITY: usize = 16_384;

#[derive(Debug, Clone, Copy)]
struct Cached {
    stat: Stat,
    /// False once something may have changed the attributes.
    current: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct NameKey {
    dir: u32,
    len: u8,
    name: [u8; SHORT_NAME],
}

impl NameKey {
    fn new(dir: Ino, name: &[u8]) -> Option<NameKey> {
        let len = u8::try_from(name.len())
            .ok()
            .filter(|&l| usize::from(l) <= SHORT_NAME)?;
        let mut key = NameKey {
            dir: dir.0,
            len,
            name: [0; SHORT_NAME],
        };
        key.name[..name.len()].copy_from_slice(name);
        Some(key)
    }

    /// The lowest key of directory `dir`.
    fn first_of(dir: u32) -> NameKey {
        NameKey {
            dir,
            len: 0,
            name: [0; SHORT_NAME],
        }
    }
}

/// The inode and name caches (see the module's comment).
#[derive(Debug, Default)]
pub(crate) struct MetaCache {
    inodes: BTreeMap<u32, Cached>,
    names: BTreeMap<NameKey, u32>,
}

impl MetaCache {
    /// The attributes of `ino`, if cached and current.
    pub(crate) fn stat(&self, ino: Ino) -> Option<Stat> {
        self.inodes
            .get(&ino.0)
            .filter(|c| c.current)
            .map(|c| c.stat)
    }

    /// The kind of `ino`, if cached (current or touched).
    pub(crate) fn kind(&self, ino: Ino) -> Option<FileType> {
        self.inodes.get(&ino.0).map(|c| c.stat.kind)
    }

    /// Remembers attributes just read from the file system.
    pub(crate) fn put_stat(&mut self, stat: Stat) {
        if self.inodes.len() >= CAPACITY && !self.inodes.contains_key(&stat.ino.0) {
            self.inodes.pop_last();
        }
        let current = true;
        self.inodes.insert(stat.ino.0, Cached { stat, current });
    }

    /// `ino`'s attributes may have changed; it is still the same inode.
    pub(crate) fn touched(&mut self, ino: Ino) {
        if let Some(c) = self.inodes.get_mut(&ino.0) {
            c.current = false;
        }
    }

    /// `ino` may have been freed (its number may name a new inode next).
    pub(crate) fn forget(&mut self, ino: Ino) {
        self.inodes.remove(&ino.0);
    }

    /// Every inode's attributes may have changed (the device adapter's
    /// repairs at a flush write inodes behind rsext4's back).
    pub(crate) fn touch_all(&mut self) {
        for c in self.inodes.values_mut() {
            c.current = false;
        }
    }

    /// The inode entry `name` of directory `dir` names, if cached.
    pub(crate) fn child(&self, dir: Ino, name: &[u8]) -> Option<Ino> {
        let key = NameKey::new(dir, name)?;
        self.names.get(&key).map(|&ino| Ino(ino))
    }

    /// Remembers that `name` in `dir` names `ino`, as the file system
    /// just said.
    pub(crate) fn put_child(&mut self, dir: Ino, name: &[u8], ino: Ino) {
        let Some(key) = NameKey::new(dir, name) else {
            return;
        };
        if self.names.len() >= CAPACITY && !self.names.contains_key(&key) {
            self.names.pop_last();
        }
        self.names.insert(key, ino.0);
    }

    /// `name` in `dir` was removed or now names something else.
    pub(crate) fn unnamed(&mut self, dir: Ino, name: &[u8]) {
        if let Some(key) = NameKey::new(dir, name) {
            self.names.remove(&key);
        }
    }

    /// Directory `dir` was removed: none of its names stand.
    pub(crate) fn dir_gone(&mut self, dir: Ino) {
        let start = NameKey::first_of(dir.0);
        let gone: alloc::vec::Vec<NameKey> = match dir.0.checked_add(1) {
            Some(next) => self
                .names
                .range(start..NameKey::first_of(next))
                .map(|(k, _)| *k)
                .collect(),
            None => self.names.range(start..).map(|(k, _)| *k).collect(),
        };
        for key in gone {
            self.names.remove(&key);
        }
    }

    /// Entries held (inodes, names), for tests.
    #[cfg(test)]
    pub(crate) fn len(&self) -> (usize, usize) {
        (self.inodes.len(), self.names.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(ino: u32, kind: FileType, size: u64) -> Stat {
        Stat {
            ino: Ino(ino),
            kind,
            perm: 0o644,
            links: 1,
            size,
            blocks: 0,
            uid: 0,
            gid: 0,
            atime: 0,
            mtime: 0,
            ctime: 0,
        }
    }

    #[test]
    fn touched_keeps_the_kind_and_drops_the_attributes() {
        let mut c = MetaCache::default();
        c.put_stat(stat(12, FileType::File, 5));
        assert_eq!(c.stat(Ino(12)).map(|s| s.size), Some(5));
        c.touched(Ino(12));
        assert_eq!(c.stat(Ino(12)), None);
        assert_eq!(c.kind(Ino(12)), Some(FileType::File));
        c.forget(Ino(12));
        assert_eq!(c.kind(Ino(12)), None);
    }

    #[test]
    fn a_removed_directory_takes_only_its_own_names() {
        let mut c = MetaCache::default();
        for dir in [11, 12, 13] {
            c.put_child(Ino(dir), b"a", Ino(100 + dir));
            c.put_child(Ino(dir), b"bb", Ino(200 + dir));
        }
        c.put_child(Ino(u32::MAX), b"z", Ino(7));
        c.dir_gone(Ino(12));
        assert_eq!(c.child(Ino(12), b"a"), None);
        assert_eq!(c.child(Ino(12), b"bb"), None);
        assert_eq!(c.child(Ino(11), b"bb"), Some(Ino(211)));
        assert_eq!(c.child(Ino(13), b"a"), Some(Ino(113)));
        c.dir_gone(Ino(u32::MAX));
        assert_eq!(c.child(Ino(u32::MAX), b"z"), None);
        assert_eq!(c.len().1, 4);
        c.unnamed(Ino(11), b"a");
        assert_eq!(c.child(Ino(11), b"a"), None);
    }

    #[test]
    fn long_names_are_not_cached_and_the_maps_stay_bounded() {
        let mut c = MetaCache::default();
        let long = [b'n'; SHORT_NAME + 1];
        c.put_child(Ino(2), &long, Ino(12));
        assert_eq!(c.child(Ino(2), &long), None);
        let exact = [b'n'; SHORT_NAME];
        c.put_child(Ino(2), &exact, Ino(12));
        assert_eq!(c.child(Ino(2), &exact), Some(Ino(12)));
        for i in 0..CAPACITY as u32 + 10 {
            c.put_stat(stat(i + 1, FileType::File, 0));
            c.put_child(Ino(2), &i.to_le_bytes(), Ino(i + 1));
        }
        assert_eq!(c.len(), (CAPACITY, CAPACITY));
        // The lowest numbers stay.
        assert!(c.stat(Ino(1)).is_some());
    }
}
