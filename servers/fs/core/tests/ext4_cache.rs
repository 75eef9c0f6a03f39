//! The file system on the block cache, on a real ext4 image: made by the
//! host's mke2fs, changed through `conflux-ext4` over a small cache (so
//! blocks are evicted and written back mid-run), then checked by the
//! host's e2fsck and read back without the cache.

#[path = "../../ext4/tests/common/mod.rs"]
mod common;

use common::{pattern, read_all, FileDisk, Image, Mkfs, NOW};
use conflux_ext4::{BlockDevice, FileSystem, FixedClock};
use conflux_fs_core::{Block, BlockCache, Disk, DiskError};

/// The image file as a disk of 4 KiB blocks.
struct BlockFile(FileDisk);

impl Disk for BlockFile {
    fn blocks(&self) -> u64 {
        self.0.sector_count()
    }
    fn read(&mut self, block: u64, buf: &mut Block) -> Result<(), DiskError> {
        self.0.read(block, buf).map_err(|_| DiskError::Io { block })
    }
    fn write_all(&mut self, blocks: &[(u64, &Block)]) -> Result<(), DiskError> {
        for &(block, data) in blocks {
            self.0
                .write(block, data)
                .map_err(|_| DiskError::Io { block })?;
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<(), DiskError> {
        self.0.flush().map_err(|_| DiskError::Link)
    }
}

#[test]
fn files_and_directories_through_a_small_cache_are_e2fsck_clean_and_read_back() {
    let image = Image::new("fscore-cache", Mkfs::default());
    // 64 blocks = 256 KiB of cache for an 8 MiB file: most of it is
    // evicted and written back long before the sync.
    let cache = BlockCache::new(BlockFile(FileDisk::open(&image.path, 4096)), 64);
    let mut fs = FileSystem::mount(cache, FixedClock(NOW)).expect("mount through the cache");
    fs.mkdir("/data", 0o755).expect("mkdir");
    let big = pattern(7, 8 << 20);
    let file = fs.create("/data/big", 0o644).expect("create");
    for (i, chunk) in big.chunks(100_000).enumerate() {
        fs.write_at(file.ino, (i * 100_000) as u64, chunk)
            .expect("write");
    }
    for n in 0..200 {
        let f = fs
            .create(&format!("/data/f{n}"), 0o644)
            .expect("create small");
        fs.write_at(f.ino, 0, &pattern(n, 1000 + n as usize))
            .expect("write small");
    }
    assert_eq!(
        read_all(&mut fs, "/data/big"),
        big,
        "read back through the cache"
    );
    fs.unmount().expect("unmount writes everything back");
    image.fsck();
    let mut plain = image.mount();
    assert_eq!(read_all(&mut plain, "/data/big"), big);
    for n in [0u32, 99, 199] {
        assert_eq!(
            read_all(&mut plain, &format!("/data/f{n}")),
            pattern(n, 1000 + n as usize)
        );
    }
    plain.unmount().expect("unmount");
    image.fsck();
}
