//! Where ext4 keeps its per-group metadata, read from the superblock and
//! the group descriptors when the device is opened. The device adapter's
//! repairs of rsext4 0.9.2 bugs (`padding`, `dirblocks`) use it to tell
//! which blocks on their way to the disk are inode bitmaps or inode
//! tables.

use alloc::vec::Vec;

use crate::device::{BlockDevice, DeviceError};

/// ext4's superblock is 1024 bytes at byte 1024.
const SUPERBLOCK_AT: u64 = 1024;
const MAGIC: u16 = 0xEF53;
/// `INCOMPAT_64BIT`: group descriptors have high halves.
const INCOMPAT_64BIT: u32 = 0x80;
/// `INCOMPAT_CSUM_SEED`: the checksum seed is stored, not derived.
const INCOMPAT_CSUM_SEED: u32 = 0x2000;
/// `RO_COMPAT_HUGE_FILE`: `i_blocks` has 16 more bits in `osd2`.
const RO_COMPAT_HUGE_FILE: u32 = 0x8;
/// `RO_COMPAT_METADATA_CSUM`: inodes carry a CRC32C.
const RO_COMPAT_METADATA_CSUM: u32 = 0x400;

/// The geometry of one ext4 file system.
pub(crate) struct Layout {
    pub block_size: u64,
    pub inodes_per_group: u32,
    /// Bytes of one inode record in the inode table.
    pub inode_size: usize,
    /// `i_blocks` has its high 16 bits (`huge_file`).
    pub huge_file: bool,
    /// The seed of inode checksums, if inodes have checksums.
    pub csum_seed: Option<u32>,
    /// Per group, in group order: the inode bitmap's block and the first
    /// block of the inode table.
    pub groups: Vec<Group>,
}

#[derive(Clone, Copy)]
pub(crate) struct Group {
    pub inode_bitmap: u64,
    pub inode_table: u64,
}

pub(crate) fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// `len` bytes from byte `at` of the device (whole sectors are read).
pub(crate) fn read_bytes<D: BlockDevice>(
    dev: &mut D,
    at: u64,
    len: usize,
) -> Result<Vec<u8>, DeviceError> {
    let sector = u64::from(dev.sector_size());
    let first = at / sector;
    let end = (at + len as u64).div_ceil(sector);
    let mut buf = alloc::vec![0; ((end - first) * sector) as usize];
    dev.read(first, &mut buf)?;
    let skip = (at - first * sector) as usize;
    Ok(buf[skip..skip + len].to_vec())
}

/// Writes `data` at byte `at`, which must be whole sectors.
pub(crate) fn write_bytes<D: BlockDevice>(
    dev: &mut D,
    at: u64,
    data: &[u8],
) -> Result<(), DeviceError> {
    let sector = u64::from(dev.sector_size());
    if !at.is_multiple_of(sector) || !(data.len() as u64).is_multiple_of(sector) {
        return Err(DeviceError);
    }
    dev.write(at / sector, data)
}

impl Layout {
    /// Reads the layout; `None` if this is not an ext4 file system this
    /// code understands (mount then reports the real problem).
    pub(crate) fn read<D: BlockDevice>(dev: &mut D) -> Result<Option<Layout>, DeviceError> {
        let sb = read_bytes(dev, SUPERBLOCK_AT, 1024)?;
        if u16_at(&sb, 0x38) != MAGIC || u32_at(&sb, 0x18) > 6 {
            return Ok(None);
        }
        let block_size = 1024u64 << u32_at(&sb, 0x18);
        let per_group = u64::from(u32_at(&sb, 0x20));
        let inodes_per_group = u32_at(&sb, 0x28);
        // Revision 0 file systems have 128-byte inodes and no field for it.
        let inode_size = match u32_at(&sb, 0x4C) {
            0 => 128,
            _ => usize::from(u16_at(&sb, 0x58)),
        };
        if per_group == 0 || inodes_per_group == 0 || inode_size < 128 {
            return Ok(None);
        }
        let first_data = u64::from(u32_at(&sb, 0x14));
        let incompat = u32_at(&sb, 0x60);
        let ro_compat = u32_at(&sb, 0x64);
        let wide = incompat & INCOMPAT_64BIT != 0;
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
        let csum_seed = (ro_compat & RO_COMPAT_METADATA_CSUM != 0).then(|| {
            if incompat & INCOMPAT_CSUM_SEED != 0 {
                u32_at(&sb, 0x270)
            } else {
                // Linux keeps the running CRC of the UUID, not finalized.
                rsext4::crc32c::crc32c_append(!0, &sb[0x68..0x78])
            }
        });
        let groups = (blocks - first_data).div_ceil(per_group) as usize;
        let table = read_bytes(dev, (first_data + 1) * block_size, groups * desc_size)?;
        let wide_field = |d: &[u8], lo: usize, hi: usize| {
            let high = if desc_size >= 64 { u32_at(d, hi) } else { 0 };
            u64::from(u32_at(d, lo)) | u64::from(high) << 32
        };
        let groups = table
            .chunks_exact(desc_size)
            .map(|d| Group {
                inode_bitmap: wide_field(d, 0x4, 0x24),
                inode_table: wide_field(d, 0x8, 0x28),
            })
            .collect();
        Ok(Some(Layout {
            block_size,
            inodes_per_group,
            inode_size,
            huge_file: ro_compat & RO_COMPAT_HUGE_FILE != 0,
            csum_seed,
            groups,
        }))
    }

    /// Blocks of one group's inode table.
    pub(crate) fn inode_table_blocks(&self) -> u64 {
        (u64::from(self.inodes_per_group) * self.inode_size as u64).div_ceil(self.block_size)
    }
}
