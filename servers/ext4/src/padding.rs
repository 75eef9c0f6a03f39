//! A repair for one rsext4 0.9.2 bug, made where every block passes: the
//! device adapter.
//!
//! An inode bitmap block has room for 8 × 4096 inodes; when a group has
//! fewer, ext4 requires the bits past the last inode ("padding") to be
//! set. When rsext4 takes its first inode from a group mkfs left
//! `INODE_UNINIT`, it starts from an all-zero bitmap and writes it back
//! without that padding, and e2fsck reports "Padding at end of inode
//! bitmap is not set". The bitmap checksum covers only the real inodes'
//! bits, so setting the padding on the way to the disk changes nothing
//! else. Journal copies of the block are left as they are.

use alloc::vec::Vec;

use crate::device::{BlockDevice, DeviceError};

/// ext4's superblock is 1024 bytes at byte 1024.
const SUPERBLOCK_AT: u64 = 1024;
const MAGIC: u16 = 0xEF53;
/// `INCOMPAT_64BIT`: group descriptors have high halves.
const INCOMPAT_64BIT: u32 = 0x80;

/// Where the inode bitmaps are and how many of their bytes hold inodes.
pub(crate) struct Padding {
    block_size: u64,
    /// Bytes of each bitmap that are real inodes' bits.
    used_bytes: usize,
    /// Block numbers of the groups' inode bitmaps, sorted.
    bitmaps: Vec<u64>,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// `len` bytes from byte `at` of the device (whole sectors are read).
fn read_bytes<D: BlockDevice>(dev: &mut D, at: u64, len: usize) -> Result<Vec<u8>, DeviceError> {
    let sector = u64::from(dev.sector_size());
    let first = at / sector;
    let end = (at + len as u64).div_ceil(sector);
    let mut buf = alloc::vec![0; ((end - first) * sector) as usize];
    dev.read(first, &mut buf)?;
    let skip = (at - first * sector) as usize;
    Ok(buf[skip..skip + len].to_vec())
}

impl Padding {
    /// Reads the layout from the superblock and group descriptors; `None`
    /// if this is not ext4 or its bitmaps have no padding (mount then
    /// reports the real problem, if any).
    pub(crate) fn read<D: BlockDevice>(dev: &mut D) -> Result<Option<Padding>, DeviceError> {
        let sb = read_bytes(dev, SUPERBLOCK_AT, 1024)?;
        if u16_at(&sb, 0x38) != MAGIC || u32_at(&sb, 0x18) > 6 {
            return Ok(None);
        }
        let block_size = 1024u64 << u32_at(&sb, 0x18);
        let per_group = u64::from(u32_at(&sb, 0x20));
        let used_bytes = u32_at(&sb, 0x28) as usize / 8;
        if per_group == 0 || used_bytes as u64 >= block_size {
            return Ok(None);
        }
        let first_data = u64::from(u32_at(&sb, 0x14));
        let wide = u32_at(&sb, 0x60) & INCOMPAT_64BIT != 0;
        let blocks = u64::from(u32_at(&sb, 0x4))
            | if wide {
                u64::from(u32_at(&sb, 0x150)) << 32
            } else {
                0
            };
        let desc_size = if wide {
            usize::from(u16_at(&sb, 0xFE)).max(32)
        } else {
            32
        };
        let groups = (blocks - first_data).div_ceil(per_group) as usize;
        let table = read_bytes(dev, (first_data + 1) * block_size, groups * desc_size)?;
        let mut bitmaps: Vec<u64> = table
            .chunks_exact(desc_size)
            .map(|d| {
                let high = if desc_size >= 64 { u32_at(d, 0x24) } else { 0 };
                u64::from(u32_at(d, 0x4)) | u64::from(high) << 32
            })
            .collect();
        bitmaps.sort_unstable();
        Ok(Some(Padding {
            block_size,
            used_bytes,
            bitmaps,
        }))
    }

    /// `data`, about to be written at byte `at`, with the padding of every
    /// whole inode bitmap in it set; `None` if it holds none.
    pub(crate) fn apply(&self, at: u64, data: &[u8]) -> Option<Vec<u8>> {
        let end = at + data.len() as u64;
        let first = self.bitmaps.partition_point(|&b| b * self.block_size < at);
        let inside = self.bitmaps[first..]
            .iter()
            .take_while(|&&b| (b + 1) * self.block_size <= end);
        let mut fixed: Option<Vec<u8>> = None;
        for block in inside {
            let start = (block * self.block_size - at) as usize;
            let pad = start + self.used_bytes..start + self.block_size as usize;
            let copy = fixed.get_or_insert_with(|| data.to_vec());
            copy[pad].fill(0xFF);
        }
        fixed
    }
}
