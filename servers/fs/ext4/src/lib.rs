//! The file server's on-disk format: an ext4 file system with 4 KiB
//! blocks, on any [`BlockDevice`].
//!
//! This crate is the project's one module around the ext4 library
//! (`rsext4`, pinned): no rsext4 type appears in its API, so the library
//! can be replaced here alone. What it adds on top:
//!
//! - **Paths.** Every operation that names an entry takes an absolute
//!   path, checked before it reaches the library (`path`).
//! - **Specific errors.** rsext4's error kinds map onto [`Error`], one
//!   reason a client can act on per variant.
//! - **No orphans.** An inode whose last name is removed is freed in the
//!   same call (rsext4 leaves that to the caller and refuses to unmount
//!   while one is left).
//! - **Repairs of rsext4 bugs** on the way to the disk, in the device
//!   adapter: inode-bitmap padding (`padding`) and the block count of
//!   directories with an extent tree (`dirblocks`).
//! - **Unmounting after any number of transactions.** rsext4 cannot
//!   checkpoint its journal for the superblock write that marks the image
//!   clean, so its unmount failed once the journal was two thirds full;
//!   `unmount` makes the room first (`journal_room`).
//!
//! Limits of rsext4 0.9.2 that images must respect (see
//! `docs/fs.md`, "The on-disk format"): 4 KiB blocks only (`mke2fs -b 4096`), and
//! directories need extents to grow past 12 blocks (`mke2fs -t ext4`).

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

mod device;
mod dirblocks;
mod error;
mod fs;
mod journal_room;
mod layout;
mod listings;
mod meta_cache;
mod names;
mod padding;
mod path;
mod probe;
mod times;
mod types;

pub use device::{BlockDevice, Clock, DeviceError, FixedClock};
pub use error::{Error, Result};
pub use fs::FileSystem;
pub use meta_cache::MetaSizes;
pub use path::{check_name, MAX_NAME, MAX_PATH};
pub use probe::blocks_in_image;
pub use types::{DirCursor, DirEntry, FileType, FsStats, Ino, Stat};
