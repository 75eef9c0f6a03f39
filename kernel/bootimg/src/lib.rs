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
//! then       object records, 64 bytes each
//!            name [u8; 32] (NUL-padded), kind u8, device u8,
//!            reserved [u8; 2], reference u32, a u64, b u64, reserved u64
//! then       capability records, 32 bytes each
//!            task u8, slot u8, object u16, rights u8, reserved [u8; 3],
//!            badge u64, map_vaddr u64, reserved u64
//! then       ELF files, each starting on a 16-byte boundary
//! ```
//!
//! Object fields by kind (any field a kind does not use is zero):
//!
//! | kind | reference | a | b |
//! |---|---|---|---|
//! | endpoint | serving task | — | — |
//! | notification | — | — | — |
//! | region | — | size | — |
//! | MMIO | — | physical base | size |
//! | IRQ | notification object | line | bit |
//! | I/O ports | — | first port | count |
//!
//! `device` is non-zero only for I/O ports: the `conflux_abi::devices::KernelDevice`
//! the manifest grants through them (`kernel_device`). A port range that
//! touches a kernel device must grant it and stay inside its ports, and
//! each granted device must be held, through initial capabilities, by
//! exactly one task.
//!
//! That table is the on-disk form only: the crate reads and writes typed
//! [`ObjectRecord`]s, so no caller handles the generic fields.
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
mod objects;
mod parse;
mod tables;
#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "alloc"))]
pub use encode::{encode, Image};
pub use error::ImageError;
pub use objects::{ObjectEntry, ObjectRecord, OBJECT_RECORD_LEN};
pub use parse::{BootImage, TaskRecord};
pub use tables::{CapRecord, Restart};

/// First eight bytes of every boot image.
pub const MAGIC: [u8; 8] = *b"CFLXBOOT";
/// Format version this crate reads and writes (3: named, 64-byte object
/// records).
pub const VERSION: u32 = 3;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 64;
/// Size of one task record in bytes.
pub const RECORD_LEN: usize = 64;
/// Size of one capability record in bytes.
pub const CAP_RECORD_LEN: usize = 32;
/// Longest task or system name, in bytes.
pub const NAME_MAX: usize = 31;
/// Most tasks one image may describe (the kernel's task table size).
pub const MAX_TASKS: usize = 64;
/// Most CPUs a task may be placed on: a task's `cpu` is below this.
pub const MAX_CPUS: usize = 8;
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
/// ISA interrupt lines a manifest's `[irqs.*]` may name (GSIs 1..=14; 0 is
/// the PIT, 15 stays unused because its vector is the APIC's spurious one).
pub const IRQ_LINES: core::ops::RangeInclusive<u64> = 1..=14;

/// Every line an IRQ object may use: the ISA lines and the PCI INTx lines
/// (`conflux_abi::pci::INTX_LINES`, level-triggered, from `[devices.*]`).
pub fn is_irq_line(line: u64) -> bool {
    IRQ_LINES.contains(&line) || conflux_abi::pci::INTX_LINES.contains(&line)
}
/// Value of `supervisor` when the system has none.
pub const NO_SUPERVISOR: u8 = 0xff;
