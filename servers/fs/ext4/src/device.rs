//! What the file system runs on: a synchronous block device and a clock,
//! both supplied by the embedder (the file server's block cache over the
//! virtio-blk queue in the guest, a file in host tests), and their
//! adapters to rsext4's `BlockIo` and `Clock`.

use crate::dirblocks::DirBlocks;
use crate::layout::Layout;
use crate::padding::Padding;
use rsext4::{
    BlockIo, DeviceCapabilities, DeviceGeometry, Ext4Error, Ext4Result, Ext4Timestamp, SectorId,
};

/// Why the block device failed; the file system reports it as
/// [`crate::Error::Io`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceError;

/// A disk addressed in sectors of 512 or 4096 bytes.
///
/// Every call is synchronous: `read` returns with the data, `write` may
/// leave the data in a cache, and `flush` returns once everything written
/// before it is on stable storage (the journal's ordering depends on it).
pub trait BlockDevice {
    /// Bytes per sector: 512 or 4096.
    fn sector_size(&self) -> u32;
    /// Sectors on the device.
    fn sector_count(&self) -> u64;
    /// Fills `buf` (a whole number of sectors) from `first_sector` on.
    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), DeviceError>;
    /// Writes `data` (a whole number of sectors) from `first_sector` on.
    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), DeviceError>;
    /// Makes every completed write durable.
    fn flush(&mut self) -> Result<(), DeviceError>;
}

/// Wall-clock time for inode timestamps.
pub trait Clock {
    /// Seconds since the Unix epoch.
    fn now_secs(&self) -> i64;
}

/// A clock that always reads the same second: for systems without a
/// real-time clock, and for reproducible images in tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedClock(pub i64);

impl Clock for FixedClock {
    fn now_secs(&self) -> i64 {
        self.0
    }
}

/// A [`BlockDevice`] seen as rsext4's `BlockIo`. rsext4 may pass a buffer
/// longer than the `count` sectors it asks for; only those are moved.
/// On the way, two rsext4 bugs are repaired (`padding`, `dirblocks`).
pub(crate) struct Io<D> {
    device: D,
    padding: Option<Padding>,
    dirblocks: Option<DirBlocks>,
}

impl<D: BlockDevice> Io<D> {
    /// Wraps `device`, learning where its inode bitmaps and tables are.
    pub(crate) fn new(mut device: D) -> Result<Self, DeviceError> {
        let layout = Layout::read(&mut device)?;
        let padding = layout.as_ref().and_then(Padding::new);
        let dirblocks = layout.map(DirBlocks::new);
        Ok(Io {
            device,
            padding,
            dirblocks,
        })
    }
}

impl<D: BlockDevice> BlockIo for Io<D> {
    fn read(&mut self, buffer: &mut [u8], sector: SectorId, count: u32) -> Ext4Result<()> {
        let size = self.device.sector_size();
        let buffer = buffer
            .get_mut(..count as usize * size as usize)
            .ok_or_else(Ext4Error::invalid_input)?;
        self.device
            .read(sector.raw(), buffer)
            .map_err(|_| Ext4Error::io())
    }

    fn write(&mut self, buffer: &[u8], sector: SectorId, count: u32) -> Ext4Result<()> {
        let size = self.device.sector_size();
        let buffer = buffer
            .get(..count as usize * size as usize)
            .ok_or_else(Ext4Error::invalid_input)?;
        let at = sector.raw() * u64::from(size);
        let fixed = self.padding.as_ref().and_then(|p| p.apply(at, buffer));
        let data = fixed.as_deref().unwrap_or(buffer);
        self.device
            .write(sector.raw(), data)
            .map_err(|_| Ext4Error::io())?;
        if let Some(dirblocks) = &mut self.dirblocks {
            dirblocks.note_write(at, data.len());
        }
        Ok(())
    }

    fn geometry(&self) -> DeviceGeometry {
        DeviceGeometry::new(self.device.sector_size(), self.device.sector_count())
    }

    fn capabilities(&self) -> DeviceCapabilities {
        DeviceCapabilities {
            flush: true,
            ..DeviceCapabilities::default()
        }
    }

    fn flush(&mut self) -> Ext4Result<()> {
        if let Some(dirblocks) = &mut self.dirblocks {
            dirblocks
                .repair(&mut self.device)
                .map_err(|_| Ext4Error::io())?;
        }
        self.device.flush().map_err(|_| Ext4Error::io())
    }
}

/// A [`Clock`] seen as rsext4's `Clock`.
pub(crate) struct Time<C>(pub C);

impl<C: Clock> rsext4::Clock for Time<C> {
    fn now(&self) -> Ext4Result<Ext4Timestamp> {
        Ok(Ext4Timestamp::new(self.0.now_secs(), 0))
    }
}
