//! What the block cache runs on: a disk of 4 KiB blocks, synchronous.

/// Bytes per block (the file system's block size, and the cache's).
pub const BLOCK: usize = 4096;

/// One block's bytes.
pub type Block = [u8; BLOCK];

/// Why a disk operation failed, with the block it was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskError {
    /// The device reported an error reading or writing `block`.
    Io { block: u64 },
    /// `block` is past the end of the disk.
    OutOfRange { block: u64 },
    /// The connection to the block driver failed (its rings are damaged,
    /// or it restarted and a request could not be sent again).
    Link,
}

/// A disk of 4 KiB blocks (the guest's is the virtio-blk driver's queue).
pub trait Disk {
    /// Blocks on the disk.
    fn blocks(&self) -> u64;
    /// Reads `block` into `buf`.
    fn read(&mut self, block: u64, buf: &mut Block) -> Result<(), DiskError>;
    /// Writes each `(block, data)`; a disk that can keep several requests
    /// in flight sends them together. Returns when all are written (not
    /// necessarily durable: see [`Disk::flush`]).
    fn write_all(&mut self, blocks: &[(u64, &Block)]) -> Result<(), DiskError>;
    /// Makes every completed write durable.
    fn flush(&mut self) -> Result<(), DiskError>;
}
