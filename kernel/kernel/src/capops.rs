//! Capability operations: mint, copy, delete, revoke, inspect.
//!
//! Revocation follows derivation: every capability remembers its parent
//! (slot and id), and `revoke` deletes, in every task, every capability
//! whose ancestry reaches the revoked one — unmapping regions they had
//! mapped, so a later access through such a mapping faults. The slots are
//! left marked revoked, so using them reports `Revoked`.

use crate::cap::{Cap, Slot};
use crate::sched::Kernel;
use conflux_abi::cap::CAP_SLOTS;
use conflux_abi::SysError;

impl Kernel {
    /// `cap_mint` / `cap_copy`: a derived capability into free slot `dst`.
    pub fn sys_mint(
        &mut self,
        me: usize,
        src: u64,
        dst: u64,
        mask: u8,
        badge: u64,
    ) -> Result<u64, SysError> {
        self.task(me).caps.check_free(dst)?;
        let cap = self.derive(me, src, mask, badge)?;
        self.task(me).caps.insert(dst, cap)?;
        Ok(0)
    }

    /// `cap_delete`: empties a slot, unmapping what it mapped.
    pub fn sys_delete(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let cap = self.task(me).caps.take(slot)?;
        self.unmap_cap(me, &cap);
        Ok(0)
    }

    /// `cap_info`: (kind | rights << 8, badge).
    pub fn sys_info(&mut self, me: usize, slot: u64) -> Result<(u64, u64), SysError> {
        let c = self.task(me).caps.get(slot)?;
        Ok((c.obj.kind() as u64 | (c.rights as u64) << 8, c.badge))
    }

    fn cap_at(&self, task: usize, slot: usize) -> Option<&Cap> {
        match self.tasks[task].as_ref()?.caps.slots.get(slot)? {
            Slot::Full(c) => Some(c),
            _ => None,
        }
    }

    /// True when `c`'s parent is the revoked capability or already doomed.
    fn parent_doomed(&self, c: &Cap, root: u32) -> bool {
        let Some(p) = c.parent else { return false };
        if p.id == root {
            return true;
        }
        self.cap_at(p.task as usize, p.slot as usize)
            .is_some_and(|pc| pc.id == p.id && pc.doomed)
    }

    /// `cap_revoke`: deletes everything derived from the capability in `slot`.
    /// Returns how many capabilities were revoked.
    pub fn sys_revoke(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let root = self.task(me).caps.get(slot)?.id;
        loop {
            let mut changed = false;
            for t in 0..self.ntasks {
                for s in 0..CAP_SLOTS {
                    let Some(c) = self.cap_at(t, s).copied() else {
                        continue;
                    };
                    if !c.doomed && self.parent_doomed(&c, root) {
                        if let Slot::Full(c) = &mut self.task(t).caps.slots[s] {
                            c.doomed = true;
                        }
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut count = 0;
        for t in 0..self.ntasks {
            for s in 0..CAP_SLOTS {
                let Some(c) = self.cap_at(t, s).copied() else {
                    continue;
                };
                if c.doomed {
                    self.unmap_cap(t, &c);
                    self.task(t).caps.slots[s] = Slot::Revoked;
                    count += 1;
                }
            }
        }
        Ok(count)
    }
}
