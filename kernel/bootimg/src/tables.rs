//! Capability records (every task's initial capabilities, validated field
//! by field) and restart policies.

use crate::ImageError;
use conflux_abi::cap::{ObjectKind, CAP_SLOTS};
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
