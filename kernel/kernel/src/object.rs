//! Kernel objects declared by the manifest (through the boot image).
//!
//! Objects live in one fixed table indexed by their boot-image number.
//! Queues are not stored: a task blocked on an object records that in its
//! own state, and the kernel finds the waiters by scanning the (at most 64)
//! tasks. That keeps every object consistent when a task dies, at a cost
//! that is negligible for 64 tasks.

use conflux_bootimg::{ObjectEntry, ObjectRecord, MAX_OBJECTS};
use core::fmt;

/// One kernel object.
#[derive(Clone, Copy, Debug)]
pub enum Object {
    None,
    /// Served by the task with this index.
    Endpoint {
        server: u8,
    },
    /// Pending signal bits.
    Notification {
        word: u64,
    },
    /// Physically contiguous RAM or device registers.
    Memory {
        phys: u64,
        size: u64,
        device: bool,
    },
    /// Interrupt line bound to a notification bit.
    Irq {
        line: u8,
        notification: u16,
        bit: u8,
    },
    /// I/O ports `[base, base + count)`.
    IoPorts {
        base: u16,
        count: u32,
    },
}

/// Every object of the system.
pub struct Objects {
    pub table: [Object; MAX_OBJECTS],
}

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

impl Objects {
    pub const fn new() -> Self {
        Self {
            table: [Object::None; MAX_OBJECTS],
        }
    }

    /// Creates object `i` from its image entry; RAM regions get zeroed frames.
    pub fn create<'a>(&mut self, i: usize, entry: &ObjectEntry<'a>) -> Result<(), CreateError<'a>> {
        self.table[i] = match entry.object {
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
                // The image checked the range against the manifest's idea
                // of RAM; the machine may have more, or another layout.
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
            // A granted kernel device was checked with the image; the
            // object is then an ordinary port range.
            ObjectRecord::IoPorts { base, count, .. } => Object::IoPorts { base, count },
        };
        Ok(())
    }

    /// The IRQ object bound to `line`, if any.
    pub fn irq_for_line(&self, line: u8) -> Option<(u16, u8)> {
        self.table.iter().find_map(|o| match *o {
            Object::Irq {
                line: l,
                notification,
                bit,
            } if l == line => Some((notification, bit)),
            _ => None,
        })
    }
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
