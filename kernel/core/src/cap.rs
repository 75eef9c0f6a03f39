//! Capabilities: what one slot holds.
//!
//! A capability names an object, carries rights and a badge, and knows
//! where it comes from ([`Parent`]), which is what revocation follows.

use conflux_abi::cap::ObjectKind;

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

    /// The object index, for capabilities that name a boot-image object.
    pub fn object(&self) -> Option<u16> {
        match self {
            Self::Object(_, o) => Some(*o),
            Self::Reply { .. } => None,
        }
    }
}

/// Where a capability came from.
///
/// Parents are kept exact: deleting a capability hands its children to its
/// own parent (as seL4's derivation tree does), so a chain never breaks
/// and revoking an ancestor reaches every descendant however it was copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parent {
    /// A root made by the kernel itself (reply capabilities).
    None,
    /// Derived from the capability in this node.
    Node(crate::cspace::NodeId),
    /// Derived from the initial capability of boot-image record `n`, which
    /// is not installed right now (its task died). When the task restarts,
    /// the record's new capability becomes the parent again, so the new
    /// instance can revoke what the old one handed out.
    Image(u16),
}

/// One capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cap {
    pub obj: ObjRef,
    pub rights: u8,
    pub badge: u64,
    pub parent: Parent,
    /// The boot-image capability record this is the initial capability of.
    pub origin: Option<u16>,
    /// For endpoints: the serving task's generation when this capability
    /// was made or last used, to detect a restarted server.
    pub gen: u32,
    /// Where this capability's region is mapped in its holder (0: not mapped).
    pub mapped_at: u64,
}

impl Cap {
    /// A capability with no history, not mapped.
    pub fn new(obj: ObjRef, rights: u8, badge: u64) -> Self {
        Self {
            obj,
            rights,
            badge,
            parent: Parent::None,
            origin: None,
            gen: 0,
            mapped_at: 0,
        }
    }
}

/// The state of one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Empty,
    /// Held a capability that was revoked; using it reports `Revoked`.
    Revoked,
    Full(Cap),
}
