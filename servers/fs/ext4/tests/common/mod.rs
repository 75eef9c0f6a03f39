//! What every host test of the crate shares: a disk image made by the
//! host's `mke2fs`, a file-backed block device to mount it through the
//! crate, and the host's `e2fsck` and `debugfs` to judge the result.
//!
//! The tools come from Debian's e2fsprogs; `bash qemu/setup.sh` installs
//! them. A missing tool fails the test with that instruction rather than
//! skipping it, so a machine without them can never pass silently.

#![allow(dead_code)] // each test file uses its own part of this module

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use conflux_ext4::{BlockDevice, DeviceError, FileSystem, FixedClock};

/// The time every test mounts with, so inode times are predictable.
pub const NOW: i64 = 1_700_000_000;

/// A raw image file seen as a disk of `sector_size`-byte sectors.
pub struct FileDisk {
    file: File,
    sector_size: u32,
    sectors: u64,
}

impl FileDisk {
    pub fn open(path: &Path, sector_size: u32) -> FileDisk {
        let file = File::options()
            .read(true)
            .write(true)
            .open(path)
            .unwrap_or_else(|e| panic!("cannot open the image {}: {e}", path.display()));
        let len = file.metadata().expect("image metadata").len();
        FileDisk {
            file,
            sector_size,
            sectors: len / u64::from(sector_size),
        }
    }

    fn offset(&self, sector: u64, len: usize) -> Result<u64, DeviceError> {
        let count = len as u64 / u64::from(self.sector_size);
        if !(len as u64).is_multiple_of(u64::from(self.sector_size))
            || sector + count > self.sectors
        {
            return Err(DeviceError);
        }
        Ok(sector * u64::from(self.sector_size))
    }
}

impl BlockDevice for FileDisk {
    fn sector_size(&self) -> u32 {
        self.sector_size
    }

    fn sector_count(&self) -> u64 {
        self.sectors
    }

    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        let at = self.offset(first_sector, buf.len())?;
        self.file.read_exact_at(buf, at).map_err(|_| DeviceError)
    }

    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), DeviceError> {
        let at = self.offset(first_sector, data.len())?;
        self.file.write_all_at(data, at).map_err(|_| DeviceError)
    }

    fn flush(&mut self) -> Result<(), DeviceError> {
        self.file.sync_data().map_err(|_| DeviceError)
    }
}

/// A disk image held in memory, for tests of tens of thousands of syncs:
/// `FileDisk` flushes with the host's fsync, which would cost more than
/// the file system. Clones share the bytes, so the test keeps one to
/// save the image (for e2fsck) after the mount that owned the other was
/// unmounted or dropped. A flush is a no-op: durability across a host
/// crash is not what such tests check.
#[derive(Clone)]
pub struct MemDisk {
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl MemDisk {
    pub const SECTOR: u32 = 512;

    /// The contents of the image at `path`.
    pub fn load(path: &Path) -> MemDisk {
        let bytes = std::fs::read(path)
            .unwrap_or_else(|e| panic!("cannot read the image {}: {e}", path.display()));
        MemDisk {
            bytes: Arc::new(Mutex::new(bytes)),
        }
    }

    /// Writes the image back to `path`, as it is now.
    pub fn save(&self, path: &Path) {
        let bytes = self.bytes.lock().expect("image lock");
        std::fs::write(path, &*bytes)
            .unwrap_or_else(|e| panic!("cannot write the image {}: {e}", path.display()));
    }

    fn range(&self, sector: u64, len: usize) -> Result<std::ops::Range<usize>, DeviceError> {
        let start = sector as usize * Self::SECTOR as usize;
        let end = start + len;
        let whole = len.is_multiple_of(Self::SECTOR as usize);
        if !whole || end > self.bytes.lock().expect("image lock").len() {
            return Err(DeviceError);
        }
        Ok(start..end)
    }
}

impl BlockDevice for MemDisk {
    fn sector_size(&self) -> u32 {
        Self::SECTOR
    }

    fn sector_count(&self) -> u64 {
        self.bytes.lock().expect("image lock").len() as u64 / u64::from(Self::SECTOR)
    }

    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        let range = self.range(first_sector, buf.len())?;
        buf.copy_from_slice(&self.bytes.lock().expect("image lock")[range]);
        Ok(())
    }

    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), DeviceError> {
        let range = self.range(first_sector, data.len())?;
        self.bytes.lock().expect("image lock")[range].copy_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }
}

/// A disk image of one test, in cargo's scratch directory for tests.
pub struct Image {
    pub path: PathBuf,
}

/// How to make an image.
pub struct Mkfs<'a> {
    pub size_mib: u32,
    /// Files to copy in (`mke2fs -d`).
    pub folder: Option<&'a Path>,
    /// Inodes to make room for (`mke2fs -N`), if more than the default.
    pub inodes: Option<u32>,
}

impl Default for Mkfs<'_> {
    fn default() -> Self {
        Mkfs {
            size_mib: 32,
            folder: None,
            inodes: None,
        }
    }
}

impl Image {
    /// A fresh ext4 image (4 KiB blocks) named after the test.
    pub fn new(test: &str, how: Mkfs) -> Image {
        let dir = scratch(test);
        let path = dir.join("disk.img");
        let _ = std::fs::remove_file(&path);
        let mut cmd = Command::new(tool("mke2fs"));
        cmd.args(["-q", "-F", "-t", "ext4", "-b", "4096"]);
        if let Some(folder) = how.folder {
            cmd.arg("-d").arg(folder);
        }
        if let Some(inodes) = how.inodes {
            cmd.args(["-N", &inodes.to_string()]);
        }
        cmd.arg(&path).arg(format!("{}M", how.size_mib));
        let out = run(&mut cmd);
        assert!(
            out.status.success(),
            "mke2fs failed for {}:\n{}",
            path.display(),
            text(&out)
        );
        Image { path }
    }

    /// Mounts the image through the crate over 512-byte sectors.
    pub fn mount(&self) -> FileSystem<FileDisk> {
        self.mount_with(512)
    }

    pub fn mount_with(&self, sector_size: u32) -> FileSystem<FileDisk> {
        let disk = FileDisk::open(&self.path, sector_size);
        FileSystem::mount(disk, FixedClock(NOW))
            .unwrap_or_else(|e| panic!("mounting {} failed: {e}", self.path.display()))
    }

    /// `e2fsck -fn` must find the image clean; otherwise the test fails
    /// with e2fsck's report.
    pub fn fsck(&self) {
        let out = run(Command::new(tool("e2fsck")).arg("-fn").arg(&self.path));
        assert!(
            out.status.success(),
            "e2fsck -fn {} found problems (exit {:?}):\n{}",
            self.path.display(),
            out.status.code(),
            text(&out)
        );
    }

    /// The contents of `path` in the image, read by the host's debugfs.
    pub fn debugfs_cat(&self, path: &str) -> Vec<u8> {
        let out = self.debugfs(&format!("cat {path}"));
        out.stdout
    }

    /// What debugfs prints for `request`, which must succeed.
    pub fn debugfs(&self, request: &str) -> Output {
        let out = run(Command::new(tool("debugfs"))
            .arg("-R")
            .arg(request)
            .arg(&self.path));
        assert!(
            out.status.success(),
            "debugfs -R '{request}' failed:\n{}",
            text(&out)
        );
        out
    }
}

/// A fresh, empty scratch directory for `test`.
pub fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("conflux-ext4")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// An e2fsprogs tool: on `PATH`, or in `/sbin` and `/usr/sbin`, which
/// are not on an ordinary user's `PATH` on Debian.
pub fn tool(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "`{name}` (from e2fsprogs) is not installed; these tests need the host's \
                 mke2fs, e2fsck and debugfs: run `bash qemu/setup.sh`"
            )
        })
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `len` bytes of a pattern that differs at every offset and per `seed`,
/// so a block written to the wrong place cannot go unnoticed.
pub fn pattern(seed: u32, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect()
}

/// All of file `path`, read through the crate.
pub fn read_all<D: BlockDevice>(fs: &mut FileSystem<D>, path: &str) -> Vec<u8> {
    let stat = fs.lookup(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut data = vec![0; stat.size as usize];
    let mut done = 0;
    while done < data.len() {
        let n = fs
            .read_at(stat.ino, done as u64, &mut data[done..])
            .unwrap_or_else(|e| panic!("reading {path}: {e}"));
        assert!(n > 0, "{path}: read returned 0 at {done} of {}", data.len());
        done += n;
    }
    data
}
