//! The page cache's bookkeeping: file data in 4 KiB pages, kept by
//! (inode, page index), as Linux keeps a page cache above each file
//! system. This module only holds pages and knows which are dirty; what
//! a page means for a file (filling it, writing it back, keeping it
//! coherent with the file system) is `files`.
//!
//! - **One pool, allocated once.** The pages live in one allocation made
//!   when the server starts, sized from the memory the manifest gives it,
//!   so the cache never allocates while it serves (and a heap too small
//!   for it is found at start, not mid-request). The index is a hash
//!   table reserved to the pool's size up front, so it never grows
//!   either.
//! - **Clock eviction** (second chance), preferring clean pages: a victim
//!   that is dirty must be written back by the caller before its slot is
//!   reused, so the hand passes dirty pages by on its first sweep.
//! - **Per-inode counts**: how many of an inode's pages are cached and how
//!   many are dirty, and when a write last changed it, so `stat` can show
//!   a time the disk does not have yet.

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hasher};

use hashbrown::HashMap;

/// Bytes in a page: the file system's block size.
pub const PAGE: usize = 4096;

/// Which page of which file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageKey {
    pub ino: u32,
    /// Byte offset / [`PAGE`].
    pub index: u64,
}

/// A place in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Slot(u32);

/// The pool could not be allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoMemory;

/// One inode's pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilePages {
    pub cached: u32,
    pub dirty: u32,
    /// When a write into a cached page last changed the file (seconds);
    /// `None` once nothing of it waits to be written back.
    pub changed_at: Option<i64>,
}

/// Counters, for the benchmarks and `df`-like reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    /// Pages written back to the file system.
    pub written_back: u64,
}

#[derive(Clone, Copy, Debug)]
struct Meta {
    key: PageKey,
    used: bool,
    dirty: bool,
    referenced: bool,
}

impl Meta {
    const FREE: Meta = Meta {
        key: PageKey { ino: 0, index: 0 },
        used: false,
        dirty: false,
        referenced: false,
    };
}

/// The cached pages.
pub struct Pages {
    pool: Vec<u8>,
    meta: Vec<Meta>,
    index: HashMap<PageKey, Slot, Mix>,
    files: HashMap<u32, FilePages, Mix>,
    /// Slots holding no page.
    free: Vec<Slot>,
    hand: usize,
    dirty: usize,
    stats: PageStats,
}

impl Pages {
    /// A cache of `capacity` pages (at least 1), all allocated now.
    pub fn new(capacity: usize) -> Result<Pages, NoMemory> {
        let capacity = capacity.clamp(1, u32::MAX as usize);
        let mut pool = Vec::new();
        let bytes = capacity.checked_mul(PAGE).ok_or(NoMemory)?;
        pool.try_reserve_exact(bytes).map_err(|_| NoMemory)?;
        pool.resize(bytes, 0);
        let mut meta = Vec::new();
        meta.try_reserve_exact(capacity).map_err(|_| NoMemory)?;
        meta.resize(capacity, Meta::FREE);
        let mut free = Vec::new();
        free.try_reserve_exact(capacity).map_err(|_| NoMemory)?;
        // Handed out from the end: slot 0 first.
        free.extend((0..capacity as u32).rev().map(Slot));
        let mut index = HashMap::with_hasher(Mix);
        index.try_reserve(capacity).map_err(|_| NoMemory)?;
        let mut files = HashMap::with_hasher(Mix);
        files.try_reserve(capacity).map_err(|_| NoMemory)?;
        Ok(Pages {
            pool,
            meta,
            index,
            files,
            free,
            hand: 0,
            dirty: 0,
            stats: PageStats::default(),
        })
    }

    /// Pages the pool holds.
    pub fn capacity(&self) -> usize {
        self.meta.len()
    }

    /// Dirty pages, of every file.
    pub fn dirty_count(&self) -> usize {
        self.dirty
    }

    pub fn stats(&self) -> PageStats {
        self.stats
    }

    /// The slot holding `key`, if cached (a hit marks it recently used).
    pub fn get(&mut self, key: PageKey) -> Option<Slot> {
        match self.index.get(&key) {
            Some(&slot) => {
                self.meta[slot.0 as usize].referenced = true;
                self.stats.hits += 1;
                Some(slot)
            }
            None => {
                self.stats.misses += 1;
                None
            }
        }
    }

    /// The slot holding `key`, without counting a hit or a miss.
    pub fn peek(&self, key: PageKey) -> Option<Slot> {
        self.index.get(&key).copied()
    }

    /// What `slot` holds.
    pub fn key(&self, slot: Slot) -> PageKey {
        self.meta[slot.0 as usize].key
    }

    pub fn is_dirty(&self, slot: Slot) -> bool {
        self.meta[slot.0 as usize].dirty
    }

    pub fn data(&self, slot: Slot) -> &[u8] {
        let at = slot.0 as usize * PAGE;
        &self.pool[at..at + PAGE]
    }

    /// The page's bytes, to change: mark it dirty as well if the change
    /// must reach the disk.
    pub fn data_mut(&mut self, slot: Slot) -> &mut [u8] {
        let at = slot.0 as usize * PAGE;
        &mut self.pool[at..at + PAGE]
    }

    /// The counts of inode `ino`'s pages, if any is cached.
    pub fn file(&self, ino: u32) -> Option<FilePages> {
        self.files.get(&ino).copied()
    }

    /// A slot to fill: a free one, or one the clock hand takes from its
    /// page. When every page is dirty, the hand takes a dirty one, still
    /// bound (`Victim::dirty`): the caller writes it back and marks it
    /// clean before binding the slot anew.
    pub fn victim(&mut self) -> Victim {
        if let Some(&slot) = self.free.last() {
            return Victim { slot, dirty: false };
        }
        let n = self.meta.len();
        // First sweep: clean and not used lately; the hand clears the
        // marks it passes. Second sweep: any clean page. Then: the next
        // dirty page the hand meets.
        for sweep in 0..3 {
            for _ in 0..n {
                let at = self.hand;
                self.hand = (self.hand + 1) % n;
                let m = &mut self.meta[at];
                let take = match sweep {
                    0 => !m.dirty && !core::mem::replace(&mut m.referenced, false),
                    1 => !m.dirty,
                    _ => true,
                };
                if take {
                    let slot = Slot(at as u32);
                    return Victim {
                        slot,
                        dirty: m.dirty,
                    };
                }
            }
        }
        unreachable!("the third sweep takes the first slot it meets")
    }

    /// Makes `slot` hold `key`'s page, clean (its bytes are the caller's
    /// to fill). The page it held, which must be clean, leaves the cache.
    pub fn bind(&mut self, slot: Slot, key: PageKey) {
        debug_assert!(self.peek(key).is_none(), "a page is cached once");
        if self.meta[slot.0 as usize].used {
            self.stats.evictions += 1;
        }
        self.release(slot);
        if let Some(at) = self.free.iter().rposition(|&s| s == slot) {
            self.free.swap_remove(at);
        }
        self.meta[slot.0 as usize] = Meta {
            key,
            used: true,
            dirty: false,
            referenced: true,
        };
        self.index.insert(key, slot);
        self.files.entry(key.ino).or_default().cached += 1;
    }

    /// Empties `slot`, dropping its page even if dirty (the caller wrote
    /// it back, or its data is gone: truncated, or the file freed).
    pub fn release(&mut self, slot: Slot) {
        let m = self.meta[slot.0 as usize];
        if !m.used {
            return;
        }
        if m.dirty {
            self.set_clean(slot);
        }
        self.index.remove(&m.key);
        if let Some(f) = self.files.get_mut(&m.key.ino) {
            f.cached -= 1;
            if f.cached == 0 {
                self.files.remove(&m.key.ino);
            }
        }
        self.meta[slot.0 as usize] = Meta::FREE;
        self.free.push(slot);
    }

    /// A write changed `slot`'s page at time `now`: it must go to the disk.
    pub fn set_dirty(&mut self, slot: Slot, now: i64) {
        let m = &mut self.meta[slot.0 as usize];
        debug_assert!(m.used, "only a cached page is written");
        let ino = m.key.ino;
        let f = self.files.entry(ino).or_default();
        f.changed_at = Some(now);
        if !core::mem::replace(&mut m.dirty, true) {
            self.dirty += 1;
            f.dirty += 1;
        }
    }

    /// `slot`'s page is on the file system now.
    pub fn set_clean(&mut self, slot: Slot) {
        let m = &mut self.meta[slot.0 as usize];
        if !core::mem::replace(&mut m.dirty, false) {
            return;
        }
        self.dirty -= 1;
        self.stats.written_back += 1;
        if let Some(f) = self.files.get_mut(&m.key.ino) {
            f.dirty -= 1;
            if f.dirty == 0 {
                f.changed_at = None;
            }
        }
    }

    /// The slots of inode `ino`'s pages (of every inode: `None`) that
    /// `want` accepts, in (inode, index) order: the order to write them
    /// back in, so the file system sees each file's pages in sequence.
    pub fn slots(&self, ino: Option<u32>, want: impl Fn(PageKey, bool) -> bool) -> Vec<Slot> {
        if ino.is_some_and(|i| !self.files.contains_key(&i)) {
            return Vec::new();
        }
        let mut found: Vec<(PageKey, Slot)> = self
            .meta
            .iter()
            .enumerate()
            .filter(|(_, m)| m.used && ino.is_none_or(|i| m.key.ino == i) && want(m.key, m.dirty))
            .map(|(at, m)| (m.key, Slot(at as u32)))
            .collect();
        found.sort_unstable();
        found.into_iter().map(|(_, s)| s).collect()
    }

    /// Checks every count against the slots (tests call it after each
    /// operation); the first disagreement, if any.
    pub fn check(&self) -> Result<(), &'static str> {
        let used: Vec<&Meta> = self.meta.iter().filter(|m| m.used).collect();
        if used.len() != self.index.len() {
            return Err("index size differs from the slots in use");
        }
        if used.len() + self.free.len() != self.meta.len() {
            return Err("slots in use and free slots do not add up");
        }
        if used.iter().filter(|m| m.dirty).count() != self.dirty {
            return Err("dirty count differs from the dirty slots");
        }
        for m in &used {
            match self.index.get(&m.key) {
                Some(&s) if self.meta[s.0 as usize].key == m.key => {}
                _ => return Err("a slot's page is not indexed to it"),
            }
        }
        for (ino, f) in &self.files {
            let mine = used.iter().filter(|m| m.key.ino == *ino);
            if mine.clone().count() != f.cached as usize
                || mine.filter(|m| m.dirty).count() != f.dirty as usize
            {
                return Err("an inode's page counts differ from its slots");
            }
            if f.dirty == 0 && f.changed_at.is_some() {
                return Err("an inode with no dirty page has a pending change time");
            }
        }
        Ok(())
    }
}

/// What [`Pages::victim`] chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    pub slot: Slot,
    /// The slot's page is dirty: write it back before reusing the slot.
    pub dirty: bool,
}

/// The tables' hash: a 64-bit finalizer (splitmix64's) over the key's
/// words. Keys are inode numbers and page indices, which clients choose
/// only within their files' sizes, and every table is sized to the pool,
/// so no client can make long probe sequences; the mixing keeps pages of
/// one file (consecutive indices) spread over the table.
#[derive(Clone, Copy, Default)]
pub struct Mix;

impl BuildHasher for Mix {
    type Hasher = MixHasher;
    fn build_hasher(&self) -> MixHasher {
        MixHasher(0)
    }
}

#[derive(Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        let mut z = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ino: u32, index: u64) -> PageKey {
        PageKey { ino, index }
    }

    fn fill(p: &mut Pages, k: PageKey) -> Slot {
        let v = p.victim();
        assert!(!v.dirty);
        p.bind(v.slot, k);
        v.slot
    }

    #[test]
    fn a_pool_the_heap_cannot_give_is_refused_not_a_panic() {
        // 4 Gi pages of 4 KiB: no machine gives 16 TiB; the server then
        // halves its request (`servers/fs/server`'s `page_pool`).
        assert!(matches!(Pages::new(u32::MAX as usize), Err(NoMemory)));
        assert_eq!(Pages::new(0).unwrap().capacity(), 1, "at least one page");
    }

    #[test]
    fn a_bound_page_is_found_and_counted() {
        let mut p = Pages::new(4).unwrap();
        let s = fill(&mut p, key(12, 3));
        assert_eq!(p.get(key(12, 3)), Some(s));
        assert_eq!(p.get(key(12, 4)), None);
        assert_eq!(p.file(12).unwrap().cached, 1);
        p.set_dirty(s, 7);
        assert_eq!(
            p.file(12),
            Some(FilePages {
                cached: 1,
                dirty: 1,
                changed_at: Some(7)
            })
        );
        p.set_clean(s);
        assert_eq!(p.file(12).unwrap().changed_at, None);
        p.check().unwrap();
    }

    #[test]
    fn the_hand_prefers_clean_pages_and_gives_a_dirty_one_last() {
        let mut p = Pages::new(2).unwrap();
        let a = fill(&mut p, key(1, 0));
        let b = fill(&mut p, key(1, 1));
        p.set_dirty(a, 1);
        // b is clean: taken although recently used.
        assert_eq!(
            p.victim(),
            Victim {
                slot: b,
                dirty: false
            }
        );
        p.set_dirty(b, 1);
        let v = p.victim();
        assert!(v.dirty);
        p.set_clean(v.slot);
        p.bind(v.slot, key(2, 0));
        assert_eq!(p.peek(key(2, 0)), Some(v.slot));
        assert_eq!(p.dirty_count(), 1);
        p.check().unwrap();
    }

    #[test]
    fn release_drops_a_page_and_its_file_entry() {
        let mut p = Pages::new(3).unwrap();
        let s = fill(&mut p, key(5, 0));
        p.set_dirty(s, 1);
        p.release(s);
        assert_eq!(p.file(5), None);
        assert_eq!(p.dirty_count(), 0);
        assert_eq!(p.peek(key(5, 0)), None);
        p.check().unwrap();
    }

    #[test]
    fn slots_come_in_file_order() {
        let mut p = Pages::new(8).unwrap();
        for (ino, index) in [(3, 9), (2, 4), (3, 1), (2, 0)] {
            let s = fill(&mut p, key(ino, index));
            p.set_dirty(s, 1);
        }
        let keys: Vec<PageKey> = p
            .slots(None, |_, dirty| dirty)
            .into_iter()
            .map(|s| p.key(s))
            .collect();
        assert_eq!(keys, [key(2, 0), key(2, 4), key(3, 1), key(3, 9)]);
        assert_eq!(p.slots(Some(3), |_, _| true).len(), 2);
        assert!(p.slots(Some(4), |_, _| true).is_empty());
    }
}
