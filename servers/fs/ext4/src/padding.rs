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

use crate::layout::Layout;

/// Where the inode bitmaps are and how many of their bytes hold inodes.
pub(crate) struct Padding {
    block_size: u64,
    /// Bytes of each bitmap that are real inodes' bits.
    used_bytes: usize,
    /// Block numbers of the groups' inode bitmaps, sorted.
    bitmaps: Vec<u64>,
}

impl Padding {
    /// The bitmaps of `layout`; `None` if they have no padding.
    pub(crate) fn new(layout: &Layout) -> Option<Padding> {
        let used_bytes = layout.inodes_per_group as usize / 8;
        if used_bytes as u64 >= layout.block_size {
            return None;
        }
        let mut bitmaps: Vec<u64> = layout.groups.iter().map(|g| g.inode_bitmap).collect();
        bitmaps.sort_unstable();
        Some(Padding {
            block_size: layout.block_size,
            used_bytes,
            bitmaps,
        })
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
