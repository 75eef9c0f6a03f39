//! The kernel's own look at PCI: the configuration space of the functions
//! the boot image names, through the ECAM window in the direct map, to
//! check that a device is there and to learn where the firmware put its
//! memory BARs (and how large they are) before any driver runs. Drivers
//! never see this window; they get their own function's page.

use super::paging::phys_to_virt;
use conflux_abi::pci::{Bdf, ECAM_BASE, ECAM_SIZE};

const VENDOR: usize = 0x00;
const COMMAND: usize = 0x04;
const BAR0: usize = 0x10;
/// Command register: the device answers memory accesses.
const MEMORY_SPACE: u32 = 1 << 1;

fn reg(bdf: Bdf, offset: usize) -> *mut u32 {
    debug_assert!(bdf.config_phys() + 0x1000 <= ECAM_BASE + ECAM_SIZE);
    (phys_to_virt(bdf.config_phys()) as usize + offset) as *mut u32
}

fn read(bdf: Bdf, offset: usize) -> u32 {
    // Safety: the ECAM window lies below 4 GiB, inside the direct map, and
    // `offset` is a dword inside the function's 4 KiB page; configuration
    // reads have no side effects.
    unsafe { core::ptr::read_volatile(reg(bdf, offset)) }
}

fn write(bdf: Bdf, offset: usize, value: u32) {
    // Safety: as for `read`; the kernel writes only the command register
    // and BARs, at boot, before any driver runs, restoring what it found.
    unsafe { core::ptr::write_volatile(reg(bdf, offset), value) }
}

/// The function's vendor and device ids, if a function answers there.
pub fn ids(bdf: Bdf) -> Option<(u16, u16)> {
    let v = read(bdf, VENDOR);
    (v & 0xffff != 0xffff).then_some((v as u16, (v >> 16) as u16))
}

/// Why a BAR cannot be given to a driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarError {
    /// No function answers at this address.
    Absent,
    /// The BAR is an I/O-port BAR, or unimplemented (size 0).
    NotMemory,
    /// The BAR is the upper half of a 64-bit BAR.
    UpperHalf,
    /// The firmware left it unassigned (address 0).
    Unassigned,
}

/// The physical base and size of memory BAR `bar` of `bdf`, sized the
/// standard way (write all ones with memory decoding off, read back,
/// restore).
pub fn bar(bdf: Bdf, bar: u8) -> Result<(u64, u64), BarError> {
    ids(bdf).ok_or(BarError::Absent)?;
    let off = BAR0 + 4 * bar as usize;
    if bar > 0 && is_64bit_low(read(bdf, off - 4)) {
        return Err(BarError::UpperHalf);
    }
    let low = read(bdf, off);
    if low & 1 != 0 {
        return Err(BarError::NotMemory);
    }
    let wide = is_64bit_low(low) && bar < 5;
    let high = if wide { read(bdf, off + 4) } else { 0 };
    let command = read(bdf, COMMAND);
    write(bdf, COMMAND, command & !MEMORY_SPACE);
    write(bdf, off, u32::MAX);
    let mask_low = read(bdf, off) & !0xf;
    let mask_high = if wide {
        write(bdf, off + 4, u32::MAX);
        let m = read(bdf, off + 4);
        write(bdf, off + 4, high);
        m
    } else {
        u32::MAX
    };
    write(bdf, off, low);
    write(bdf, COMMAND, command);
    let mask = (mask_high as u64) << 32 | mask_low as u64;
    if mask_low == 0 {
        return Err(BarError::NotMemory);
    }
    let size = (!mask).wrapping_add(1);
    let base = (high as u64) << 32 | (low & !0xf) as u64;
    if base == 0 {
        return Err(BarError::Unassigned);
    }
    Ok((base, size))
}

fn is_64bit_low(bar: u32) -> bool {
    bar & 1 == 0 && bar >> 1 & 3 == 2
}
