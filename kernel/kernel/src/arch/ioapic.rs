//! The I/O APIC: routes device interrupt lines to CPU vectors.
//!
//! Line `n` is delivered as vector `32 + n`, to CPU 0 until [`route_to`]
//! names its driver's CPU (`sched::start`, once tasks are placed): ISA lines (1..=14,
//! identity-mapped to GSIs on QEMU's q35) edge-triggered and active high,
//! PCI INTx lines (GSIs 16..=23) level-triggered and active low, as the
//! PCI specification wires them. A line is masked when it fires and unmasked when the task
//! holding its IRQ capability acknowledges it, so a device cannot flood the
//! kernel while its driver is busy.

use super::paging::phys_to_virt;

use conflux_abi::devices::IOAPIC_PHYS;
use core::sync::atomic::{AtomicU8, Ordering};

/// The I/O APIC's redirection entries (QEMU's has 24).
const LINES: usize = 24;
/// Each line's destination local APIC id; masking and unmasking rewrite
/// the entry, so the destination is kept here.
static DEST: [AtomicU8; LINES] = [const { AtomicU8::new(0) }; LINES];
const REG_SELECT: usize = 0x00;
const REG_WINDOW: usize = 0x10;
const MASKED: u32 = 1 << 16;
const LEVEL: u32 = 1 << 15;
const ACTIVE_LOW: u32 = 1 << 13;
/// Vector of line 0; line `n` arrives on `VECTOR_BASE + n`.
pub const VECTOR_BASE: u8 = 32;

fn write(reg: u32, value: u32) {
    let base = phys_to_virt(IOAPIC_PHYS) as usize;
    // Safety: the I/O APIC's select/window registers at their fixed physical
    // address, reached through the direct map.
    unsafe {
        core::ptr::write_volatile((base + REG_SELECT) as *mut u32, reg);
        core::ptr::write_volatile((base + REG_WINDOW) as *mut u32, value);
    }
}

fn set(line: u8, masked: bool) {
    let pci = conflux_abi::pci::INTX_LINES.contains(&(line as u64));
    let low = (VECTOR_BASE + line) as u32
        | if masked { MASKED } else { 0 }
        | if pci { LEVEL | ACTIVE_LOW } else { 0 };
    let dest = DEST
        .get(line as usize)
        .map_or(0, |d| d.load(Ordering::Relaxed));
    write(0x10 + 2 * line as u32 + 1, u32::from(dest) << 24); // physical destination
    write(0x10 + 2 * line as u32, low);
}

/// Routes `line` to its vector, enabled.
pub fn route(line: u8) {
    set(line, false);
}

/// Delivers `line` to the CPU whose local APIC id is `apic`, enabled.
pub fn route_to(line: u8, apic: u8) {
    if let Some(d) = DEST.get(line as usize) {
        d.store(apic, Ordering::Relaxed);
    }
    set(line, false);
}

/// Stops `line` from interrupting until [`unmask`].
pub fn mask(line: u8) {
    set(line, true);
}

/// Lets `line` interrupt again.
pub fn unmask(line: u8) {
    set(line, false);
}
