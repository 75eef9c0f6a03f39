//! PCI on QEMU's q35, as far as the kernel, the manifest and drivers must
//! agree on it.
//!
//! Every PCI function has a 4 KiB configuration page in the memory-mapped
//! configuration window (ECAM) at [`ECAM_BASE`] + bus << 20 | device << 15
//! | function << 12. The window as a whole is the kernel's (it reaches
//! every function); a driver gets exactly its own function's page, and its
//! function's memory BARs, whose addresses the firmware chose and the
//! kernel reads at boot.
//!
//! Device interrupts arrive as PCI INTx through the I/O APIC, level
//! triggered and active low, on global system interrupts 16..=23 (PIRQ A-H
//! in APIC mode). Message-signalled interrupts are not used: without an
//! IOMMU's interrupt remapping, a driver that can write its device's MSI-X
//! table could send any vector to the kernel.

/// Physical base of q35's ECAM window (QEMU's default `MCFG` base).
pub const ECAM_BASE: u64 = 0xb000_0000;
/// Size of the ECAM window (256 buses).
pub const ECAM_SIZE: u64 = 0x1000_0000;
/// Size of one function's configuration page.
pub const CONFIG_PAGE: u64 = 0x1000;
/// The interrupt lines (GSIs) that PCI INTx arrive on.
pub const INTX_LINES: core::ops::RangeInclusive<u64> = 16..=23;

/// A PCI function's address: bus, device (slot) and function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bdf(pub u16);

impl Bdf {
    pub const fn new(bus: u8, device: u8, function: u8) -> Option<Self> {
        if device < 32 && function < 8 {
            Some(Self(
                (bus as u16) << 8 | (device as u16) << 3 | function as u16,
            ))
        } else {
            None
        }
    }

    pub const fn bus(self) -> u8 {
        (self.0 >> 8) as u8
    }

    pub const fn device(self) -> u8 {
        (self.0 >> 3 & 0x1f) as u8
    }

    pub const fn function(self) -> u8 {
        (self.0 & 7) as u8
    }

    /// Physical address of this function's configuration page.
    pub const fn config_phys(self) -> u64 {
        ECAM_BASE + ((self.0 as u64) << 12)
    }

    /// The GSI of this function's INTA# on q35: QEMU's ICH9 routes INTx
    /// of bus-0 slots 1..=24 to PIRQ E-H, swizzled by slot (`(slot + pin)
    /// % 4`, as its ACPI `_PRT` says), and PIRQ A-H are GSIs 16-23 in APIC
    /// mode. Measured here: slot 8's INTA# raises I/O APIC pin 20.
    pub const fn inta_gsi(self) -> u8 {
        20 + (self.device() & 3)
    }
}

impl core::fmt::Display for Bdf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{:02x}:{:02x}.{}",
            self.bus(),
            self.device(),
            self.function()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_and_map_into_the_window() {
        let b = Bdf::new(0, 8, 0).unwrap();
        assert_eq!((b.bus(), b.device(), b.function()), (0, 8, 0));
        assert_eq!(b.config_phys(), 0xb004_0000);
        assert_eq!(
            b.inta_gsi(),
            20,
            "slot 8 INTA# is I/O APIC pin 20 on q35 (measured)"
        );
        assert_eq!(format!("{b}"), "00:08.0");
        assert_eq!(Bdf::new(0, 32, 0), None);
        assert_eq!(Bdf::new(0, 0, 8), None);
        let last = Bdf::new(255, 31, 7).unwrap();
        assert_eq!(last.config_phys() + CONFIG_PAGE, ECAM_BASE + ECAM_SIZE);
    }
}
