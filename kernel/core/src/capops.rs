//! Capability operations: mint, copy, delete, revoke, inspect.
//!
//! Revocation deletes every descendant of a capability, in every task and
//! in every in-flight message (see [`crate::cspace`]), unmaps the regions
//! they had mapped, and wakes any task blocked through one of them with
//! `Revoked`, so the object's rightful users are not left facing `Busy`.
//! A binding or timer made through a deleted capability goes with it.
//! The one exception is a mapped lease: it loses its authority but keeps
//! its mapping until its holder lets go ([`crate::cap::Slot::Lapsed`]).

use crate::cap::{Cap, Slot};
use crate::cspace::NodeId;
use crate::kernel::Kernel;
use crate::machine::{Machine, UserRegs};
use crate::task::{State, Task};
use conflux_abi::SysError;

impl<M: Machine> Kernel<M> {
    /// `cap_mint` / `cap_copy`: a derived capability into free slot `dst`.
    pub fn sys_mint(
        &mut self,
        me: usize,
        src: u64,
        dst: u64,
        mask: u64,
        badge: u64,
    ) -> Result<u64, SysError> {
        let mask = u8::try_from(mask).map_err(|_| SysError::InvalidArgument)?;
        let (src, dst) = (NodeId::slot(me, src)?, NodeId::slot(me, dst)?);
        self.caps.check_free(dst)?;
        let cap = self.caps.derive(src, mask, badge)?;
        self.caps.insert(dst, cap)?;
        Ok(0)
    }

    /// `cap_delete`: empties a slot, unmapping what it mapped. Its
    /// children stay revocable through its parent. A lapsed lease is
    /// deleted too (its mapping undone), though it can do nothing else.
    pub fn sys_delete(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let node = NodeId::slot(me, slot)?;
        if self.let_go_of_lapsed(me, node, Slot::Empty) {
            return Ok(0);
        }
        let cap = self.caps.remove(node)?;
        self.unmap_cap(me, &cap);
        crate::bound::forget_slot(self.task(me), slot as usize);
        Ok(0)
    }

    /// `cap_info`: (kind | rights << 8, badge).
    pub fn sys_info(&mut self, me: usize, slot: u64) -> Result<(u64, u64), SysError> {
        let c = self.caps.get(NodeId::slot(me, slot)?)?;
        Ok((c.obj.kind() as u64 | (c.rights as u64) << 8, c.badge))
    }

    /// `cap_revoke`: deletes everything derived from the capability in
    /// `slot`; returns how many capabilities went.
    pub fn sys_revoke(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let root = NodeId::slot(me, slot)?;
        let tasks = &mut self.tasks;
        let objects = &self.objects;
        let summary = &mut self.summary;
        let mut woken_senders = 0u64; // one bit per task (MAX_TASKS is 64)
        let count = self.caps.revoke(root, |n, cap| {
            if let Some(t) = tasks[n.task()].as_mut() {
                if !cap.outlives_revocation() {
                    unmap_in(t, objects, &cap);
                }
                if let Some(s) = n.slot_number() {
                    crate::bound::forget_slot(t, s);
                }
                if wake_if_blocked_through(t, n, summary) {
                    woken_senders |= 1 << n.task();
                }
            }
        })?;
        for t in (0..self.ntasks).filter(|t| woken_senders & 1 << t != 0) {
            let _ = self.caps.remove(NodeId::in_flight(t));
        }
        Ok(count)
    }
}

/// Undoes the mapping `cap` made in task `t`, if any.
pub(crate) fn unmap_in<M: Machine>(t: &mut Task<M>, objects: &crate::object::Objects, cap: &Cap) {
    if cap.mapped_at == 0 {
        return;
    }
    let Some((_, size, _)) = crate::memops::memory_of(objects, cap) else {
        return;
    };
    if let Some(space) = t.space.as_mut() {
        M::unmap_shared(space, cap.mapped_at, size);
    }
}

/// Wakes `t` with `Revoked` if it is blocked through node `n`; true when
/// it was a sender (whose offered capability must then go too).
fn wake_if_blocked_through<M: Machine>(
    t: &mut Task<M>,
    n: NodeId,
    summary: &mut crate::summary::Summary,
) -> bool {
    let Some(slot) = n.slot_number() else {
        return false; // an in-flight capability: the message goes on without it
    };
    let (through, sender) = match t.state {
        State::Receiving { slot: s, .. } | State::Waiting { slot: s, .. } => {
            (s as usize == slot, false)
        }
        State::Sending { slot: s, .. } => (s as usize == slot, true),
        _ => (false, false),
    };
    if through {
        t.ctx.set_err(SysError::Revoked);
        t.deadline = 0; // a timed call ends here too
        let old = core::mem::replace(&mut t.state, State::Ready);
        summary.change(n.task(), old, State::Ready);
    }
    through && sender
}
