//! Devices the kernel keeps for itself.
//!
//! Two kinds. The console, both 8259 PICs, the PIT, the debug-exit port and
//! the APICs are the kernel's alone: no task may be given an I/O-port or
//! MMIO capability overlapping them ([`RESERVED_PORTS`], [`RESERVED_MMIO`]);
//! with them it could silence the console, reprogram interrupt routing or
//! stop the machine. The [`KernelDevice`]s — PCI configuration, the reset
//! port and the ACPI power-management block — are kept too, unless the
//! manifest grants one explicitly (`kernel_device = "NAME"` on an
//! `[ioports.*]` object) to exactly one task, such as a PCI bus driver.
//! The boot image carries that grant, so the kernel's own validation of
//! the image enforces the same rule as the manifest.

use crate::exit::DEBUG_EXIT_PORT;

/// COM1, the kernel console.
pub const COM1: u16 = 0x3f8;
/// COM1's interrupt line. The kernel keeps COM1's ports, but the task
/// holding the IRQ capability for this line is the console's reader: the
/// kernel drains what is typed into a buffer, signals that task, and hands
/// it the bytes through `console_read`.
pub const CONSOLE_IRQ_LINE: u8 = 4;
/// Physical base of the I/O APIC on QEMU's q35.
pub const IOAPIC_PHYS: u64 = 0xfec0_0000;
/// Physical base of the local APIC (the architectural default).
pub const LAPIC_PHYS: u64 = 0xfee0_0000;

/// The CMOS real-time clock's index and data ports. The kernel reads the
/// date there once at boot (the wall clock); bit 7 of the index port also
/// masks NMIs, so no task may write it.
pub const RTC_INDEX: u16 = 0x70;
pub const RTC_DATA: u16 = 0x71;

/// I/O-port ranges `[start, end)` reserved for the kernel: the console, both
/// 8259 PICs, the PIT, the real-time clock and the debug-exit port.
pub const RESERVED_PORTS: [(u64, u64); 6] = [
    (COM1 as u64, COM1 as u64 + 8),
    (0x20, 0x22),
    (0xa0, 0xa2),
    (0x40, 0x44),
    (RTC_INDEX as u64, RTC_DATA as u64 + 1),
    (DEBUG_EXIT_PORT as u64, DEBUG_EXIT_PORT as u64 + 4),
];

/// Physical ranges `[start, end)` reserved for the kernel: the APIC pages.
pub const RESERVED_MMIO: [(u64, u64); 3] = [
    (IOAPIC_PHYS, IOAPIC_PHYS + 0x1000),
    (LAPIC_PHYS, LAPIC_PHYS + 0x1000),
    // The whole PCI configuration window: a driver gets its own
    // function's page through a PCI object, never the window.
    (
        crate::pci::ECAM_BASE,
        crate::pci::ECAM_BASE + crate::pci::ECAM_SIZE,
    ),
];

/// Base of the ICH9 ACPI power-management I/O block on QEMU q35. The
/// firmware programs it into the LPC bridge's PMBASE register: SeaBIOS
/// (`src/fw/paravirt.c`, `qemu_cfg_init`) moves it from 0xb000 to 0x600
/// whenever QEMU supplies its own ACPI tables (`etc/table-loader`), and
/// QEMU's q35 FADT (`tests/data/acpi/q35/FACP`) lists PM1a at 0x600,
/// PM1a control at 0x604, the PM timer at 0x608 and GPE0 at 0x620.
/// QEMU 7.2's monitor (`info mtree`) on this project's q35 shows the same:
/// `ich9-pm` at 0x600-0x67f.
pub const ACPI_PM_BASE: u16 = 0x600;
/// Size of that block: 128 ports (QEMU `include/hw/southbridge/ich9.h`,
/// `ICH9_PMIO_SIZE`, "128 ports and 128-aligned").
pub const ACPI_PM_SIZE: u16 = 128;

/// A device the kernel keeps unless the manifest grants it to one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum KernelDevice {
    /// PCI configuration mechanism #1: address port 0xcf8, data ports
    /// 0xcfc..0xd00. The byte port 0xcf9 between them is the chipset's
    /// reset control register, so its holder can also reset the machine.
    PciConfig = 1,
    /// System control port A (0x92): fast reset and the A20 gate.
    SystemControl = 2,
    /// The ACPI power-management block (PM1 event and control, PM timer,
    /// GPE0, SMI control): sleep states and power-off.
    AcpiPm = 3,
}

impl KernelDevice {
    /// Every grantable device.
    pub const ALL: [Self; 3] = [Self::PciConfig, Self::SystemControl, Self::AcpiPm];
    /// Their manifest names, in [`Self::ALL`] order.
    pub const NAMES: [&'static str; 3] = ["pci-config", "system-control", "acpi-pm"];

    /// The device's name in the manifest (`kernel_device = "pci-config"`).
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize - 1]
    }

    /// The device's I/O ports `[start, end)`.
    pub fn ports(self) -> (u64, u64) {
        match self {
            Self::PciConfig => (0xcf8, 0xd00),
            Self::SystemControl => (0x92, 0x93),
            Self::AcpiPm => (
                ACPI_PM_BASE as u64,
                ACPI_PM_BASE as u64 + ACPI_PM_SIZE as u64,
            ),
        }
    }

    /// What the device is, for messages.
    pub fn description(self) -> &'static str {
        match self {
            Self::PciConfig => {
                "the PCI configuration ports (0xcf9 among them also resets the machine)"
            }
            Self::SystemControl => "system control port A (fast reset and the A20 gate)",
            Self::AcpiPm => "the ACPI power-management ports (sleep and power-off)",
        }
    }

    /// Decodes the boot image's device byte (0 is "none", handled by the caller).
    pub fn from_raw(raw: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|d| *d as u8 == raw)
    }

    /// The device called `name` in the manifest.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    /// True when `[start, start + len)` lies inside the device's ports.
    pub fn contains(self, start: u64, len: u64) -> bool {
        let (s, e) = self.ports();
        start >= s && start.saturating_add(len) <= e
    }
}

/// The grantable devices whose ports overlap `[start, start + len)`.
pub fn kernel_devices_in(start: u64, len: u64) -> impl Iterator<Item = KernelDevice> {
    KernelDevice::ALL
        .into_iter()
        .filter(move |d| overlaps(&[d.ports()], start, len))
}

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
        assert!(overlaps(&RESERVED_PORTS, 0x70, 1));
        assert!(overlaps(&RESERVED_PORTS, 0x71, 1));
        assert!(!overlaps(&RESERVED_PORTS, 0x72, 2));
        assert!(overlaps(&RESERVED_MMIO, 0xfee0_0000, 0x1000));
        assert!(!overlaps(&RESERVED_MMIO, 0xfed0_0000, 0x1000));
    }

    #[test]
    fn kernel_devices_cover_pci_reset_and_acpi_ports() {
        let found = |start, len| kernel_devices_in(start, len).collect::<Vec<_>>();
        assert_eq!(found(0xcf9, 1), [KernelDevice::PciConfig]);
        assert_eq!(found(0xcfc, 4), [KernelDevice::PciConfig]);
        assert_eq!(found(0xcf0, 8), []);
        assert_eq!(found(0x92, 1), [KernelDevice::SystemControl]);
        assert_eq!(found(0x67f, 1), [KernelDevice::AcpiPm]);
        assert_eq!(found(0x680, 8), []);
        assert_eq!(found(0x0, 0x1_0000).len(), 3);
        assert!(KernelDevice::PciConfig.contains(0xcfc, 4));
        assert!(!KernelDevice::PciConfig.contains(0xcfc, 5));
    }

    #[test]
    fn names_and_raw_values_round_trip() {
        for d in KernelDevice::ALL {
            assert_eq!(KernelDevice::from_name(d.name()), Some(d));
            assert_eq!(KernelDevice::from_raw(d as u8), Some(d));
        }
        assert_eq!(KernelDevice::from_raw(0), None);
        assert_eq!(KernelDevice::from_raw(4), None);
        assert_eq!(KernelDevice::from_name("pci"), None);
    }
}
