//! What a file server must know before it can mount: how many 4 KiB
//! blocks the file system on a disk spans, read from the superblock in
//! the disk's first block (the block driver's protocol does not report
//! the disk's size, and the file system never reaches past its own end).

/// Superblock fields (ext4 disk layout), relative to the superblock,
/// which starts 1024 bytes into the disk.
const SUPERBLOCK: usize = 1024;
const BLOCKS_LO: usize = 0x04;
const LOG_BLOCK_SIZE: usize = 0x18;
const MAGIC: usize = 0x38;
const FEATURE_INCOMPAT: usize = 0x60;
const BLOCKS_HI: usize = 0x150;
const EXT4_MAGIC: u16 = 0xEF53;
const INCOMPAT_64BIT: u32 = 0x80;

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The file system's size in 4 KiB blocks, from the disk's first 4 KiB;
/// `None` if it holds no ext4 superblock with 4 KiB blocks.
pub fn blocks_in_image(first_block: &[u8]) -> Option<u64> {
    let sb = first_block.get(SUPERBLOCK..SUPERBLOCK + 1024)?;
    let magic = u16::from_le_bytes(sb.get(MAGIC..MAGIC + 2)?.try_into().ok()?);
    if magic != EXT4_MAGIC || le32(sb, LOG_BLOCK_SIZE)? != 2 {
        return None;
    }
    let lo = u64::from(le32(sb, BLOCKS_LO)?);
    let hi = if le32(sb, FEATURE_INCOMPAT)? & INCOMPAT_64BIT != 0 {
        u64::from(le32(sb, BLOCKS_HI)?)
    } else {
        0
    };
    Some(hi << 32 | lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn superblock(blocks: u64, log: u32, sixty_four: bool) -> [u8; 4096] {
        let mut b = [0u8; 4096];
        let sb = &mut b[SUPERBLOCK..];
        sb[BLOCKS_LO..BLOCKS_LO + 4].copy_from_slice(&(blocks as u32).to_le_bytes());
        sb[BLOCKS_HI..BLOCKS_HI + 4].copy_from_slice(&((blocks >> 32) as u32).to_le_bytes());
        sb[LOG_BLOCK_SIZE..LOG_BLOCK_SIZE + 4].copy_from_slice(&log.to_le_bytes());
        sb[MAGIC..MAGIC + 2].copy_from_slice(&EXT4_MAGIC.to_le_bytes());
        let incompat = if sixty_four { INCOMPAT_64BIT } else { 0 };
        sb[FEATURE_INCOMPAT..FEATURE_INCOMPAT + 4].copy_from_slice(&incompat.to_le_bytes());
        b
    }

    #[test]
    fn reads_the_block_count() {
        assert_eq!(blocks_in_image(&superblock(65536, 2, false)), Some(65536));
        assert_eq!(
            blocks_in_image(&superblock(5 << 32 | 7, 2, true)),
            Some(5 << 32 | 7)
        );
        // Without the 64bit feature the high word is not a count.
        assert_eq!(blocks_in_image(&superblock(5 << 32 | 7, 2, false)), Some(7));
    }

    #[test]
    fn refuses_what_is_not_ext4_with_4k_blocks() {
        assert_eq!(blocks_in_image(&superblock(100, 0, false)), None);
        assert_eq!(blocks_in_image(&[0u8; 4096]), None);
        assert_eq!(blocks_in_image(&[0u8; 100]), None);
    }
}
