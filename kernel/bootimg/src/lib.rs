//! The boot image: the kernel's boot tables, produced from the manifest.
//!
//! The host runner lowers a validated manifest into this image and QEMU
//! hands it to the kernel as the PVH initrd module. It holds a header, one
//! fixed-size record per task (in start order) and the tasks' ELF files.
//! All integers are little-endian.
//!
//! ```text
//! offset 0   header (64 bytes)
//!            magic "CFLXBOOT", version u32, task_count u32, total_len u64,
//!            system_name [u8; 32] (NUL-padded), reserved u64 (0)
//! offset 64  task records, 64 bytes each
//!            name [u8; 32] (NUL-padded), elf_offset u64, elf_len u64,
//!            stack_size u32, heap_size u32, priority u8, reserved [u8; 7]
//! then       ELF files, each starting on a 16-byte boundary
//! ```
//!
//! The kernel trusts nothing in the image it has not checked: [`BootImage::parse`]
//! validates every field once, after which no accessor can fail or panic.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

#[cfg(any(test, feature = "alloc"))]
extern crate alloc;

#[cfg(any(test, feature = "alloc"))]
mod encode;
mod error;
mod parse;

#[cfg(any(test, feature = "alloc"))]
pub use encode::encode;
pub use error::ImageError;
pub use parse::{BootImage, TaskRecord};

/// First eight bytes of every boot image.
pub const MAGIC: [u8; 8] = *b"CFLXBOOT";
/// Format version this crate reads and writes.
pub const VERSION: u32 = 1;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 64;
/// Size of one task record in bytes.
pub const RECORD_LEN: usize = 64;
/// Longest task or system name, in bytes.
pub const NAME_MAX: usize = 31;
/// Most tasks one image may describe (the kernel's task table size).
pub const MAX_TASKS: usize = 64;
/// Alignment of each ELF file inside the image.
pub const ELF_ALIGN: usize = 16;
/// Stack and heap sizes must be multiples of this.
pub const PAGE_SIZE: u32 = 4096;
