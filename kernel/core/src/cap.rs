//! Capabilities: what one slot holds.
//!
//! A capability names an object, carries rights and a badge, and knows
//! where it comes from ([`Parent`]), which is what revocation follows.
//! A region capability that arrived *lent* is a lease: revoking it takes
//! the holder's authority at once but leaves its mapping until the holder
//! unmaps it ([`Slot::Lapsed`]), so a client cannot pull memory from under
//! a server it lent it to.

use conflux_abi::cap::ObjectKind;

/// The object a capability names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjRef {
    /// An object from the boot image's table, by index.
    Object(ObjectKind, u16),
    /// The right to answer one call of task `task` in its generation
    /// `gen`, made at its reply epoch `epoch` (the task's count of calls
    /// it abandoned, `Task::epoch`): once the caller gives up on that call
    /// (`call_timed`'s deadline), the epoch moves on and this capability
    /// answers nothing, so a late reply cannot reach a later call.
    Reply { task: u8, gen: u32, epoch: u32 },
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
    /// A lease: a region capability that came lent (`Info::lend`), or a
    /// copy its holder made of one.
    pub lease: bool,
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
            lease: false,
        }
    }

    /// True when revoking this capability must leave its mapping in place:
    /// a mapped lease. The holder keeps the memory until it unmaps it.
    pub fn outlives_revocation(&self) -> bool {
        self.lease && self.mapped_at != 0
    }
}

/// The state of one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Empty,
    /// Held a capability that was revoked; using it reports `Revoked`.
    Revoked,
    /// Held a mapped lease that was revoked: using it reports `Revoked`,
    /// but the mapping stays until the holder unmaps or deletes it (or
    /// ends). It has left the derivation tree: nothing descends from it.
    Lapsed(Cap),
    Full(Cap),
}
