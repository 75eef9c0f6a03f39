//! The file server's logic that needs neither IPC nor a device, so that
//! the host can test it: for now the write-back block cache
//! ([`cache::BlockCache`]) over any [`Disk`], which is the block device
//! the ext4 file system (`conflux-ext4`) runs on.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod cache;
mod device;
mod disk;

pub use cache::{BlockCache, CacheStats};
pub use disk::{Block, Disk, DiskError, BLOCK};
