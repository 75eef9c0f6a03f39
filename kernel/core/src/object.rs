//! Kernel objects declared by the manifest (through the boot image).
//!
//! Objects live in one fixed table indexed by their boot-image number.
//! Queues are not stored: a task blocked on an object records that in its
//! own state, and the kernel finds waiters by scanning the image's tasks
//! (at most 64). That keeps every object consistent when a task dies.

use conflux_bootimg::MAX_OBJECTS;

/// One kernel object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Physically contiguous RAM (`device` false) or device registers.
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

impl Default for Objects {
    fn default() -> Self {
        Self::new()
    }
}

impl Objects {
    pub const fn new() -> Self {
        Self {
            table: [Object::None; MAX_OBJECTS],
        }
    }

    pub fn get(&self, i: u16) -> Object {
        self.table.get(i as usize).copied().unwrap_or(Object::None)
    }

    /// The IRQ object bound to `line`, if any: (notification, bit).
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

    /// True when some IRQ line signals notification `n`.
    pub fn fed_by_irq(&self, n: u16) -> bool {
        self.table
            .iter()
            .any(|o| matches!(o, Object::Irq { notification, .. } if *notification == n))
    }
}
