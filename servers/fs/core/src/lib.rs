//! The file server's logic that needs neither IPC nor a device, so that
//! the host can test it:
//!
//! - the page cache ([`Files`] over [`pages::Pages`]): file data by
//!   (inode, page), above the file system, so a cached read or write
//!   touches neither rsext4 nor the block cache;
//! - the write-back block cache ([`cache::BlockCache`]) over any [`Disk`],
//!   which is the block device the ext4 file system (`conflux-ext4`)
//!   runs on;
//! - per-client sessions ([`Session`]: file rights, open handles, current
//!   directory) and the server-wide table of open inodes ([`Inodes`]);
//! - file rights ([`Grant`]): each client's root directory, which no path
//!   it names can leave, and its read-only or read-write access there;
//! - the file operations as a `cosy_abi::Service` ([`FileService`]), the
//!   one implementation behind compounds and per-call requests.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod cache;
mod device;
mod disk;
mod errors;
mod files;
pub mod pages;
mod path;
mod rights;
mod service;
mod session;

pub use cache::{BlockCache, CacheStats};
pub use disk::{Block, Disk, DiskError, BLOCK};
pub use errors::fs_error;
pub use files::Files;
pub use pages::{PageStats, Pages};
pub use path::ClientPath;
pub use rights::{changes_files, Access, Grant, Grants};
pub use service::{stat_record, FileService};
pub use session::{Inodes, OpenFile, Session, MAX_OPEN};
