//! Decoded inodes and names, kept between operations so that a `stat` or
//! a name lookup that was answered before costs a map lookup instead of
//! rsext4's inode fetch, hash-tree walk and leaf scan (about 29,000
//! instructions per `statat` on the host, 47,000 in the guest: see
//! `docs/PERFORMANCE.md`, "fs operations").
//!
//! Two tables, both owned by [`crate::FileSystem`], which is the only way
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
//! With them, in `listings`, the pages of directory listings.
//!
//! All are tables of a fixed size, allocated once when the file system
//! is mounted, so their memory is fixed then and an entry costs no
//! allocation. (They were first chosen because the guest heap was a
//! first-fit list allocator, on which a search tree's many small nodes
//! made a cached 4 KiB `pread` some 20,000 instructions dearer; the heap
//! is talc now, which does not walk holes.) The
//! inode table is direct-mapped by inode number ([`MetaSizes::inodes`]
//! entries), the names table is [`NAME_WAYS`]-way set-associative by a
//! hash of (directory, name) ([`MetaSizes::names`] entries); a new entry takes a
//! free way of its set or the next in turn. A collision only costs a
//! miss: every entry holds its whole key.

use alloc::boxed::Box;
use alloc::vec;

use crate::listings::Listings;
use crate::types::{FileType, Ino, Stat};

/// The longest name the names table keeps, in bytes.
pub(crate) const SHORT_NAME: usize = 32;
/// Ways of each set of the names table.
pub(crate) const NAME_WAYS: usize = 8;

/// How large the metadata tables are: fixed at mount, from the memory
/// the embedder gives them ([`MetaSizes::within`]), as Linux sizes its
/// inode and dentry caches from free memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaSizes {
    /// Inode table entries.
    pub inodes: usize,
    /// Names table entries (a multiple of the ways of a set).
    pub names: usize,
    /// Bytes of packed directory-listing entries.
    pub listing_bytes: usize,
    /// Directory-listing pages held at most.
    pub listing_pages: usize,
}

impl MetaSizes {
    /// About 3 MiB: 16,384 inodes, 32,768 names, listings of about
    /// 40,000 short names.
    pub const DEFAULT: MetaSizes = MetaSizes {
        inodes: 16_384,
        names: 32_768,
        listing_bytes: 512 * 1024,
        listing_pages: 1024,
    };

    /// Tables that take about `bytes` together: three eighths each for
    /// inodes and names, a quarter for listings; never below a minimum
    /// that still caches one directory's worth.
    pub fn within(bytes: usize) -> MetaSizes {
        let inodes = (bytes / 8 * 3 / size_of::<Option<Cached>>()).max(256);
        let names = (bytes / 8 * 3 / size_of::<NameSlot>()).max(256) / NAME_WAYS * NAME_WAYS;
        let listing_bytes = (bytes / 4).max(16 * 1024);
        MetaSizes {
            inodes,
            names,
            listing_bytes,
            listing_pages: (listing_bytes / 512).max(32),
        }
    }

    /// The bytes these tables take.
    pub fn bytes(&self) -> usize {
        self.inodes * size_of::<Option<Cached>>()
            + self.names * size_of::<NameSlot>()
            + self.listing_bytes
    }
}

#[derive(Debug, Clone, Copy)]
struct Cached {
    stat: Stat,
    /// False once something may have changed the attributes.
    current: bool,
}

#[derive(Debug, Clone, Copy)]
struct NameSlot {
    /// The directory; 0 (never an inode number) for a free slot.
    dir: u32,
    ino: u32,
    len: u8,
    name: [u8; SHORT_NAME],
}

impl NameSlot {
    const FREE: NameSlot = NameSlot {
        dir: 0,
        ino: 0,
        len: 0,
        name: [0; SHORT_NAME],
    };

    fn is(&self, dir: Ino, name: &[u8]) -> bool {
        self.dir == dir.0 && usize::from(self.len) == name.len() && &self.name[..name.len()] == name
    }
}

/// The inode and names tables (see the module's comment).
#[derive(Debug)]
pub(crate) struct MetaCache {
    inodes: Box<[Option<Cached>]>,
    names: Box<[NameSlot]>,
    /// Per set of `names`: the way the next new entry replaces when the
    /// set is full.
    turn: Box<[u8]>,
    /// Directory listings (`listings`).
    pub(crate) listings: Listings,
}

impl Default for MetaCache {
    fn default() -> Self {
        MetaCache::new(MetaSizes::DEFAULT)
    }
}

impl MetaCache {
    pub(crate) fn new(sizes: MetaSizes) -> Self {
        let inodes = sizes.inodes.max(1);
        let names = sizes.names.max(NAME_WAYS) / NAME_WAYS * NAME_WAYS;
        MetaCache {
            inodes: vec![None; inodes].into_boxed_slice(),
            names: vec![NameSlot::FREE; names].into_boxed_slice(),
            turn: vec![0; names / NAME_WAYS].into_boxed_slice(),
            listings: Listings::new(sizes.listing_bytes, sizes.listing_pages),
        }
    }

    /// The inode table's slot for `ino`.
    fn inode_slot(&self, ino: Ino) -> usize {
        ino.0 as usize % self.inodes.len()
    }

    /// The first slot of the names table's set for (`dir`, `name`):
    /// FNV-1a, then a multiply-shift so that names differing in their
    /// last byte (`f00001`, `f00002`, ...) spread over the sets.
    fn name_set(&self, dir: Ino, name: &[u8]) -> usize {
        let mut h: u32 = 0x811c_9dc5;
        for &b in dir.0.to_le_bytes().iter().chain(name) {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        let mixed = (h ^ (h >> 15)).wrapping_mul(0x2c1b_3c6d);
        ((mixed >> 8) as usize % self.turn.len()) * NAME_WAYS
    }

    fn cached(&self, ino: Ino) -> Option<&Cached> {
        self.inodes[self.inode_slot(ino)]
            .as_ref()
            .filter(|c| c.stat.ino == ino)
    }

    /// The attributes of `ino`, if cached and current.
    pub(crate) fn stat(&self, ino: Ino) -> Option<Stat> {
        self.cached(ino).filter(|c| c.current).map(|c| c.stat)
    }

    /// The kind of `ino`, if cached (current or touched).
    pub(crate) fn kind(&self, ino: Ino) -> Option<FileType> {
        self.cached(ino).map(|c| c.stat.kind)
    }

    /// Remembers attributes just read from the file system.
    pub(crate) fn put_stat(&mut self, stat: Stat) {
        let current = true;
        let slot = self.inode_slot(stat.ino);
        self.inodes[slot] = Some(Cached { stat, current });
    }

    /// `ino`'s attributes may have changed; it is still the same inode.
    pub(crate) fn touched(&mut self, ino: Ino) {
        let slot = self.inode_slot(ino);
        if let Some(c) = self.inodes[slot].as_mut() {
            if c.stat.ino == ino {
                c.current = false;
            }
        }
        self.listings.drop_dir(ino);
    }

    /// `ino` may have been freed (its number may name a new inode next).
    pub(crate) fn forget(&mut self, ino: Ino) {
        let at = self.inode_slot(ino);
        let slot = &mut self.inodes[at];
        if slot.is_some_and(|c| c.stat.ino == ino) {
            *slot = None;
        }
        self.listings.drop_dir(ino);
    }

    /// Every inode's attributes may have changed (the device adapter's
    /// repairs at a flush write inodes behind rsext4's back).
    pub(crate) fn touch_all(&mut self) {
        for c in self.inodes.iter_mut().flatten() {
            c.current = false;
        }
    }

    /// The inode entry `name` of directory `dir` names, if cached.
    pub(crate) fn child(&self, dir: Ino, name: &[u8]) -> Option<Ino> {
        if name.len() > SHORT_NAME {
            return None;
        }
        let set = self.name_set(dir, name);
        self.names[set..set + NAME_WAYS]
            .iter()
            .find(|s| s.is(dir, name))
            .map(|s| Ino(s.ino))
    }

    /// Remembers that `name` in `dir` names `ino`, as the file system
    /// just said.
    pub(crate) fn put_child(&mut self, dir: Ino, name: &[u8], ino: Ino) {
        if name.len() > SHORT_NAME || dir.0 == 0 {
            return;
        }
        let set = self.name_set(dir, name);
        let ways = &mut self.names[set..set + NAME_WAYS];
        let way = match ways.iter().position(|s| s.is(dir, name) || s.dir == 0) {
            Some(way) => way,
            None => {
                let turn = &mut self.turn[set / NAME_WAYS];
                let way = usize::from(*turn) % NAME_WAYS;
                *turn = turn.wrapping_add(1);
                way
            }
        };
        let slot = &mut ways[way];
        *slot = NameSlot {
            dir: dir.0,
            ino: ino.0,
            len: name.len() as u8,
            name: [0; SHORT_NAME],
        };
        slot.name[..name.len()].copy_from_slice(name);
    }

    /// `name` in `dir` was removed or now names something else.
    pub(crate) fn unnamed(&mut self, dir: Ino, name: &[u8]) {
        if name.len() > SHORT_NAME {
            return;
        }
        let set = self.name_set(dir, name);
        for slot in &mut self.names[set..set + NAME_WAYS] {
            if slot.is(dir, name) {
                *slot = NameSlot::FREE;
            }
        }
    }

    /// Directory `dir` was removed: none of its names stand. (It was
    /// empty, so each of its names was already unnamed; this is the second
    /// line, and a removal is rare enough to pay for the walk.)
    pub(crate) fn dir_gone(&mut self, dir: Ino) {
        self.listings.drop_dir(dir);
        for slot in self.names.iter_mut().filter(|s| s.dir == dir.0) {
            *slot = NameSlot::FREE;
        }
    }

    /// Entries held (inodes, names), for tests.
    #[cfg(test)]
    pub(crate) fn len(&self) -> (usize, usize) {
        (
            self.inodes.iter().flatten().count(),
            self.names.iter().filter(|s| s.dir != 0).count(),
        )
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
    fn sizes_fit_the_memory_they_are_given() {
        for mib in [1usize, 4, 20, 64] {
            let bytes = mib << 20;
            let sizes = MetaSizes::within(bytes);
            assert!(sizes.bytes() <= bytes, "{mib} MiB: {sizes:?}");
            assert!(
                sizes.bytes() > bytes * 9 / 10,
                "{mib} MiB: most of it is used"
            );
            assert_eq!(sizes.names % NAME_WAYS, 0);
            let cache = MetaCache::new(sizes);
            assert_eq!(cache.len(), (0, 0));
        }
        // A tiny budget still caches a directory's worth.
        let tiny = MetaSizes::within(0);
        assert!(tiny.inodes >= 256 && tiny.names >= 256 && tiny.listing_pages >= 32);
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
    fn long_names_are_not_cached_and_the_tables_stay_bounded() {
        let mut c = MetaCache::default();
        let long = [b'n'; SHORT_NAME + 1];
        c.put_child(Ino(2), &long, Ino(12));
        assert_eq!(c.child(Ino(2), &long), None);
        let exact = [b'n'; SHORT_NAME];
        c.put_child(Ino(2), &exact, Ino(12));
        assert_eq!(c.child(Ino(2), &exact), Some(Ino(12)));
        let n = 4 * MetaSizes::DEFAULT.names as u32;
        for i in 0..n {
            c.put_stat(stat(i + 1, FileType::File, u64::from(i)));
            c.put_child(Ino(2), &i.to_le_bytes(), Ino(i + 1));
        }
        assert_eq!(
            c.len(),
            (MetaSizes::DEFAULT.inodes, MetaSizes::DEFAULT.names)
        );
        // Whatever is still cached is right; the newest of each is there.
        let mut names = 0;
        for i in 0..n {
            if let Some(ino) = c.child(Ino(2), &i.to_le_bytes()) {
                assert_eq!(ino, Ino(i + 1));
                names += 1;
            }
            if let Some(s) = c.stat(Ino(i + 1)) {
                assert_eq!(s.size, u64::from(i));
            }
        }
        assert_eq!(names, MetaSizes::DEFAULT.names);
        assert_eq!(c.stat(Ino(n)).map(|s| s.size), Some(u64::from(n - 1)));
        assert_eq!(c.child(Ino(2), &(n - 1).to_le_bytes()), Some(Ino(n)));
    }
}
