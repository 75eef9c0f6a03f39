//! The cache as the file system's block device: sectors are 4 KiB blocks,
//! and a flush is a sync (write back, then make durable), which is what
//! the journal's ordering points and `fsync` need.

use crate::cache::BlockCache;
use crate::disk::{Disk, BLOCK};
use conflux_ext4::{BlockDevice, DeviceError};

impl<D: Disk> BlockDevice for BlockCache<D> {
    fn sector_size(&self) -> u32 {
        BLOCK as u32
    }

    fn sector_count(&self) -> u64 {
        self.disk().blocks()
    }

    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        BlockCache::read(self, first_sector, buf).map_err(|_| DeviceError)
    }

    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), DeviceError> {
        BlockCache::write(self, first_sector, data).map_err(|_| DeviceError)
    }

    fn flush(&mut self) -> Result<(), DeviceError> {
        self.sync().map_err(|_| DeviceError)
    }
}
