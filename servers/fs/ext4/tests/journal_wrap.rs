//! The journal through any number of synced transactions: rsext4 0.9.2
//! failed to unmount once its journal was two thirds full (about 200
//! syncs on the 4 MiB journal of a 64 MiB image); the crate works around
//! it (`src/journal_room.rs`). Here a small image unmounts after its
//! journal went round the ring, the default system's disk size
//! (256 MiB, 16 MiB journal) takes 100,000 fsyncs of a mixed workload
//! and unmounts, and a mount dropped after its journal wrapped leaves an
//! image that replays, holds every fsynced byte and checks clean.

mod common;

use std::collections::BTreeMap;

use common::{read_all, Image, MemDisk, Mkfs, NOW};
use conflux_ext4::{FileSystem, FixedClock};

/// The case that failed first: synced appends to three logs.
#[test]
fn unmount_after_many_synced_appends() {
    let img = Image::new(
        "unmount_after_many_synced_appends",
        Mkfs {
            size_mib: 64,
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    fs.mkdir("/crash", 0o755).unwrap();
    let inos: Vec<_> = (0..3)
        .map(|f| fs.create(&format!("/crash/log{f}"), 0o644).unwrap().ino)
        .collect();
    let mut next = [0u64; 3];
    for batch in 0..400u32 {
        let f = (batch % 3) as usize;
        for _ in 0..1 + batch % 3 {
            fs.write_at(inos[f], next[f] * 64, &[0xab; 64]).unwrap();
            next[f] += 1;
        }
        fs.sync().unwrap();
    }
    fs.unmount().unwrap();
    img.fsck();
}

/// 100,000 fsyncs, each after one change of data or metadata, on an image
/// the size of the default system's disk; then a clean unmount, e2fsck,
/// and every file read back after a remount.
#[test]
fn hundred_thousand_fsyncs() {
    let img = Image::new(
        "hundred_thousand_fsyncs",
        Mkfs {
            size_mib: 256,
            ..Mkfs::default()
        },
    );
    let disk = MemDisk::load(&img.path);
    let mut fs = FileSystem::mount(disk.clone(), FixedClock(NOW)).unwrap();
    let mut work = Workload::start(&mut fs, 1);
    for step in 0..100_000u32 {
        work.step(&mut fs);
        fs.sync()
            .unwrap_or_else(|e| panic!("fsync {step} failed: {e}"));
    }
    fs.unmount().unwrap();
    disk.save(&img.path);
    img.fsck();
    let mut fs = FileSystem::mount(MemDisk::load(&img.path), FixedClock(NOW)).unwrap();
    work.check(&mut fs, Match::Exact);
}

/// A mount dropped without unmounting, its journal wrapped round the end
/// of the ring, is replayed at the next mount: every fsynced byte is there
/// and the image checks clean. The host's e2fsck, replaying the same
/// journal itself, agrees.
#[test]
fn crash_after_wrapped_journal_replays() {
    let img = Image::new(
        "crash_after_wrapped_journal_replays",
        Mkfs {
            size_mib: 64,
            ..Mkfs::default()
        },
    );
    let disk = MemDisk::load(&img.path);
    let mut fs = FileSystem::mount(disk.clone(), FixedClock(NOW)).unwrap();
    let mut work = Workload::start(&mut fs, 2);
    for _ in 0..CRASH_AFTER {
        work.step(&mut fs);
        fs.sync().unwrap();
    }
    // Appends after the last fsync, left out of the model: the crash may
    // keep or lose them, but they must not cost a synced byte.
    for f in 0..LOGS {
        let ino = fs.lookup(&log(f)).unwrap().ino;
        let end = work.files[&log(f)].len() as u64;
        fs.write_at(ino, end, &[0x5a; 3000]).unwrap();
    }
    drop(fs);
    disk.save(&img.path);
    let (start, wrapped_to) = live_log(&img);
    assert!(
        wrapped_to < start,
        "the crash should leave a journal that wraps (it starts at block {start}, and no \
         transaction was found before it): change CRASH_AFTER"
    );

    let host = img.path.with_file_name("host-replayed.img");
    std::fs::copy(&img.path, &host).unwrap();
    replay_on_host(&host);

    let mut fs = FileSystem::mount(disk.clone(), FixedClock(NOW)).unwrap();
    work.check(&mut fs, Match::SyncedPrefix);
    fs.unmount().unwrap();
    disk.save(&img.path);
    img.fsck();
}

/// Synced steps before the crash: enough that the live part of the 4 MiB
/// journal runs past the end of the ring (the test checks that it does).
const CRASH_AFTER: u32 = 1_300;

/// Logs every workload appends to.
const LOGS: usize = 3;
/// A log longer than this is cut back to nothing.
const LOG_MAX: usize = 48 * 1024;
/// Most files the churn directory holds before one is removed.
const CHURN_MAX: usize = 40;

/// How a file read back must compare with the model.
#[derive(Clone, Copy, PartialEq)]
enum Match {
    Exact,
    /// A log may hold more than was synced (appends after the last sync
    /// may have reached the disk), never less and never other bytes.
    SyncedPrefix,
}

/// A deterministic mix of changes in `/w`: appends to, overwrites in and
/// truncations of three logs, and small files created, renamed and
/// removed in `/w/churn`, with directories made and removed beside them.
struct Workload {
    rng: u64,
    next_name: u32,
    /// Path → contents, as of now.
    files: BTreeMap<String, Vec<u8>>,
    /// Directories under `/w/churn`.
    dirs: Vec<String>,
}

impl Workload {
    fn start<D: conflux_ext4::BlockDevice>(fs: &mut FileSystem<D>, seed: u64) -> Workload {
        fs.mkdir("/w", 0o755).unwrap();
        fs.mkdir("/w/churn", 0o755).unwrap();
        let mut files = BTreeMap::new();
        for f in 0..LOGS {
            fs.create(&log(f), 0o644).unwrap();
            files.insert(log(f), Vec::new());
        }
        fs.sync().unwrap();
        Workload {
            rng: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            next_name: 0,
            files,
            dirs: Vec::new(),
        }
    }

    fn next(&mut self, below: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % below
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let seed = self.next(u64::MAX);
        (0..len as u64)
            .map(|i| (seed.wrapping_add(i).wrapping_mul(0x2545_f491)) as u8)
            .collect()
    }

    /// One change: the caller syncs after it.
    fn step<D: conflux_ext4::BlockDevice>(&mut self, fs: &mut FileSystem<D>) {
        match self.next(10) {
            0..=5 => {
                let (f, len) = (self.next(LOGS as u64) as usize, 1 + self.next(200));
                self.append(fs, f, len as usize);
            }
            6 => self.overwrite(fs),
            7 => self.create(fs),
            8 => self.rename_or_remove(fs),
            _ => self.mkdir_or_rmdir(fs),
        }
    }

    fn append<D: conflux_ext4::BlockDevice>(
        &mut self,
        fs: &mut FileSystem<D>,
        f: usize,
        len: usize,
    ) {
        let path = log(f);
        let ino = fs.lookup(&path).unwrap().ino;
        if self.files[&path].len() + len > LOG_MAX {
            fs.set_len(ino, 0).unwrap();
            self.files.insert(path, Vec::new());
            return;
        }
        let data = self.bytes(len);
        let old = self.files.get_mut(&path).unwrap();
        fs.write_at(ino, old.len() as u64, &data).unwrap();
        old.extend_from_slice(&data);
    }

    fn overwrite<D: conflux_ext4::BlockDevice>(&mut self, fs: &mut FileSystem<D>) {
        let path = log(self.next(LOGS as u64) as usize);
        let len = self.files[&path].len();
        if len == 0 {
            return self.append(fs, 0, 1);
        }
        let at = self.next(len as u64) as usize;
        let data = self.bytes((len - at).min(100));
        let ino = fs.lookup(&path).unwrap().ino;
        fs.write_at(ino, at as u64, &data).unwrap();
        self.files.get_mut(&path).unwrap()[at..at + data.len()].copy_from_slice(&data);
    }

    fn create<D: conflux_ext4::BlockDevice>(&mut self, fs: &mut FileSystem<D>) {
        let path = self.fresh_name();
        let data = {
            let len = self.next(6000) as usize;
            self.bytes(len)
        };
        let ino = fs.create(&path, 0o644).unwrap().ino;
        fs.write_at(ino, 0, &data).unwrap();
        self.files.insert(path, data);
    }

    fn rename_or_remove<D: conflux_ext4::BlockDevice>(&mut self, fs: &mut FileSystem<D>) {
        let churn: Vec<String> = self
            .files
            .keys()
            .filter(|p| p.starts_with("/w/churn/"))
            .cloned()
            .collect();
        if churn.is_empty() {
            return self.create(fs);
        }
        let from = churn[self.next(churn.len() as u64) as usize].clone();
        let data = self.files.remove(&from).unwrap();
        if churn.len() > CHURN_MAX || self.next(2) == 0 {
            fs.unlink(&from).unwrap();
        } else {
            let to = self.fresh_name();
            fs.rename(&from, &to).unwrap();
            self.files.insert(to, data);
        }
    }

    fn mkdir_or_rmdir<D: conflux_ext4::BlockDevice>(&mut self, fs: &mut FileSystem<D>) {
        if self.dirs.len() < 8 && self.next(2) == 0 {
            let path = format!("/w/churn/d{}", self.next_name);
            self.next_name += 1;
            fs.mkdir(&path, 0o755).unwrap();
            self.dirs.push(path);
        } else if let Some(path) = self.dirs.pop() {
            fs.rmdir(&path).unwrap();
        } else {
            self.create(fs);
        }
    }

    fn fresh_name(&mut self) -> String {
        self.next_name += 1;
        format!("/w/churn/f{}", self.next_name)
    }

    /// Every file and directory the model holds is on `fs`, with its
    /// contents, and `/w/churn` holds nothing else.
    fn check<D: conflux_ext4::BlockDevice>(&self, fs: &mut FileSystem<D>, how: Match) {
        for (path, want) in &self.files {
            let got = read_all(fs, path);
            let ok = match how {
                Match::Exact => got == *want,
                Match::SyncedPrefix if path.starts_with("/w/log") => got.starts_with(want),
                Match::SyncedPrefix => got == *want,
            };
            assert!(
                ok,
                "{path}: {} bytes read back, {} expected, or other bytes",
                got.len(),
                want.len()
            );
        }
        let churn = fs.lookup("/w/churn").unwrap().ino;
        let mut listed: Vec<String> = fs
            .read_dir_all(churn)
            .unwrap()
            .into_iter()
            .map(|e| format!("/w/churn/{}", String::from_utf8(e.name).unwrap()))
            .collect();
        listed.sort();
        let mut want: Vec<String> = self
            .files
            .keys()
            .filter(|p| p.starts_with("/w/churn/"))
            .chain(&self.dirs)
            .cloned()
            .collect();
        want.sort();
        assert_eq!(listed, want, "/w/churn lists other names than the model");
    }
}

fn log(f: usize) -> String {
    format!("/w/log{f}")
}

/// Where the live part of the image's journal starts, and the lowest
/// journal block any of its transactions uses (below the start if the
/// log wraps round the end of the ring), as the host's debugfs finds them.
fn live_log(img: &Image) -> (u64, u64) {
    let out = img.debugfs("logdump");
    let text = String::from_utf8_lossy(&out.stdout);
    let number_after = |line: &str, key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let start = text
        .lines()
        .find_map(|l| number_after(l, "Journal starts at block "))
        .unwrap_or_else(|| panic!("debugfs logdump gave no start:\n{text}"));
    let lowest = text
        .lines()
        .filter(|l| l.starts_with("Found expected sequence"))
        .filter_map(|l| number_after(l, ") at block "))
        .min()
        .unwrap_or_else(|| panic!("debugfs logdump found no transaction:\n{text}"));
    (start, lowest)
}

/// The host's e2fsck replays the journal of the image at `path` (a copy)
/// and then must find nothing to repair.
fn replay_on_host(path: &std::path::Path) {
    let tool = common::tool("e2fsck");
    let replay = std::process::Command::new(&tool)
        .arg("-fy")
        .arg(path)
        .output()
        .unwrap();
    let check = std::process::Command::new(&tool)
        .arg("-fn")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        replay.status.code().is_some_and(|c| c <= 1) && check.status.success(),
        "the host's e2fsck did not replay the crashed image cleanly:\n{}{}\n-fn after it:\n{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr),
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}
