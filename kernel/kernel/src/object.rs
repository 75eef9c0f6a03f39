//! Creating the kernel objects the boot image declares. The object table
//! and what the kernel does with objects live in `conflux_kcore::object`.

use crate::arch::pci::{self, BarError};
use conflux_abi::devices::{overlaps, RESERVED_MMIO};
use conflux_abi::pci::{Bdf, CONFIG_PAGE};
use conflux_bootimg::{ObjectEntry, ObjectRecord};
use conflux_kcore::object::Object;
use core::fmt;

/// Why an object could not be created at boot; the boot stops.
#[derive(Debug)]
pub enum CreateError<'a> {
    /// No physically contiguous RAM for region `name` of `size` bytes.
    NoMemory { name: &'a str, size: u64 },
    /// MMIO range `name`, `[phys, end)`, overlaps the firmware's RAM range
    /// `ram`: a task holding it could map the kernel's memory.
    MmioOverRam {
        name: &'a str,
        phys: u64,
        end: u64,
        ram: (u64, u64),
    },
    /// The PCI function behind `name` is not there, or its BAR cannot be
    /// handed out.
    Pci {
        name: &'a str,
        bdf: Bdf,
        why: &'static str,
    },
}

impl fmt::Display for CreateError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoMemory { name, size } => write!(
                f,
                "no {} KiB of contiguous free memory for region '{name}'; give the system more memory (`system.memory_mib`) or shrink the region",
                size / 1024
            ),
            Self::MmioOverRam { name, phys, end, ram } => write!(
                f,
                "MMIO range '{name}' ({phys:#x}..{end:#x}) overlaps RAM {:#x}..{:#x} in the firmware's memory map; a task holding it could reach the kernel's memory. Use the device's register address in the manifest, and boot with the `system.memory_mib` it declares (the runner does)",
                ram.0, ram.1
            ),
            Self::Pci { name, bdf, why } => write!(
                f,
                "PCI device '{name}' at {bdf}: {why}; check that the runner gave QEMU the device (the manifest's `[devices.*]` entry) and that its kind matches"
            ),
        }
    }
}

/// Makes the object an image entry describes; RAM regions get zeroed frames.
pub fn create<'a>(entry: &ObjectEntry<'a>) -> Result<Object, CreateError<'a>> {
    Ok(match entry.object {
        ObjectRecord::Endpoint { server } => Object::Endpoint { server },
        ObjectRecord::Notification => Object::Notification { word: 0 },
        ObjectRecord::Region { size } => Object::Memory {
            phys: zeroed_region(size).ok_or(CreateError::NoMemory {
                name: entry.name,
                size,
            })?,
            size,
            device: false,
        },
        ObjectRecord::Mmio { phys, size } => {
            // The image checked the range against the manifest's idea of
            // RAM; the machine may have more, or another layout.
            if let Some(ram) = crate::pvh::ram_overlapping(phys, phys + size) {
                return Err(CreateError::MmioOverRam {
                    name: entry.name,
                    phys,
                    end: phys + size,
                    ram,
                });
            }
            Object::Memory {
                phys,
                size,
                device: true,
            }
        }
        ObjectRecord::Irq {
            line,
            notification,
            bit,
        } => Object::Irq {
            line,
            notification,
            bit,
        },
        // A granted kernel device was checked with the image; the object
        // is then an ordinary port range.
        ObjectRecord::IoPorts { base, count, .. } => Object::IoPorts { base, count },
        ObjectRecord::PciConfig { bdf } => {
            pci::ids(bdf).ok_or(CreateError::Pci {
                name: entry.name,
                bdf,
                why: "no function answers there",
            })?;
            Object::Memory {
                phys: bdf.config_phys(),
                size: CONFIG_PAGE,
                device: true,
            }
        }
        ObjectRecord::PciBar { bdf, bar } => pci_bar(entry.name, bdf, bar)?,
    })
}

/// A memory BAR as device memory a driver may map: where the firmware
/// put it, rounded out to whole pages, and never over RAM or the kernel's
/// own devices (a function's BAR registers are writable by its driver
/// later, but the mapping the driver holds stays this one).
fn pci_bar(name: &str, bdf: Bdf, bar: u8) -> Result<Object, CreateError<'_>> {
    let err = |why| CreateError::Pci { name, bdf, why };
    let (base, size) = pci::bar(bdf, bar).map_err(|e| {
        err(match e {
            BarError::Absent => "no function answers there",
            BarError::NotMemory => "the BAR is not a memory BAR",
            BarError::UpperHalf => "the BAR is the upper half of a 64-bit BAR",
            BarError::Unassigned => "the firmware did not assign the BAR an address",
        })
    })?;
    let size = size.max(4096).next_multiple_of(4096);
    let end = base
        .checked_add(size)
        .ok_or(err("the BAR wraps the address space"))?;
    if !base.is_multiple_of(4096) || size > conflux_bootimg::MAX_REGION {
        return Err(err(
            "the BAR is not page aligned or is larger than a region may be",
        ));
    }
    if let Some(ram) = crate::pvh::ram_overlapping(base, end) {
        return Err(CreateError::MmioOverRam {
            name,
            phys: base,
            end,
            ram,
        });
    }
    if overlaps(&RESERVED_MMIO, base, size) {
        return Err(err("the BAR overlaps a device the kernel keeps"));
    }
    Ok(Object::Memory {
        phys: base,
        size,
        device: true,
    })
}

/// `size` bytes (whole pages) of zeroed, physically contiguous RAM.
fn zeroed_region(size: u64) -> Option<u64> {
    let frames = size / 4096;
    let phys = crate::mem::alloc_contiguous(frames as usize)?;
    for f in 0..frames {
        // Safety: the frames were just allocated for this region.
        unsafe { crate::arch::paging::zero_frame(phys + f * 4096) };
    }
    Some(phys)
}
