//! Directory listings kept between calls: the pages `read_dir` returned,
//! each under the directory, cursor and size it was asked with, so that
//! listing a directory again (`ls -l`, warm) takes no walk of its blocks
//! through rsext4 (about 6,000 instructions per entry on the host).
//!
//! Part of the metadata cache (`meta_cache`), and invalidated with it:
//! every change to a directory's names touches the directory (its times
//! change), and touching, forgetting or removing a directory drops its
//! pages. A page's entries are packed into one arena allocated at mount,
//! as the other tables are (so the listings' memory is fixed at mount and
//! an entry costs no allocation); a dropped page's bytes
//! are not reused, and when the arena or the page table is full it is
//! emptied at once — listings come back with the next pass.

use alloc::boxed::Box;
use alloc::vec;

use crate::types::{DirCursor, FileType, Ino};

/// Bits of the filter that says which directories may have pages.
const FILTER_BITS: usize = 4096;

/// Where one page's entries are in the arena.
#[derive(Debug, Clone, Copy)]
struct Page {
    dir: u32,
    from: DirCursor,
    max: usize,
    at: usize,
    len: usize,
    next: DirCursor,
}

/// The cached pages (see the module's comment).
#[derive(Debug)]
pub(crate) struct Listings {
    arena: Box<[u8]>,
    used: usize,
    pages: Box<[Option<Page>]>,
    count: usize,
    /// The page after the last hit: a listing asks for its pages in turn.
    hint: usize,
    /// A bit per `dir % FILTER_BITS` that has (or had) pages, so that
    /// touching a file (every write) does not walk the page table.
    filter: Box<[u64]>,
}

impl Listings {
    /// An arena of `bytes` and room for `pages` pages (sized with the
    /// other tables: `MetaSizes`).
    pub(crate) fn new(bytes: usize, pages: usize) -> Self {
        Listings {
            arena: vec![0; bytes.max(1)].into_boxed_slice(),
            used: 0,
            pages: vec![None; pages.max(1)].into_boxed_slice(),
            count: 0,
            hint: 0,
            filter: vec![0; FILTER_BITS / 64].into_boxed_slice(),
        }
    }
}

/// An entry as it is packed: inode (4 bytes LE), kind, name length, name.
const HEAD: usize = 6;

fn kind_code(kind: FileType) -> u8 {
    match kind {
        FileType::File => 1,
        FileType::Directory => 2,
        FileType::Symlink => 3,
        FileType::Special => 4,
        FileType::Unknown => 0,
    }
}

fn kind_of(code: u8) -> FileType {
    match code {
        1 => FileType::File,
        2 => FileType::Directory,
        3 => FileType::Symlink,
        4 => FileType::Special,
        _ => FileType::Unknown,
    }
}

impl Listings {
    fn bit(dir: Ino) -> (usize, u64) {
        let b = dir.0 as usize % FILTER_BITS;
        (b / 64, 1 << (b % 64))
    }

    /// Hands each entry of the page `read_dir(dir, from, max)` returned
    /// before to `each` and returns the cursor after it; `None` if that
    /// page is not cached.
    pub(crate) fn replay(
        &mut self,
        dir: Ino,
        from: DirCursor,
        max: usize,
        each: &mut impl FnMut(Ino, FileType, &[u8]),
    ) -> Option<DirCursor> {
        let (word, bit) = Self::bit(dir);
        if self.filter[word] & bit == 0 || self.count == 0 {
            return None;
        }
        let at = (0..self.count)
            .map(|i| (self.hint + i) % self.count)
            .find(|&i| {
                self.pages[i].is_some_and(|p| p.dir == dir.0 && p.from == from && p.max == max)
            })?;
        let page = self.pages[at]?;
        self.hint = at + 1;
        let mut bytes = &self.arena[page.at..page.at + page.len];
        while bytes.len() >= HEAD {
            let ino = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let name_len = usize::from(bytes[5]);
            each(Ino(ino), kind_of(bytes[4]), &bytes[HEAD..HEAD + name_len]);
            bytes = &bytes[HEAD + name_len..];
        }
        Some(page.next)
    }

    /// Starts recording the page `read_dir(dir, from, max)` is reading:
    /// returns where its entries go, or `None` if there is no room even
    /// in an emptied cache.
    pub(crate) fn record(&mut self, dir: Ino, from: DirCursor, max: usize) -> Recorder<'_> {
        if self.count == self.pages.len() {
            self.clear();
        }
        Recorder {
            start: self.used,
            listings: self,
            dir,
            from,
            max,
            overflow: false,
        }
    }

    fn clear(&mut self) {
        self.used = 0;
        self.count = 0;
        self.hint = 0;
        self.pages.fill(None);
        self.filter.fill(0);
    }

    /// Directory `dir`'s names changed, or it is gone: its pages go.
    pub(crate) fn drop_dir(&mut self, dir: Ino) {
        let (word, bit) = Self::bit(dir);
        if self.filter[word] & bit == 0 {
            return;
        }
        for slot in self.pages[..self.count].iter_mut() {
            if slot.is_some_and(|p| p.dir == dir.0) {
                *slot = None;
            }
        }
    }

    /// Pages held, for tests.
    #[cfg(test)]
    pub(crate) fn pages(&self) -> usize {
        self.pages[..self.count].iter().flatten().count()
    }
}

/// A page being recorded: entries are appended as they are read, and the
/// page is kept only when [`Recorder::finish`] is called.
pub(crate) struct Recorder<'a> {
    listings: &'a mut Listings,
    start: usize,
    dir: Ino,
    from: DirCursor,
    max: usize,
    overflow: bool,
}

impl Recorder<'_> {
    /// Appends one entry (`name` at most 255 bytes, as ext4's are).
    pub(crate) fn push(&mut self, ino: Ino, kind: FileType, name: &[u8]) {
        let Ok(name_len) = u8::try_from(name.len()) else {
            self.overflow = true;
            return;
        };
        let l = &mut *self.listings;
        let need = HEAD + name.len();
        if self.overflow || l.used + need > l.arena.len() {
            self.overflow = true;
            return;
        }
        let at = l.used;
        l.arena[at..at + 4].copy_from_slice(&ino.0.to_le_bytes());
        l.arena[at + 4] = kind_code(kind);
        l.arena[at + 5] = name_len;
        l.arena[at + HEAD..at + need].copy_from_slice(name);
        l.used += need;
    }

    /// The page was read whole; `next` is the cursor after it. A page
    /// that did not fit empties the cache (the next pass starts afresh).
    pub(crate) fn finish(self, next: DirCursor) {
        let l = self.listings;
        if self.overflow {
            l.clear();
            return;
        }
        let (word, bit) = Listings::bit(self.dir);
        l.filter[word] |= bit;
        l.pages[l.count] = Some(Page {
            dir: self.dir.0,
            from: self.from,
            max: self.max,
            at: self.start,
            len: l.used - self.start,
            next,
        });
        l.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the tests were written for.
    const ARENA_BYTES: usize = 512 * 1024;
    const PAGES: usize = 1024;

    impl Default for Listings {
        fn default() -> Self {
            Listings::new(ARENA_BYTES, PAGES)
        }
    }
    use alloc::vec::Vec;

    /// A page as (inode, name) pairs.
    type Entries = Vec<(u32, Vec<u8>)>;

    fn replayed(l: &mut Listings, dir: u32) -> Option<(Entries, DirCursor)> {
        let mut got = Vec::new();
        let next = l.replay(Ino(dir), DirCursor::START, 8, &mut |ino, _, name| {
            got.push((ino.0, name.to_vec()))
        })?;
        Some((got, next))
    }

    #[test]
    fn a_page_replays_as_recorded_until_its_directory_changes() {
        let mut l = Listings::default();
        let mut r = l.record(Ino(5), DirCursor::START, 8);
        r.push(Ino(12), FileType::File, b"a");
        r.push(Ino(13), FileType::Directory, b"bee");
        r.finish(DirCursor::END);
        let (got, next) = replayed(&mut l, 5).unwrap();
        assert_eq!(got, [(12, b"a".to_vec()), (13, b"bee".to_vec())]);
        assert!(next.is_end());
        assert!(replayed(&mut l, 6).is_none());
        l.drop_dir(Ino(6));
        assert_eq!(l.pages(), 1);
        l.drop_dir(Ino(5));
        assert!(replayed(&mut l, 5).is_none());
    }

    #[test]
    fn a_full_cache_empties_and_an_oversized_page_is_not_kept() {
        let mut l = Listings::default();
        for dir in 1..=PAGES as u32 + 1 {
            let mut r = l.record(Ino(dir), DirCursor::START, 8);
            r.push(Ino(dir), FileType::File, b"x");
            r.finish(DirCursor::END);
        }
        assert_eq!(l.pages(), 1);
        assert!(replayed(&mut l, PAGES as u32 + 1).is_some());
        let mut r = l.record(Ino(9), DirCursor::START, 8);
        let name = [b'n'; 255];
        for i in 0..ARENA_BYTES / 255 + 1 {
            r.push(Ino(i as u32 + 1), FileType::File, &name);
        }
        r.finish(DirCursor::END);
        assert_eq!(l.pages(), 0);
        assert!(replayed(&mut l, 9).is_none());
    }
}
