//! The boot image: the kernel's boot tables, produced from the manifest.
//!
//! The host runner lowers a validated manifest into this image and QEMU
//! hands it to the kernel as the PVH initrd module. It holds a header, one
//! fixed-size record per task (in start order), the kernel objects the
//! manifest declares, the initial capabilities of every task, and the
//! tasks' ELF files. All integers are little-endian.
//!
//! ```text
//! offset 0   header (64 bytes)
//!            magic "CFLXBOOT", version u32, task_count u32, total_len u64,
//!            system_name [u8; 32] (NUL-padded), object_count u16,
//!            cap_count u16, supervisor u8 (task index, 0xff = none),
//!            reserved [u8; 3] (0)
//! offset 64  task records, 64 bytes each
//!            name [u8; 32], elf_offset u64, elf_len u64, stack_size u32,
//!            heap_size u32, priority u8, restart u8 (0 never, 1 on fault),
//!            reserved [u8; 6]
//! then       object records, 32 bytes each
//!            kind u8, reserved [u8; 3], owner u32, a u64, b u64, reserved u64
//! then       capability records, 32 bytes each
//!            task u8, slot u8, object u16, rights u8, reserved [u8; 3],
//!            badge u64, map_vaddr u64, reserved u64
//! then       ELF files, each starting on a 16-byte boundary
//! ```
//!
//! Object fields by kind: endpoint `owner` = serving task; notification —;
//! region `a` = size; MMIO `a` = physical base, `b` = size; IRQ `a` = line,
//! `owner` = notification object, `b` = bit; I/O ports `a` = first port,
//! `b` = count.
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
mod tables;

#[cfg(any(test, feature = "alloc"))]
pub use encode::{encode, Image};
pub use error::ImageError;
pub use parse::{BootImage, TaskRecord};
pub use tables::{CapRecord, ObjectRecord, Restart};

/// First eight bytes of every boot image.
pub const MAGIC: [u8; 8] = *b"CFLXBOOT";
/// Format version this crate reads and writes.
pub const VERSION: u32 = 2;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 64;
/// Size of one task record in bytes.
pub const RECORD_LEN: usize = 64;
/// Size of one object or capability record in bytes.
pub const TABLE_RECORD_LEN: usize = 32;
/// Longest task or system name, in bytes.
pub const NAME_MAX: usize = 31;
/// Most tasks one image may describe (the kernel's task table size).
pub const MAX_TASKS: usize = 64;
/// Most kernel objects one image may declare.
pub const MAX_OBJECTS: usize = 256;
/// Most initial capabilities one image may grant.
pub const MAX_CAPS: usize = 1024;
/// Alignment of each ELF file inside the image.
pub const ELF_ALIGN: usize = 16;
/// Stack and heap sizes must be multiples of this.
pub const PAGE_SIZE: u32 = 4096;
/// Largest region one object may describe (64 MiB).
pub const MAX_REGION: u64 = 64 << 20;
/// Interrupt lines the kernel can route (GSIs 1..=14; 0 is the PIT, 15 spare).
pub const IRQ_LINES: core::ops::RangeInclusive<u64> = 1..=14;
/// Value of `supervisor` when the system has none.
pub const NO_SUPERVISOR: u8 = 0xff;
