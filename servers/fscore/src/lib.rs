//! The file server's logic that needs neither IPC nor a device, so that
//! the host can test it: for now the write-back block cache
//! ([`cache::BlockCache`]) the file system runs on, over any [`Disk`].
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod cache;
mod disk;

pub use cache::{BlockCache, CacheStats};
pub use disk::{Block, Disk, DiskError, BLOCK};
