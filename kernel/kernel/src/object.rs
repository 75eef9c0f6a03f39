//! Kernel objects declared by the manifest (through the boot image).
//!
//! Objects live in one fixed table indexed by their boot-image number.
//! Queues are not stored: a task blocked on an object records that in its
//! own state, and the kernel finds the waiters by scanning the (at most 64)
//! tasks. That keeps every object consistent when a task dies, at a cost
//! that is negligible for 64 tasks.

use conflux_abi::cap::ObjectKind;
use conflux_bootimg::{ObjectRecord, MAX_OBJECTS};

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

/// Why an object could not be created at boot.
#[derive(Debug)]
pub struct NoMemory;

impl Objects {
    pub const fn new() -> Self {
        Self {
            table: [Object::None; MAX_OBJECTS],
        }
    }

    /// Creates object `i` from its record; RAM regions get zeroed frames.
    pub fn create(&mut self, i: usize, rec: &ObjectRecord) -> Result<(), NoMemory> {
        self.table[i] = match rec.kind {
            ObjectKind::Endpoint => Object::Endpoint {
                server: rec.owner as u8,
            },
            ObjectKind::Notification => Object::Notification { word: 0 },
            ObjectKind::Region => {
                let frames = rec.a / 4096;
                let phys = crate::mem::alloc_contiguous(frames as usize).ok_or(NoMemory)?;
                for f in 0..frames {
                    // Safety: the frames were just allocated for this region.
                    unsafe { crate::arch::paging::frame_bytes(phys + f * 4096).fill(0) };
                }
                Object::Memory {
                    phys,
                    size: rec.a,
                    device: false,
                }
            }
            ObjectKind::Mmio => Object::Memory {
                phys: rec.a,
                size: rec.b,
                device: true,
            },
            ObjectKind::Irq => Object::Irq {
                line: rec.a as u8,
                notification: rec.owner as u16,
                bit: rec.b as u8,
            },
            ObjectKind::IoPorts => Object::IoPorts {
                base: rec.a as u16,
                count: rec.b as u32,
            },
            ObjectKind::Reply => Object::None,
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
