//! The block cache's disk: the virtio-blk driver's queue. Reads go one
//! block at a time (the cache asks for one); a batch of writes goes out
//! with as many requests in flight as the shared data area has buffers;
//! a request the driver lost in a restart (`Restarted`) is sent again.

use conflux_blk_client::{Connection, BUF};
use conflux_blk_protocol::{Op, Status};
use conflux_fs_core::{Block, Disk, DiskError, BLOCK};

/// 512-byte sectors per 4 KiB block.
const SECTORS: u64 = (BLOCK / 512) as u64;
/// Requests in flight at most (the driver takes 16).
const DEPTH: usize = 16;

/// The driver connection as a disk of 4 KiB blocks.
pub struct BlkDisk {
    link: Connection,
    blocks: u64,
}

impl BlkDisk {
    /// A disk of `blocks` 4 KiB blocks on `link`.
    pub fn new(link: Connection, blocks: u64) -> Self {
        assert!(BUF as usize == BLOCK, "the driver's buffers are blocks");
        BlkDisk { link, blocks }
    }

    /// Sets the disk's size once it is known (from the superblock).
    pub fn set_blocks(&mut self, blocks: u64) {
        self.blocks = blocks;
    }

    /// Sends `op` on buffer `slot` and waits for it, resending after a
    /// driver restart.
    fn one(&mut self, op: Op, block: u64, slot: u32) -> Result<(), DiskError> {
        loop {
            self.link
                .submit(slot, op, block * SECTORS, slot)
                .map_err(|_| DiskError::Link)?;
            let (_, status) = self.link.wait().map_err(|_| DiskError::Link)?;
            match status {
                Status::Ok => return Ok(()),
                Status::Restarted => continue,
                Status::OutOfRange => return Err(DiskError::OutOfRange { block }),
                _ => return Err(DiskError::Io { block }),
            }
        }
    }
}

impl Disk for BlkDisk {
    fn blocks(&self) -> u64 {
        self.blocks
    }

    fn read(&mut self, block: u64, buf: &mut Block) -> Result<(), DiskError> {
        self.one(Op::Read, block, 0)?;
        buf.copy_from_slice(self.link.buffer(0));
        Ok(())
    }

    fn write_all(&mut self, blocks: &[(u64, &Block)]) -> Result<(), DiskError> {
        let depth = DEPTH.min(self.link.buffers() as usize).max(1);
        for batch in blocks.chunks(depth) {
            for (slot, (block, data)) in batch.iter().enumerate() {
                self.link.buffer(slot as u32).copy_from_slice(&data[..]);
                self.link
                    .submit(slot as u32, Op::Write, block * SECTORS, slot as u32)
                    .map_err(|_| DiskError::Link)?;
            }
            crate::fault::after_submitting(batch.len());
            let mut failed = None;
            let mut resend = alloc::vec::Vec::new();
            for _ in batch {
                let (id, status) = self.link.wait().map_err(|_| DiskError::Link)?;
                let block = batch.get(id as usize).map_or(0, |b| b.0);
                match status {
                    Status::Ok => {}
                    Status::Restarted => resend.push(id),
                    Status::OutOfRange => failed = Some(DiskError::OutOfRange { block }),
                    _ => failed = Some(DiskError::Io { block }),
                }
            }
            for id in resend {
                let block = batch.get(id as usize).map_or(0, |b| b.0);
                self.one(Op::Write, block, id)?;
            }
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), DiskError> {
        self.one(Op::Flush, 0, 0)
    }
}

impl Drop for BlkDisk {
    /// The file system was unmounted (or the server is stopping): tell the
    /// driver this client is done, so it can stop once every client is.
    fn drop(&mut self) {
        let _ = self.one(Op::Detach, 0, 0);
    }
}
