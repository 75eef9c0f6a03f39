//! Devices the kernel keeps for itself.
//!
//! No task may be given an I/O-port or MMIO capability overlapping these:
//! with them it could silence the console, reprogram interrupt routing or
//! stop the machine. The boot image validation refuses such objects.

use crate::exit::DEBUG_EXIT_PORT;

/// COM1, the kernel console.
pub const COM1: u16 = 0x3f8;
/// Physical base of the I/O APIC on QEMU's q35.
pub const IOAPIC_PHYS: u64 = 0xfec0_0000;
/// Physical base of the local APIC (the architectural default).
pub const LAPIC_PHYS: u64 = 0xfee0_0000;

/// I/O-port ranges `[start, end)` reserved for the kernel: the console, both
/// 8259 PICs, the PIT and the debug-exit port.
pub const RESERVED_PORTS: [(u64, u64); 5] = [
    (COM1 as u64, COM1 as u64 + 8),
    (0x20, 0x22),
    (0xa0, 0xa2),
    (0x40, 0x44),
    (DEBUG_EXIT_PORT as u64, DEBUG_EXIT_PORT as u64 + 4),
];

/// Physical ranges `[start, end)` reserved for the kernel: the APIC pages.
pub const RESERVED_MMIO: [(u64, u64); 2] = [
    (IOAPIC_PHYS, IOAPIC_PHYS + 0x1000),
    (LAPIC_PHYS, LAPIC_PHYS + 0x1000),
];

/// True when `[start, start + len)` overlaps any range in `reserved`.
pub fn overlaps(reserved: &[(u64, u64)], start: u64, len: u64) -> bool {
    let end = start.saturating_add(len);
    reserved.iter().any(|&(s, e)| start < e && s < end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_half_open() {
        assert!(overlaps(&RESERVED_PORTS, 0x3f8, 1));
        assert!(overlaps(&RESERVED_PORTS, 0x3f0, 9));
        assert!(!overlaps(&RESERVED_PORTS, 0x2f8, 8));
        assert!(!overlaps(&RESERVED_PORTS, 0x400, 8));
        assert!(overlaps(&RESERVED_MMIO, 0xfee0_0000, 0x1000));
        assert!(!overlaps(&RESERVED_MMIO, 0xfed0_0000, 0x1000));
    }
}
