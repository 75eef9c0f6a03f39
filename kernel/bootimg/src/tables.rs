//! Object and capability records: the manifest's kernel objects and every
//! task's initial capabilities, validated field by field.

use crate::{ImageError, IRQ_LINES, MAX_REGION, PAGE_SIZE};
use conflux_abi::cap::{ObjectKind, CAP_SLOTS};
use conflux_abi::devices::{overlaps, RESERVED_MMIO, RESERVED_PORTS};
use conflux_abi::layout::{is_user_range, PAGE_SIZE as UPAGE};

/// What the supervisor is told to do when a task faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    Never = 0,
    OnFault = 1,
}

impl Restart {
    pub(crate) fn from_raw(raw: u8) -> Option<Self> {
        match raw {
            0 => Some(Self::Never),
            1 => Some(Self::OnFault),
            _ => None,
        }
    }
}

/// One kernel object (see the crate docs for the meaning of `owner`, `a`, `b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectRecord {
    pub kind: ObjectKind,
    pub owner: u32,
    pub a: u64,
    pub b: u64,
}

/// One initial capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapRecord {
    pub task: u8,
    pub slot: u8,
    pub object: u16,
    pub rights: u8,
    pub badge: u64,
    /// Where a region or MMIO capability is mapped at start (0: not mapped).
    pub map_vaddr: u64,
}

fn page_multiple(n: u64) -> bool {
    n > 0 && n.is_multiple_of(PAGE_SIZE as u64)
}

impl ObjectRecord {
    /// Checks the fields against the kind; `objects` is the whole table
    /// (for IRQ → notification links), `tasks` the number of tasks.
    pub(crate) fn check(
        &self,
        index: u32,
        objects: &[Option<ObjectKind>],
        tasks: usize,
    ) -> Result<(), ImageError> {
        let bad = ImageError::BadObject { object: index };
        let reserved = match self.kind {
            ObjectKind::Mmio => overlaps(&RESERVED_MMIO, self.a, self.b),
            ObjectKind::IoPorts => overlaps(&RESERVED_PORTS, self.a, self.b),
            _ => false,
        };
        if reserved {
            return Err(ImageError::KernelDevice { object: index });
        }
        let ok = match self.kind {
            ObjectKind::Endpoint => (self.owner as usize) < tasks && self.a == 0 && self.b == 0,
            ObjectKind::Notification => self.owner == 0 && self.a == 0 && self.b == 0,
            ObjectKind::Region => {
                self.owner == 0 && page_multiple(self.a) && self.a <= MAX_REGION && self.b == 0
            }
            ObjectKind::Mmio => {
                self.owner == 0
                    && self.a.is_multiple_of(PAGE_SIZE as u64)
                    && page_multiple(self.b)
                    && self.b <= MAX_REGION
                    && self.a.checked_add(self.b).is_some_and(|end| end <= 1 << 32)
            }
            ObjectKind::Irq => {
                IRQ_LINES.contains(&self.a)
                    && self.b < 64
                    && objects.get(self.owner as usize) == Some(&Some(ObjectKind::Notification))
            }
            ObjectKind::IoPorts => {
                self.owner == 0
                    && self.b > 0
                    && self.a.checked_add(self.b).is_some_and(|e| e <= 0x1_0000)
            }
            ObjectKind::Reply => false, // made only by `recv`, never declared
        };
        if ok {
            Ok(())
        } else {
            Err(bad)
        }
    }
}

impl CapRecord {
    /// Checks the record against the object table.
    pub(crate) fn check(
        &self,
        index: u32,
        objects: &[Option<ObjectKind>],
        tasks: usize,
    ) -> Result<(), ImageError> {
        let bad = ImageError::BadCap { cap: index };
        let kind = objects
            .get(self.object as usize)
            .copied()
            .flatten()
            .ok_or(bad)?;
        let mappable = matches!(kind, ObjectKind::Region | ObjectKind::Mmio);
        let map_ok = self.map_vaddr == 0
            || (mappable
                && self.map_vaddr.is_multiple_of(UPAGE)
                && is_user_range(self.map_vaddr, 1));
        let ok = (self.task as usize) < tasks
            && (self.slot as usize) < CAP_SLOTS
            && self.rights & !kind.meaningful_rights() == 0
            && (self.badge == 0 || matches!(kind, ObjectKind::Endpoint | ObjectKind::Notification))
            && map_ok;
        if ok {
            Ok(())
        } else {
            Err(bad)
        }
    }
}
