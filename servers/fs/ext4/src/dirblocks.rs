//! A repair for one rsext4 0.9.2 bug: a growing directory's `i_blocks`
//! leaves out the blocks of its extent tree.
//!
//! When an indexed (HTree) directory gets a new block, rsext4's
//! `append_directory_block` (`hashtree/mutation.rs`) reads the block
//! count, inserts the new block's extent, and then stores the count it
//! read plus one block. If the insert had to allocate extent-tree blocks
//! (the directory's blocks are interleaved with other allocations, so its
//! extents no longer fit in the inode), the insert's own addition for
//! them is overwritten, and e2fsck reports "i_blocks is X, should be Y".
//! Regular files grow through another path, which counts correctly.
//!
//! rsext4's API has no way to set an inode's block count, and a write
//! past it would be undone by its inode cache and journal. So the repair
//! is made where every block passes, as `padding` does: the device
//! adapter notes each inode-table block written to its home location,
//! and before the next flush it reads those blocks back and gives every
//! live directory with an extent tree below its inode the count e2fsck
//! expects: its data blocks, plus its tree's index and leaf blocks, plus
//! an extended-attribute block if it has one (in 512-byte units), with
//! the inode checksum recomputed. rsext4 flushes after writing a
//! checkpoint's home blocks (and after journal replay), so the tree
//! blocks read then belong to the same state as the inode. rsext4's
//! cached copy of the inode keeps its short count until it is read again;
//! it is corrected on every write-back, so the disk is always right.
//!
//! Delete this module when rsext4 adds the insert's blocks in
//! `append_directory_block` (the test `fragmented_directory` must stay
//! clean without it).

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use rsext4::checksum::ext4_metadata_csum32;

use crate::device::{BlockDevice, DeviceError};
use crate::layout::{read_bytes, u16_at, u32_at, write_bytes, Layout};

const S_IFMT: u16 = 0xF000;
const S_IFDIR: u16 = 0x4000;
/// Inode flags: blocks mapped by extents; `i_blocks` counted in file
/// system blocks rather than sectors; data stored in the inode.
const EXTENTS_FL: u32 = 0x8_0000;
const HUGE_FILE_FL: u32 = 0x4_0000;
const INLINE_DATA_FL: u32 = 0x1000_0000;
const EXTENT_MAGIC: u16 = 0xF30A;
/// ext4 never builds a deeper extent tree; deeper means corruption.
const MAX_DEPTH: u16 = 5;
/// An extent longer than this is an unwritten one of `len - 32768`.
const MAX_INIT_LEN: u16 = 32768;

// Fields of an inode record.
const I_MODE: usize = 0x00;
const I_DTIME: usize = 0x14;
const I_LINKS: usize = 0x1A;
const I_BLOCKS_LO: usize = 0x1C;
const I_FLAGS: usize = 0x20;
const I_BLOCK: usize = 0x28;
const I_GENERATION: usize = 0x64;
const I_FILE_ACL_LO: usize = 0x68;
const I_BLOCKS_HI: usize = 0x74;
const I_FILE_ACL_HI: usize = 0x76;
const I_CHECKSUM_LO: usize = 0x7C;
const I_EXTRA_ISIZE: usize = 0x80;
const I_CHECKSUM_HI: usize = 0x82;

/// Inode tables, and which of their blocks were written since the last
/// flush.
pub(crate) struct DirBlocks {
    layout: Layout,
    /// Each group's first inode-table block and the group's number,
    /// sorted by block.
    tables: Vec<(u64, u32)>,
    written: BTreeSet<u64>,
}

impl DirBlocks {
    pub(crate) fn new(layout: Layout) -> DirBlocks {
        let mut tables: Vec<(u64, u32)> = layout
            .groups
            .iter()
            .zip(0u32..)
            .map(|(g, number)| (g.inode_table, number))
            .collect();
        tables.sort_unstable();
        DirBlocks {
            layout,
            tables,
            written: BTreeSet::new(),
        }
    }

    /// Notes the inode-table blocks among the `len` bytes written at byte
    /// `at`.
    pub(crate) fn note_write(&mut self, at: u64, len: usize) {
        if len == 0 {
            return;
        }
        let bs = self.layout.block_size;
        for block in at / bs..=(at + len as u64 - 1) / bs {
            if self.first_inode(block).is_some() {
                self.written.insert(block);
            }
        }
    }

    /// Corrects the directories in the blocks noted since the last call;
    /// to be called before the device is flushed.
    pub(crate) fn repair<D: BlockDevice>(&mut self, dev: &mut D) -> Result<(), DeviceError> {
        let bs = self.layout.block_size;
        let size = self.layout.inode_size;
        for block in core::mem::take(&mut self.written) {
            let Some((first, count)) = self.first_inode(block) else {
                continue;
            };
            let mut data = read_bytes(dev, block * bs, bs as usize)?;
            let mut changed = false;
            for (raw, ino) in data.chunks_exact_mut(size).take(count).zip(first..) {
                changed |= self.repair_inode(dev, ino, raw)?;
            }
            if changed {
                write_bytes(dev, block * bs, &data)?;
            }
        }
        Ok(())
    }

    /// The first inode in inode-table block `block` and how many inodes
    /// it holds; `None` if it is not an inode-table block.
    fn first_inode(&self, block: u64) -> Option<(u32, usize)> {
        let at = self.tables.partition_point(|&(start, _)| start <= block);
        let (start, group) = *self.tables.get(at.checked_sub(1)?)?;
        let index = block - start;
        if index >= self.layout.inode_table_blocks() {
            return None;
        }
        let per_block = self.layout.block_size / self.layout.inode_size as u64;
        let ipg = u64::from(self.layout.inodes_per_group);
        let skip = index * per_block;
        let first = u64::from(group) * ipg + skip + 1;
        Some((
            u32::try_from(first).ok()?,
            (ipg - skip).min(per_block) as usize,
        ))
    }

    /// Gives inode `ino` (its record `raw`) the block count its extent
    /// tree implies, if it is a live directory with a tree below the
    /// inode whose count is wrong; true if `raw` changed. An inode whose
    /// checksum or tree does not check out is left for e2fsck to report.
    fn repair_inode<D: BlockDevice>(
        &self,
        dev: &mut D,
        ino: u32,
        raw: &mut [u8],
    ) -> Result<bool, DeviceError> {
        let flags = u32_at(raw, I_FLAGS);
        let live_dir = u16_at(raw, I_MODE) & S_IFMT == S_IFDIR
            && u16_at(raw, I_LINKS) > 0
            && u32_at(raw, I_DTIME) == 0;
        if !live_dir || flags & EXTENTS_FL == 0 || flags & (HUGE_FILE_FL | INLINE_DATA_FL) != 0 {
            return Ok(false);
        }
        let root = &raw[I_BLOCK..I_BLOCK + 60];
        if u16_at(root, 0) != EXTENT_MAGIC || u16_at(root, 6) == 0 {
            // A tree held in the inode alone is counted right by rsext4.
            return Ok(false);
        }
        let Some(blocks) = self.tree_blocks(dev, root, u16_at(root, 6))? else {
            return Ok(false);
        };
        let xattr_block = u32_at(raw, I_FILE_ACL_LO) != 0 || u16_at(raw, I_FILE_ACL_HI) != 0;
        let sectors = (blocks + u64::from(xattr_block)) * (self.layout.block_size / 512);
        let high = if self.layout.huge_file {
            u64::from(u16_at(raw, I_BLOCKS_HI)) << 32
        } else {
            0
        };
        let current = u64::from(u32_at(raw, I_BLOCKS_LO)) | high;
        let fits = sectors >> if self.layout.huge_file { 48 } else { 32 } == 0;
        if sectors == current || !fits || !self.checksum_ok(ino, raw) {
            return Ok(false);
        }
        raw[I_BLOCKS_LO..I_BLOCKS_LO + 4].copy_from_slice(&(sectors as u32).to_le_bytes());
        if self.layout.huge_file {
            raw[I_BLOCKS_HI..I_BLOCKS_HI + 2]
                .copy_from_slice(&((sectors >> 32) as u16).to_le_bytes());
        }
        self.set_checksum(ino, raw);
        Ok(true)
    }

    /// Blocks below extent node `node` (at `depth`): its children's tree
    /// blocks and the data blocks their extents map. `None` if the tree
    /// is malformed.
    fn tree_blocks<D: BlockDevice>(
        &self,
        dev: &mut D,
        node: &[u8],
        depth: u16,
    ) -> Result<Option<u64>, DeviceError> {
        let entries = usize::from(u16_at(node, 2));
        let well_formed = u16_at(node, 0) == EXTENT_MAGIC
            && u16_at(node, 6) == depth
            && depth <= MAX_DEPTH
            && entries <= usize::from(u16_at(node, 4))
            && 12 + 12 * entries <= node.len();
        if !well_formed {
            return Ok(None);
        }
        let mut total = 0u64;
        for entry in node[12..12 + 12 * entries].chunks_exact(12) {
            if depth == 0 {
                let len = u16_at(entry, 4);
                let len = if len > MAX_INIT_LEN {
                    len - MAX_INIT_LEN
                } else {
                    len
                };
                total += u64::from(len);
                continue;
            }
            let child = u64::from(u32_at(entry, 4)) | u64::from(u16_at(entry, 8)) << 32;
            let bs = self.layout.block_size;
            let data = read_bytes(dev, child * bs, bs as usize)?;
            match self.tree_blocks(dev, &data, depth - 1)? {
                Some(below) => total += 1 + below,
                None => return Ok(None),
            }
        }
        Ok(Some(total))
    }

    /// The inode's checksum, as ext4 computes it: a CRC32C over its
    /// number, generation and record, with the checksum fields zero.
    fn checksum(&self, seed: u32, ino: u32, raw: &[u8]) -> u32 {
        let mut bytes = raw.to_vec();
        bytes[I_CHECKSUM_LO..I_CHECKSUM_LO + 2].fill(0);
        if has_checksum_hi(raw) {
            bytes[I_CHECKSUM_HI..I_CHECKSUM_HI + 2].fill(0);
        }
        let generation = &raw[I_GENERATION..I_GENERATION + 4];
        ext4_metadata_csum32(seed, &[&ino.to_le_bytes(), generation, &bytes])
    }

    /// The stored checksum matches the record (or inodes have none).
    fn checksum_ok(&self, ino: u32, raw: &[u8]) -> bool {
        let Some(seed) = self.layout.csum_seed else {
            return true;
        };
        let want = self.checksum(seed, ino, raw);
        let lo = u32::from(u16_at(raw, I_CHECKSUM_LO));
        if has_checksum_hi(raw) {
            lo | u32::from(u16_at(raw, I_CHECKSUM_HI)) << 16 == want
        } else {
            lo == want & 0xFFFF
        }
    }

    fn set_checksum(&self, ino: u32, raw: &mut [u8]) {
        let Some(seed) = self.layout.csum_seed else {
            return;
        };
        let sum = self.checksum(seed, ino, raw);
        raw[I_CHECKSUM_LO..I_CHECKSUM_LO + 2].copy_from_slice(&(sum as u16).to_le_bytes());
        if has_checksum_hi(raw) {
            raw[I_CHECKSUM_HI..I_CHECKSUM_HI + 2]
                .copy_from_slice(&((sum >> 16) as u16).to_le_bytes());
        }
    }
}

/// The record is large enough, and its extra fields reach far enough,
/// to hold the checksum's high half.
fn has_checksum_hi(raw: &[u8]) -> bool {
    raw.len() >= I_CHECKSUM_HI + 2
        && 128 + usize::from(u16_at(raw, I_EXTRA_ISIZE)) >= I_CHECKSUM_HI + 2
}
