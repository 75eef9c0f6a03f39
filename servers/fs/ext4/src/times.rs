//! Setting an inode's access time on its own: the file server's page
//! cache serves reads without rsext4 (which would set it on every read)
//! and follows Linux's default `relatime` instead, updating it through
//! this when a read is due one.

use rsext4::{Ext4Timestamp, InodeMetadataUpdate};

use crate::device::BlockDevice;
use crate::error::Result;
use crate::fs::{number, FileSystem};
use crate::types::Ino;

impl<D: BlockDevice> FileSystem<D> {
    /// Sets inode `ino`'s access time to `secs` (seconds since the epoch).
    pub fn set_atime(&mut self, ino: Ino, secs: i64) -> Result<()> {
        let update = InodeMetadataUpdate {
            atime: Some(Ext4Timestamp::new(secs, 0)),
            ..InodeMetadataUpdate::default()
        };
        let done = self.inner.update_inode_metadata(number(ino)?, update);
        self.cache.touched(ino);
        done?;
        Ok(())
    }
}
