//! Which capability was derived from which, as this task saw it happen,
//! so that after `cap_revoke(s)` every slot holding a descendant of `s`
//! can be checked to be gone, including descendants whose intermediate
//! parent was deleted in between.
//!
//! Every capability the task sees appear gets a token; a derived one
//! records its parent's token. Slots map to the token they hold.

use alloc::vec::Vec;
use conflux_abi::cap::CAP_SLOTS;
use conflux_abi::SysError;
use conflux_userlib::ipc::Slot;

pub struct Lineage {
    slot: [Option<usize>; CAP_SLOTS],
    parent: Vec<Option<usize>>,
}

impl Lineage {
    pub fn new() -> Self {
        Self {
            slot: [None; CAP_SLOTS],
            parent: Vec::new(),
        }
    }

    fn token(&mut self, parent: Option<usize>) -> usize {
        self.parent.push(parent);
        self.parent.len() - 1
    }

    /// A capability of unknown origin (initial, received, reply) in `slot`.
    pub fn root(&mut self, slot: usize) {
        self.slot[slot] = Some(self.token(None));
    }

    /// A successful mint or copy from `src` into `dst`.
    pub fn derive(&mut self, src: u64, dst: u64) {
        let (Some(&parent), Some(_)) = (self.slot.get(src as usize), self.slot.get(dst as usize))
        else {
            return;
        };
        self.slot[dst as usize] = Some(self.token(parent));
    }

    /// `slot` was emptied (delete, reply, revocation).
    pub fn clear(&mut self, slot: u64) {
        if let Some(s) = self.slot.get_mut(slot as usize) {
            *s = None;
        }
    }

    /// Slots whose capability descends (strictly) from `ancestor`'s token.
    fn descendants(&self, ancestor: usize) -> impl Iterator<Item = usize> + '_ {
        (0..CAP_SLOTS).filter(move |&s| {
            let mut t = self.slot[s].and_then(|t| self.parent[t]);
            while let Some(p) = t {
                if p == ancestor {
                    return true;
                }
                t = self.parent[p];
            }
            false
        })
    }

    /// After a successful `cap_revoke(slot)`: every descendant must report
    /// `Revoked` or `EmptySlot`. Returns the first that does not (its slot,
    /// what `cap_info` said, and whether a capability between them had been
    /// deleted), and forgets all of them.
    pub fn check_revoked(&mut self, slot: u64) -> Option<Escape> {
        let ancestor = (*self.slot.get(slot as usize)?)?;
        let all: Vec<usize> = self.descendants(ancestor).collect();
        let mut first = None;
        for d in all {
            let info = Slot(d).info();
            if !matches!(info, Err(SysError::Revoked | SysError::EmptySlot)) && first.is_none() {
                let gap = self.gap(d, ancestor);
                first = Some(Escape { slot: d, info, gap });
            }
            self.clear(d as u64);
        }
        first
    }

    /// Whether a capability between `slot`'s and `ancestor` is held nowhere.
    fn gap(&self, slot: usize, ancestor: usize) -> bool {
        let mut t = self.slot[slot].and_then(|t| self.parent[t]);
        while let Some(p) = t.filter(|&p| p != ancestor) {
            if !self.slot.contains(&Some(p)) {
                return true;
            }
            t = self.parent[p];
        }
        false
    }
}

/// A descendant that survived its ancestor's revocation.
#[derive(Debug)]
pub struct Escape {
    pub slot: usize,
    pub info: Result<(u8, u8, u64), SysError>,
    /// A capability between the two had been deleted (or revoked) first.
    pub gap: bool,
}
