//! Creating the kernel objects the boot image declares. The object table
//! and what the kernel does with objects live in `conflux_kcore::object`.

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
    })
}

/// `size` bytes (whole pages) of zeroed, physically contiguous RAM.
fn zeroed_region(size: u64) -> Option<u64> {
    let frames = size / 4096;
    let phys = crate::mem::alloc_contiguous(frames as usize)?;
    for f in 0..frames {
        // Safety: the frames were just allocated for this region.
        unsafe { crate::arch::paging::frame_bytes(phys + f * 4096).fill(0) };
    }
    Some(phys)
}
