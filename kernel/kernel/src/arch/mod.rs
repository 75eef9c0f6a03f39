//! Everything specific to x86-64: boot entry, descriptor tables, trap entry,
//! control registers, page tables, the serial port and machine exit.
//!
//! The rest of the kernel sees this module's functions and types only, so a
//! second architecture would replace this directory and nothing else.

pub mod apic;
pub mod boot;
pub mod context;
pub mod cpu;
pub mod gdt;
pub mod idt;
pub mod ioapic;
pub mod kmap;
pub mod machine;
pub mod paging;
pub mod pci;
pub mod port;
pub mod rtc;
pub mod serial;
pub mod trampoline;
pub mod trap;

/// Reads CR2, the address of the last page fault.
pub fn fault_address() -> u64 {
    x86_64::registers::control::Cr2::read_raw()
}
