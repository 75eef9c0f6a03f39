//! The page cache against a model: random sequences of writes, reads,
//! truncates, syncs, unlinks, renames over a file, hard links and
//! remounts go both to `Files` (a pool of a few pages, so the clock hand
//! writes dirty pages back all the time) and to a plain map of file
//! contents. Every read and every size must match the model; after the
//! sequence the image is unmounted, must be e2fsck clean, and a fresh
//! mount (with no cache) must read what the model holds.

mod support;

use std::collections::BTreeMap;

use conflux_ext4::{Error, FileSystem, FixedClock};
use conflux_fs_core::{Files, Pages};
use proptest::prelude::*;
use support::common::{self, pattern, FileDisk, Image, Mkfs};

const NAMES: [&str; 3] = ["/a", "/b", "/c"];

#[derive(Debug, Clone)]
enum Op {
    Create(usize),
    Write(usize, u64, usize, u32),
    Read(usize, u64, usize),
    Truncate(usize, u64),
    Fsync(usize),
    Sync,
    Unlink(usize),
    Rename(usize, usize),
    Link(usize, usize),
    Remount,
}

fn op() -> impl Strategy<Value = Op> {
    let name = || 0..NAMES.len();
    prop_oneof![
        1 => name().prop_map(Op::Create),
        4 => (name(), 0..40_000u64, 1..20_000usize, any::<u32>())
            .prop_map(|(f, at, len, seed)| Op::Write(f, at, len, seed)),
        4 => (name(), 0..45_000u64, 0..20_000usize).prop_map(|(f, at, len)| Op::Read(f, at, len)),
        1 => (name(), 0..45_000u64).prop_map(|(f, len)| Op::Truncate(f, len)),
        1 => name().prop_map(Op::Fsync),
        1 => Just(Op::Sync),
        1 => name().prop_map(Op::Unlink),
        1 => (name(), name()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => (name(), name()).prop_map(|(a, b)| Op::Link(a, b)),
        1 => Just(Op::Remount),
    ]
}

/// Names → file id; file id → contents (hard links share one).
#[derive(Default)]
struct Model {
    names: BTreeMap<usize, u32>,
    data: BTreeMap<u32, Vec<u8>>,
    next: u32,
}

impl Model {
    fn file(&mut self, f: usize) -> Result<&mut Vec<u8>, Error> {
        let id = self.names.get(&f).ok_or(Error::NotFound)?;
        Ok(self.data.get_mut(id).expect("data of a named file"))
    }

    fn unname(&mut self, f: usize) {
        if let Some(id) = self.names.remove(&f) {
            if !self.names.values().any(|&i| i == id) {
                self.data.remove(&id);
            }
        }
    }
}

fn mount(image: &Image, pages: usize) -> Files<FileDisk> {
    let fs = image.mount();
    Files::new(fs, Pages::new(pages).unwrap(), FixedClock(common::NOW))
}

/// Applies `op` to both; `Err` with what differed.
fn step(
    image: &Image,
    files: &mut Option<Files<FileDisk>>,
    model: &mut Model,
    op: &Op,
) -> Result<(), String> {
    let fs = files.as_mut().expect("mounted");
    let ino = |fs: &mut Files<FileDisk>, f: usize| fs.lookup(NAMES[f]).map(|s| s.ino);
    match *op {
        Op::Create(f) => {
            let got = fs.create(NAMES[f], 0o644).map(|_| ());
            let want = if model.names.contains_key(&f) {
                Err(Error::Exists)
            } else {
                model.next += 1;
                model.names.insert(f, model.next);
                model.data.insert(model.next, Vec::new());
                Ok(())
            };
            same(op, got, want)?;
        }
        Op::Write(f, at, len, seed) => {
            let bytes = pattern(seed, len);
            let got = ino(fs, f).and_then(|i| fs.write_at(i, at, &bytes));
            let want = model.file(f).map(|d| {
                let end = at as usize + len;
                if d.len() < end {
                    d.resize(end, 0);
                }
                d[at as usize..end].copy_from_slice(&bytes);
            });
            same(op, got, want)?;
        }
        Op::Read(f, at, len) => {
            let mut buf = vec![0xee; len];
            let got = ino(fs, f).and_then(|i| fs.read_at(i, at, &mut buf));
            let want = model.file(f).map(|d| {
                let from = (at as usize).min(d.len());
                let to = (at as usize + len).min(d.len());
                d[from..to].to_vec()
            });
            match (got, want) {
                (Ok(n), Ok(w)) if buf[..n] == w[..] => {}
                (Err(a), Err(b)) if a == b => {}
                (Ok(n), Ok(w)) => {
                    let first = buf[..n.min(w.len())]
                        .iter()
                        .zip(&w)
                        .position(|(a, b)| a != b);
                    return Err(format!(
                        "{op:?}: read {n} bytes, the model has {} (first difference at {first:?})",
                        w.len()
                    ));
                }
                (g, w) => {
                    return Err(format!(
                        "{op:?}: got {g:?}, the model says {:?}",
                        w.map(|w| w.len())
                    ))
                }
            }
        }
        Op::Truncate(f, len) => {
            let got = ino(fs, f).and_then(|i| fs.set_len(i, len));
            let want = model.file(f).map(|d| d.resize(len as usize, 0));
            same(op, got, want)?;
        }
        Op::Fsync(f) => {
            let got = ino(fs, f).and_then(|i| fs.sync_file(i));
            let want = model.file(f).map(|_| ());
            same(op, got, want)?;
        }
        Op::Sync => fs.sync().map_err(|e| format!("sync: {e:?}"))?,
        Op::Unlink(f) => {
            let got = fs.unlink(NAMES[f]);
            let want = match model.names.contains_key(&f) {
                true => {
                    model.unname(f);
                    Ok(())
                }
                false => Err(Error::NotFound),
            };
            same(op, got, want)?;
        }
        Op::Rename(a, b) => {
            let got = fs.rename(NAMES[a], NAMES[b]);
            let want = match model.names.get(&a).copied() {
                None => Err(Error::NotFound),
                Some(id) if a == b || model.names.get(&b) == Some(&id) => Ok(()),
                Some(id) => {
                    model.unname(b);
                    model.names.remove(&a);
                    model.names.insert(b, id);
                    Ok(())
                }
            };
            same(op, got, want)?;
        }
        Op::Link(a, b) => {
            let got = fs.link(NAMES[a], NAMES[b]).map(|_| ());
            let want = match (model.names.get(&a).copied(), model.names.contains_key(&b)) {
                (None, _) => Err(Error::NotFound),
                (Some(_), true) => Err(Error::Exists),
                (Some(id), false) => {
                    model.names.insert(b, id);
                    Ok(())
                }
            };
            same(op, got, want)?;
        }
        Op::Remount => {
            let fs = files.take().expect("mounted");
            let pages = fs.pages().capacity();
            fs.unmount().map_err(|e| format!("unmount: {e:?}"))?;
            *files = Some(mount(image, pages));
        }
    }
    // Every size as the model says, with the writes still in the cache.
    let fs = files.as_mut().expect("mounted");
    for (f, name) in NAMES.iter().enumerate() {
        let size = fs.lookup(name).map(|s| s.size);
        let want = model.file(f).map(|d| d.len() as u64);
        if size != want {
            return Err(format!(
                "after {op:?}: size of {name} {size:?}, the model says {want:?}"
            ));
        }
    }
    fs.pages().check().map_err(|e| format!("after {op:?}: {e}"))
}

fn same(op: &Op, got: Result<(), Error>, want: Result<(), Error>) -> Result<(), String> {
    match got == want {
        true => Ok(()),
        false => Err(format!("{op:?}: got {got:?}, the model says {want:?}")),
    }
}

/// Runs `ops` with a pool of `pages`, then checks the image and a cold
/// mount against the model.
fn run(name: &str, pages: usize, ops: &[Op]) -> Result<(), String> {
    let image = Image::new(name, Mkfs::default());
    let mut files = Some(mount(&image, pages));
    let mut model = Model::default();
    for op in ops {
        step(&image, &mut files, &mut model, op)?;
    }
    files
        .take()
        .unwrap()
        .unmount()
        .map_err(|e| format!("unmount: {e:?}"))?;
    image.fsck();
    let mut cold: FileSystem<FileDisk> = image.mount();
    for (f, name) in NAMES.iter().enumerate() {
        let want = model.file(f).ok().cloned();
        let got = cold.lookup(name).ok().map(|s| {
            let mut buf = vec![0; s.size as usize];
            let n = cold.read_at(s.ino, 0, &mut buf).unwrap();
            buf.truncate(n);
            buf
        });
        if got != want {
            return Err(format!("{name} after a cold mount differs from the model"));
        }
    }
    cold.unmount().unwrap();
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_page_cache_reads_and_keeps_what_the_model_does(
        ops in prop::collection::vec(op(), 1..40),
        pages in prop::sample::select(vec![1usize, 3, 8, 64]),
    ) {
        run("page-cache-model", pages, &ops).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn an_overwrite_in_the_cache_is_seen_by_stat_and_reaches_the_disk_at_fsync() {
    let image = Image::new("page-cache-fsync", Mkfs::default());
    let mut fs = mount(&image, 8);
    let ino = fs.create("/f", 0o644).unwrap().ino;
    fs.write_at(ino, 0, &[1; 8192]).unwrap();
    fs.write_at(ino, 100, &[2; 4096]).unwrap();
    assert_eq!(
        fs.pages().dirty_count(),
        2,
        "an overwrite stays in the cache"
    );
    fs.sync_file(ino).unwrap();
    assert_eq!(fs.pages().dirty_count(), 0);
    drop(fs); // a crash: no unmount
    let mut cold = image.mount();
    let mut buf = vec![0; 8192];
    assert_eq!(cold.read_at(ino, 0, &mut buf).unwrap(), 8192);
    assert!(buf[..100].iter().all(|&b| b == 1));
    assert!(buf[100..4196].iter().all(|&b| b == 2));
    assert!(buf[4196..].iter().all(|&b| b == 1));
}

#[test]
fn a_cached_read_follows_relatime() {
    let image = Image::new("page-cache-relatime", Mkfs::default());
    let mut fs = mount(&image, 8);
    let ino = fs.create("/f", 0o644).unwrap().ino;
    fs.write_at(ino, 0, &[7; 100]).unwrap();
    let mut buf = [0; 100];
    // Every time on this image is NOW: nothing is older than the data.
    fs.read_at(ino, 0, &mut buf).unwrap();
    let before = fs.stat(ino).unwrap();
    fs.read_at(ino, 0, &mut buf).unwrap();
    assert_eq!(
        fs.stat(ino).unwrap(),
        before,
        "a second read changes nothing"
    );
    fs.unmount().unwrap();
    image.fsck();
}

#[test]
fn a_freed_file_leaves_no_pages_for_the_next_file_with_its_number() {
    let image = Image::new("page-cache-reuse", Mkfs::default());
    let mut fs = mount(&image, 8);
    let old = fs.create("/old", 0o644).unwrap().ino;
    fs.write_at(old, 0, &[9; 4096]).unwrap();
    fs.write_at(old, 0, &[8; 4096]).unwrap(); // dirty in the cache
    fs.unlink("/old").unwrap();
    assert_eq!(fs.pages().file(old.0), None);
    let new = fs.create("/new", 0o644).unwrap().ino;
    assert_eq!(new, old, "ext4 gives the freed number to the next file");
    fs.set_len(new, 4096).unwrap();
    let mut buf = [1; 4096];
    fs.read_at(new, 0, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0), "the new file reads zeros");
    fs.unmount().unwrap();
    image.fsck();
}

#[test]
fn an_empty_read_or_write_anywhere_is_nothing() {
    let image = Image::new("page-cache-empty", Mkfs::default());
    let mut fs = mount(&image, 4);
    let ino = fs.create("/f", 0o644).unwrap().ino;
    fs.write_at(ino, 0, &[5; 5000]).unwrap();
    for at in [0, 1, 4095, 4096, 4999, 5000, 9000, u64::MAX] {
        assert_eq!(fs.read_at(ino, at, &mut []).unwrap(), 0, "read at {at}");
        fs.write_at(ino, at, &[]).unwrap();
    }
    assert_eq!(fs.stat(ino).unwrap().size, 5000);
    fs.unmount().unwrap();
    image.fsck();
}
