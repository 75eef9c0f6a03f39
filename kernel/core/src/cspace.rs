//! The capability space: every task's slots, and the derivation tree over them.
//!
//! All slots of all tasks live in one table, addressed by [`NodeId`]; each
//! task also has one *in-flight* node holding the capability its blocked
//! `send`/`call` offers, so a capability on its way to a receiver is as
//! revocable as one sitting in a slot. Every capability records its parent
//! node. The tree is kept exact:
//!
//! - deleting a capability hands its children to its own parent, so a chain
//!   never breaks (copy A→B→C, delete B: C's parent is now A);
//! - moving a capability (message delivery) re-points its children;
//! - a task's initial capabilities are roots tied to their boot-image
//!   record: when the task dies, their children wait on the record
//!   ([`Parent::Image`]) and are adopted by the restarted task's new
//!   capability, so a restart never makes a handed-out copy unrevocable.
//!
//! Revocation therefore reaches every descendant, wherever it is.

use crate::cap::{Cap, Parent, Slot};
use conflux_abi::cap::{rights, ObjectKind, CAP_SLOTS};
use conflux_abi::SysError;
use conflux_bootimg::MAX_TASKS;

/// Nodes per task: its slots and its in-flight node.
pub const STRIDE: usize = CAP_SLOTS + 1;
/// Index of the in-flight node within a task's nodes.
const IN_FLIGHT: usize = CAP_SLOTS;
/// Every node of the system.
pub const MAX_NODES: usize = MAX_TASKS * STRIDE;
const WORDS: usize = MAX_NODES.div_ceil(64);

/// One node: a task's slot, or its in-flight capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeId(u16);

impl NodeId {
    /// Slot `slot` of `task`, if the slot number is valid.
    pub fn slot(task: usize, slot: u64) -> Result<Self, SysError> {
        if slot < CAP_SLOTS as u64 && task < MAX_TASKS {
            Ok(Self((task * STRIDE) as u16 + slot as u16))
        } else {
            Err(SysError::InvalidSlot)
        }
    }

    /// The in-flight node of `task`.
    pub fn in_flight(task: usize) -> Self {
        Self((task * STRIDE + IN_FLIGHT) as u16)
    }

    pub fn task(self) -> usize {
        self.0 as usize / STRIDE
    }

    /// The slot number, or `None` for the in-flight node.
    pub fn slot_number(self) -> Option<usize> {
        let s = self.0 as usize % STRIDE;
        (s != IN_FLIGHT).then_some(s)
    }

    fn index(self) -> usize {
        self.0 as usize
    }
}

/// False when `cap` in `n` cannot be anyone's parent, so removing or moving
/// it needs no scan for children: reply capabilities are never derived
/// from, and neither is an in-flight capability (derivation takes a slot).
/// This keeps the scan off the IPC path, which removes a reply capability
/// on every reply.
fn may_have_children(n: NodeId, cap: &Cap) -> bool {
    n.slot_number().is_some() && cap.obj.kind() != ObjectKind::Reply
}

/// Every capability of the system.
pub struct CapSpace {
    nodes: [Slot; MAX_NODES],
    /// Nodes in use: those of the image's tasks. Scans stop here.
    used: usize,
}

impl Default for CapSpace {
    fn default() -> Self {
        Self::new()
    }
}

impl CapSpace {
    pub const fn new() -> Self {
        Self {
            nodes: [Slot::Empty; MAX_NODES],
            used: 0,
        }
    }

    /// Limits scans to the nodes of the first `tasks` tasks.
    pub fn set_tasks(&mut self, tasks: usize) {
        self.used = tasks.min(MAX_TASKS) * STRIDE;
    }

    pub fn slot(&self, n: NodeId) -> &Slot {
        &self.nodes[n.index()]
    }

    /// The capability in node `n`.
    pub fn get(&self, n: NodeId) -> Result<&Cap, SysError> {
        match &self.nodes[n.index()] {
            Slot::Full(c) => Ok(c),
            Slot::Empty => Err(SysError::EmptySlot),
            Slot::Revoked | Slot::Lapsed(_) => Err(SysError::Revoked),
        }
    }

    pub fn get_mut(&mut self, n: NodeId) -> Result<&mut Cap, SysError> {
        match &mut self.nodes[n.index()] {
            Slot::Full(c) => Ok(c),
            Slot::Empty => Err(SysError::EmptySlot),
            Slot::Revoked | Slot::Lapsed(_) => Err(SysError::Revoked),
        }
    }

    /// The capability in `n`, checked to be of `kind` with all of `need`.
    pub fn lookup(&self, n: NodeId, kind: ObjectKind, need: u8) -> Result<Cap, SysError> {
        let c = self.get(n)?;
        if c.obj.kind() != kind {
            return Err(SysError::WrongKind);
        }
        if c.rights & need != need {
            return Err(SysError::MissingRight);
        }
        Ok(*c)
    }

    /// Checks that `n` can take a new capability (empty or revoked; a
    /// lapsed lease still holds its mapping, so it is occupied).
    pub fn check_free(&self, n: NodeId) -> Result<(), SysError> {
        match self.nodes[n.index()] {
            Slot::Full(_) | Slot::Lapsed(_) => Err(SysError::SlotOccupied),
            Slot::Empty | Slot::Revoked => Ok(()),
        }
    }

    /// Takes the lapsed lease out of `n`, leaving `then` (`Revoked` after
    /// an unmap, `Empty` after a delete), for its holder to undo the
    /// mapping it still has.
    pub fn take_lapsed(&mut self, n: NodeId, then: Slot) -> Option<Cap> {
        match self.nodes[n.index()] {
            Slot::Lapsed(c) => {
                self.nodes[n.index()] = then;
                Some(c)
            }
            _ => None,
        }
    }

    /// A child of the capability in `src` with rights `src & mask` and
    /// `badge` (0 keeps the source's). Rights never grow; a badge, once
    /// set, cannot be changed; reply capabilities are never shared.
    pub fn derive(&self, src: NodeId, mask: u8, badge: u64) -> Result<Cap, SysError> {
        let s = *self.get(src)?;
        if s.obj.kind() == ObjectKind::Reply {
            return Err(SysError::WrongKind);
        }
        if mask & !rights::ALL != 0 {
            return Err(SysError::InvalidArgument);
        }
        let badged = matches!(
            s.obj.kind(),
            ObjectKind::Endpoint | ObjectKind::Notification
        );
        if badge != 0 && (!badged || (s.badge != 0 && s.badge != badge)) {
            return Err(SysError::InvalidArgument);
        }
        // Reserved endpoint badges come only from the manifest, so a
        // server can trust a caller that has one (the supervisor's).
        let reserved = conflux_abi::ipc::RESERVED_BADGES;
        if s.obj.kind() == ObjectKind::Endpoint && badge & reserved != 0 {
            return Err(SysError::InvalidArgument);
        }
        Ok(Cap {
            rights: s.rights & mask,
            badge: if badge != 0 { badge } else { s.badge },
            parent: Parent::Node(src),
            origin: None,
            mapped_at: 0,
            ..s
        })
    }

    /// Puts `cap` in the free node `n`. An initial capability adopts the
    /// children its record's previous capability left behind.
    pub fn insert(&mut self, n: NodeId, cap: Cap) -> Result<(), SysError> {
        self.check_free(n)?;
        self.nodes[n.index()] = Slot::Full(cap);
        if let Some(r) = cap.origin {
            self.repoint(Parent::Image(r), Parent::Node(n));
        }
        Ok(())
    }

    /// Empties `n`, handing its children to its parent; returns what it held.
    pub fn remove(&mut self, n: NodeId) -> Result<Cap, SysError> {
        let cap = *self.get(n)?;
        self.nodes[n.index()] = Slot::Empty;
        if may_have_children(n, &cap) {
            let heir = match cap.origin {
                Some(r) => Parent::Image(r),
                None => cap.parent,
            };
            self.repoint(Parent::Node(n), heir);
        }
        Ok(cap)
    }

    /// Writes a reply capability into `n`, or empties it, where `n` is
    /// known to be empty, revoked or holding a reply capability — none of
    /// which can have children — so no parent links need fixing. For the
    /// IPC fastpath only.
    #[inline]
    pub(crate) fn set_reply_slot(&mut self, n: NodeId, slot: Slot) {
        self.nodes[n.index()] = slot;
    }

    /// Moves the capability in `from` to the free node `to`.
    pub fn move_to(&mut self, from: NodeId, to: NodeId) -> Result<(), SysError> {
        self.check_free(to)?;
        let cap = *self.get(from)?;
        self.nodes[from.index()] = Slot::Empty;
        self.nodes[to.index()] = Slot::Full(cap);
        if may_have_children(from, &cap) {
            self.repoint(Parent::Node(from), Parent::Node(to));
        }
        Ok(())
    }

    fn repoint(&mut self, old: Parent, new: Parent) {
        for slot in &mut self.nodes[..self.used] {
            if let Slot::Full(c) = slot {
                if c.parent == old {
                    c.parent = new;
                }
            }
        }
    }

    /// Every descendant of `root` (not `root` itself), as a bit set.
    fn descendants(&self, root: NodeId) -> [u64; WORDS] {
        let mut doomed = [0u64; WORDS];
        let is = |d: &[u64; WORDS], i: usize| d[i / 64] & (1 << (i % 64)) != 0;
        // Each pass adds the children of what is already doomed, so the
        // passes needed are the depth of the subtree; it is finite because
        // parents always name an existing node and the tree has no cycle.
        loop {
            let mut grew = false;
            for (i, slot) in self.nodes[..self.used].iter().enumerate() {
                let Slot::Full(c) = slot else { continue };
                let Parent::Node(p) = c.parent else { continue };
                if !is(&doomed, i) && (p == root || is(&doomed, p.index())) {
                    doomed[i / 64] |= 1 << (i % 64);
                    grew = true;
                }
            }
            if !grew {
                return doomed;
            }
        }
    }

    /// True when `n` descends from `root`.
    pub fn descends_from(&self, n: NodeId, root: NodeId) -> bool {
        self.descendants(root)[n.index() / 64] & (1 << (n.index() % 64)) != 0
    }

    /// Deletes every descendant of the capability in `root`: slots are left
    /// `Revoked` (in-flight nodes simply empty), or `Lapsed` for a mapped
    /// lease, whose mapping outlives the revocation. `removed` sees each
    /// capability taken, to undo its mappings and wake its waiters.
    pub fn revoke(
        &mut self,
        root: NodeId,
        mut removed: impl FnMut(NodeId, Cap),
    ) -> Result<u64, SysError> {
        self.get(root)?;
        let doomed = self.descendants(root);
        let mut count = 0;
        for i in 0..self.used {
            if doomed[i / 64] & (1 << (i % 64)) == 0 {
                continue;
            }
            let n = NodeId(i as u16);
            if let Slot::Full(c) = self.nodes[i] {
                self.nodes[i] = match n.slot_number() {
                    Some(_) if c.outlives_revocation() => Slot::Lapsed(c),
                    Some(_) => Slot::Revoked,
                    None => Slot::Empty,
                };
                removed(n, c);
                count += 1;
            }
        }
        Ok(count)
    }

    /// Every full node of `task`, slots first, then the in-flight node.
    pub fn nodes_of(&self, task: usize) -> impl Iterator<Item = (NodeId, Cap)> + '_ {
        let base = task * STRIDE;
        (base..base + STRIDE).filter_map(move |i| match self.nodes[i] {
            Slot::Full(c) => Some((NodeId(i as u16), c)),
            _ => None,
        })
    }

    /// Forgets every `Revoked` marker of `task` (its slots start empty on restart).
    pub fn clear_task(&mut self, task: usize) {
        let base = task * STRIDE;
        for slot in &mut self.nodes[base..base + STRIDE] {
            *slot = Slot::Empty;
        }
    }
}
