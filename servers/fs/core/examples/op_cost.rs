//! What the file server's hot operations cost, on the host, for counting
//! instructions with callgrind: `statat` of every entry of a 5,000-file
//! hash-tree-indexed directory (the `ls -l` bench), and cached 4 KiB
//! `pread` / `pwrite` of random blocks of a 4 MiB file (the dbsim bench),
//! each through `FileService` as the server's per-call path runs it, on
//! ext4 over the block cache with the guest's 2,048 slots, everything
//! warm (one untimed round of each first).
//!
//! Each phase is its own `#[inline(never)]` function, so callgrind's
//! inclusive count of that function over the number of operations is the
//! cost of one operation (see docs/PERFORMANCE.md, "fs operations"):
//!
//! ```text
//! cargo build --release -p conflux-fs-core --example op_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/op.cg target/release/examples/op_cost
//! callgrind_annotate --inclusive=yes /tmp/op.cg | grep phase_
//! ```
//!
//! It needs the host's `mke2fs` and `e2fsck` (e2fsprogs), as the tests do.

use std::path::{Path, PathBuf};
use std::process::Command;

use conflux_ext4::{FileSystem, FixedClock};
use conflux_fs_core::{
    Block, BlockCache, Disk, DiskError, FileService, Files, Grant, Inodes, Pages, Session, BLOCK,
};
use conflux_fs_protocol::ops::{
    CLOSE, OPEN, O_DIRECTORY, O_RDONLY, O_RDWR, PREAD, PWRITE, READDIR, STAT, STATAT,
};
use conflux_fs_protocol::record::{Dirent, Stat};
use cosy_abi::{Args, Service};

const FILES: usize = 5000;
const DB_BLOCKS: u64 = 1024;
const CACHE_SLOTS: usize = 2048;
/// Page-cache pages: the 4 MiB database fits.
const PAGE_SLOTS: usize = 2048;
/// Random reads per round (every second one is written back).
const READS: usize = 3000;

/// The image, in memory: a disk of 4 KiB blocks.
struct MemDisk(Vec<u8>);

impl Disk for MemDisk {
    fn blocks(&self) -> u64 {
        (self.0.len() / BLOCK) as u64
    }
    fn read(&mut self, block: u64, buf: &mut Block) -> Result<(), DiskError> {
        let at = block as usize * BLOCK;
        buf.copy_from_slice(&self.0[at..at + BLOCK]);
        Ok(())
    }
    fn write_all(&mut self, blocks: &[(u64, &Block)]) -> Result<(), DiskError> {
        for &(block, data) in blocks {
            let at = block as usize * BLOCK;
            self.0[at..at + BLOCK].copy_from_slice(data);
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<(), DiskError> {
        Ok(())
    }
}

type Fs = Files<BlockCache<MemDisk>>;

struct Server {
    fs: Fs,
    inodes: Inodes,
    session: Session,
    region: Vec<u8>,
}

#[derive(Clone, Copy)]
enum O {
    V(u64),
    B(usize, usize),
}

impl Server {
    fn call(&mut self, op: u16, operands: &[O]) -> u64 {
        let mut regions = [&mut self.region[..]];
        let mut args = Args::new(&mut regions);
        for o in operands {
            args = match *o {
                O::V(v) => args.with_value(v),
                O::B(off, len) => args.with_buf(0, off, len).expect("operand in the region"),
            };
        }
        let mut svc = FileService {
            fs: &mut self.fs,
            inodes: &mut self.inodes,
            session: &mut self.session,
        };
        svc.call(op, &mut args)
            .unwrap_or_else(|e| panic!("op {op} failed: {e:?}"))
    }

    fn path(&mut self, at: usize, s: &str) -> O {
        self.region[at..at + s.len()].copy_from_slice(s.as_bytes());
        self.region[at + s.len()] = 0;
        O::B(at, s.len() + 1)
    }
}

/// `readdir` in batches of 64 and `statat` each entry: returns the
/// number of entries.
fn list(s: &mut Server, stat: fn(&mut Server, u64, usize, usize) -> u64) -> usize {
    const BATCH: usize = 64;
    let p = s.path(0, "/ls");
    let fd = s.call(OPEN, &[p, O::V(O_RDONLY | O_DIRECTORY), O::V(0)]);
    let (dirents, out) = (4096, 4096 + BATCH * Dirent::SIZE);
    let mut seen = 0;
    loop {
        let n = s.call(
            READDIR,
            &[
                O::V(fd),
                O::B(dirents, BATCH * Dirent::SIZE),
                O::V((BATCH * Dirent::SIZE) as u64),
            ],
        ) as usize;
        if n == 0 {
            break;
        }
        for i in 0..n {
            seen += stat(s, fd, dirents + i * Dirent::SIZE, out) as usize;
        }
    }
    s.call(CLOSE, &[O::V(fd)]);
    seen
}

/// `statat` of the entry whose record is at `rec`: the name operand is
/// the record's name field.
#[inline(never)]
fn one_statat(s: &mut Server, fd: u64, rec: usize, out: usize) -> u64 {
    let name = rec + Dirent::NAME_OFFSET;
    s.call(
        STATAT,
        &[
            O::V(fd),
            O::B(name, Dirent::SIZE - Dirent::NAME_OFFSET),
            O::B(out, Stat::SIZE),
        ],
    );
    1
}

fn no_stat(_: &mut Server, _: u64, _: usize, _: usize) -> u64 {
    1
}

#[inline(never)]
fn phase_readdir(s: &mut Server) -> usize {
    list(s, no_stat)
}

#[inline(never)]
fn phase_ls_l(s: &mut Server) -> usize {
    list(s, one_statat)
}

/// dbsim's pattern: random block, `pread`; every second one `pwrite`n back.
fn dbsim(s: &mut Server, seed: u64, which: fn(&mut Server, u64, u64, bool)) {
    let p = s.path(0, "/db");
    let fd = s.call(OPEN, &[p, O::V(O_RDWR), O::V(0)]);
    let mut x = seed;
    for i in 0..READS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = (x % DB_BLOCKS) * BLOCK as u64;
        which(s, fd, at, i % 2 == 1);
    }
    s.call(CLOSE, &[O::V(fd)]);
}

#[inline(never)]
fn one_pread(s: &mut Server, fd: u64, at: u64) {
    let n = s.call(
        PREAD,
        &[O::V(fd), O::B(8192, BLOCK), O::V(BLOCK as u64), O::V(at)],
    );
    assert_eq!(n, BLOCK as u64);
}

#[inline(never)]
fn one_pwrite(s: &mut Server, fd: u64, at: u64) {
    let n = s.call(
        PWRITE,
        &[O::V(fd), O::B(8192, BLOCK), O::V(BLOCK as u64), O::V(at)],
    );
    assert_eq!(n, BLOCK as u64);
}

fn both(s: &mut Server, fd: u64, at: u64, write: bool) {
    one_pread(s, fd, at);
    if write {
        one_pwrite(s, fd, at);
    }
}

/// `stat` of a path two names deep, warm.
#[inline(never)]
fn one_stat(s: &mut Server) {
    let p = s.path(0, "/ls/file-000042");
    s.call(STAT, &[p, O::B(8192, Stat::SIZE)]);
}

/// `open` + `close` of the same path.
#[inline(never)]
fn one_open_close(s: &mut Server) {
    let p = s.path(0, "/ls/file-000042");
    let fd = s.call(OPEN, &[p, O::V(O_RDONLY), O::V(0)]);
    s.call(CLOSE, &[O::V(fd)]);
}

#[inline(never)]
fn phase_paths(s: &mut Server) {
    for _ in 0..1000 {
        one_stat(s);
        one_open_close(s);
    }
}

#[inline(never)]
fn phase_dbsim(s: &mut Server) {
    dbsim(s, 0x9e37_79b9_7f4a_7c15, both);
}

/// The untimed first round of `ls -l` and dbsim, through the same calls
/// but not the counted functions, so their counts are all warm.
fn warm_up(s: &mut Server) {
    fn statat(s: &mut Server, fd: u64, rec: usize, out: usize) -> u64 {
        let name = rec + Dirent::NAME_OFFSET;
        let (name, out) = (
            O::B(name, Dirent::SIZE - Dirent::NAME_OFFSET),
            O::B(out, Stat::SIZE),
        );
        s.call(STATAT, &[O::V(fd), name, out]);
        1
    }
    fn both(s: &mut Server, fd: u64, at: u64, write: bool) {
        let op = if write { PWRITE } else { PREAD };
        let operands = [O::V(fd), O::B(8192, BLOCK), O::V(BLOCK as u64), O::V(at)];
        s.call(PREAD, &operands);
        s.call(op, &operands);
    }
    assert_eq!(list(s, statat), FILES);
    dbsim(s, 0x9e37_79b9_7f4a_7c15, both);
}

fn main() {
    let dir = std::env::temp_dir().join(format!("conflux-op-cost-{}", std::process::id()));
    let image = make_image(&dir);
    let disk = MemDisk(std::fs::read(&image).expect("read the image"));
    let fs = FileSystem::mount(
        BlockCache::new(disk, CACHE_SLOTS),
        FixedClock(1_700_000_000),
    )
    .expect("mount");
    let pages = Pages::new(PAGE_SLOTS).expect("page pool");
    let fs = Files::new(fs, pages, FixedClock(1_700_000_000));
    let mut s = Server {
        fs,
        inodes: Inodes::default(),
        session: Session::new(Grant::whole_tree()),
        region: vec![0; 64 * 1024],
    };
    // Warm every block, inode and page once.
    warm_up(&mut s);
    assert_eq!(phase_readdir(&mut s), FILES);
    assert_eq!(phase_ls_l(&mut s), FILES);
    phase_dbsim(&mut s);
    phase_paths(&mut s);
    s.fs.unmount().expect("unmount");
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "phase_ls_l: {FILES} statat + {} readdir; phase_readdir: the readdirs alone; \
         phase_dbsim: {READS} pread + {} pwrite (one_pread / one_pwrite count each)",
        FILES.div_ceil(64) + 1,
        READS / 2
    );
}

/// A 64 MiB image holding `/ls` (5,000 empty files, indexed by
/// `e2fsck -fyD` as the runner does) and `/db` (4 MiB of data).
fn make_image(dir: &Path) -> PathBuf {
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("ls")).expect("scratch directory");
    for i in 0..FILES {
        std::fs::write(tree.join("ls").join(format!("file-{i:06}")), b"").expect("file");
    }
    let db: Vec<u8> = (0..DB_BLOCKS as usize * BLOCK)
        .map(|i| (i * 7 + i / 4096) as u8)
        .collect();
    std::fs::write(tree.join("db"), db).expect("db file");
    let image = dir.join("disk.img");
    let ok = Command::new(tool("mke2fs"))
        .args(["-q", "-F", "-t", "ext4", "-b", "4096", "-d"])
        .arg(&tree)
        .arg(&image)
        .arg("64M")
        .status()
        .expect("run mke2fs");
    assert!(ok.success(), "mke2fs failed");
    let fsck = Command::new(tool("e2fsck"))
        .arg("-fyD")
        .arg(&image)
        .output()
        .expect("run e2fsck");
    // e2fsck exits 1 when it changed the image (it indexed directories).
    assert!(
        matches!(fsck.status.code(), Some(0 | 1)),
        "e2fsck -fyD failed"
    );
    image
}

fn tool(name: &str) -> PathBuf {
    ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("`{name}` (e2fsprogs) is not installed: run `bash qemu/setup.sh`")
        })
}
