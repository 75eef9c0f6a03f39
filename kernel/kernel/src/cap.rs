//! Capability tables: what each task may name.
//!
//! A task's table has [`CAP_SLOTS`] slots; a slot is empty, holds a
//! capability, or remembers that its capability was revoked (so a task
//! using it gets `Revoked`, not a puzzling `EmptySlot`). A capability names
//! an object, carries rights and a badge, and remembers the capability it
//! was derived from, which is what `revoke` follows.

use conflux_abi::cap::{ObjectKind, CAP_SLOTS};
use conflux_abi::SysError;

/// The object a capability names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjRef {
    /// An object from the boot image's table, by index.
    Object(ObjectKind, u16),
    /// The right to answer one call of task `task` in its generation `gen`.
    Reply { task: u8, gen: u32 },
}

impl ObjRef {
    pub fn kind(&self) -> ObjectKind {
        match self {
            Self::Object(k, _) => *k,
            Self::Reply { .. } => ObjectKind::Reply,
        }
    }
}

/// Where a capability came from: the slot of its parent and the parent's id
/// (a slot can be refilled; the id tells whether it still holds the parent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parent {
    pub task: u8,
    pub slot: u8,
    pub id: u32,
}

/// One capability.
#[derive(Clone, Copy, Debug)]
pub struct Cap {
    pub obj: ObjRef,
    pub rights: u8,
    pub badge: u64,
    /// Unique among all capabilities ever made.
    pub id: u32,
    pub parent: Option<Parent>,
    /// For endpoints: the serving task's generation when this capability
    /// was made or last used, to detect a restarted server.
    pub gen: u32,
    /// Where this capability's region is mapped in its holder (0: not mapped).
    pub mapped_at: u64,
    /// Set while `revoke` collects the capabilities to delete.
    pub doomed: bool,
}

/// The state of one slot.
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    Empty,
    Revoked,
    Full(Cap),
}

/// A task's capability table.
pub struct CapTable {
    pub slots: [Slot; CAP_SLOTS],
}

fn index(slot: u64) -> Result<usize, SysError> {
    if slot < CAP_SLOTS as u64 {
        Ok(slot as usize)
    } else {
        Err(SysError::InvalidSlot)
    }
}

impl CapTable {
    pub const fn new() -> Self {
        Self {
            slots: [Slot::Empty; CAP_SLOTS],
        }
    }

    /// The capability in `slot`.
    pub fn get(&self, slot: u64) -> Result<&Cap, SysError> {
        match &self.slots[index(slot)?] {
            Slot::Full(c) => Ok(c),
            Slot::Empty => Err(SysError::EmptySlot),
            Slot::Revoked => Err(SysError::Revoked),
        }
    }

    pub fn get_mut(&mut self, slot: u64) -> Result<&mut Cap, SysError> {
        match &mut self.slots[index(slot)?] {
            Slot::Full(c) => Ok(c),
            Slot::Empty => Err(SysError::EmptySlot),
            Slot::Revoked => Err(SysError::Revoked),
        }
    }

    /// The capability in `slot`, checked to be of `kind` with all of `rights`.
    pub fn lookup(&self, slot: u64, kind: ObjectKind, rights: u8) -> Result<Cap, SysError> {
        let c = self.get(slot)?;
        if c.obj.kind() != kind {
            return Err(SysError::WrongKind);
        }
        if c.rights & rights != rights {
            return Err(SysError::MissingRight);
        }
        Ok(*c)
    }

    /// Checks that `slot` can take a new capability (empty or revoked).
    pub fn check_free(&self, slot: u64) -> Result<usize, SysError> {
        let i = index(slot)?;
        match self.slots[i] {
            Slot::Full(_) => Err(SysError::SlotOccupied),
            _ => Ok(i),
        }
    }

    /// Puts `cap` in the free slot `slot`.
    pub fn insert(&mut self, slot: u64, cap: Cap) -> Result<(), SysError> {
        let i = self.check_free(slot)?;
        self.slots[i] = Slot::Full(cap);
        Ok(())
    }

    /// Empties `slot`, returning what it held.
    pub fn take(&mut self, slot: u64) -> Result<Cap, SysError> {
        let c = *self.get(slot)?;
        self.slots[slot as usize] = Slot::Empty;
        Ok(c)
    }
}
