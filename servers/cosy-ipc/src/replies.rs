//! Reply slots of a server that answers some calls late (feature
//! `server`): a call kept for later (a running compound, a parked socket
//! operation) holds the caller's reply capability in a slot of its own,
//! so each receive must name a slot no kept call holds. A server keeps
//! one more slot than it may keep calls, so there is always one free to
//! receive into.

use conflux_userlib::ipc::{reply, Message};

use crate::slots::SlotPool;

/// Which of `count` reply slots from `base` hold the reply capability of
/// a call not answered yet.
#[derive(Debug)]
pub struct ReplySlots {
    pool: SlotPool,
}

impl ReplySlots {
    /// Slots `base..base + count` (at most 64), all free.
    pub fn new(base: usize, count: usize) -> ReplySlots {
        ReplySlots {
            pool: SlotPool::new(base, count),
        }
    }

    /// A slot no call holds, now taken. With one more slot than calls the
    /// server keeps, there is always one; `None` is a server bug, which
    /// the caller reports.
    pub fn take(&mut self) -> Option<usize> {
        self.pool.take()
    }

    /// Frees `slot` (a kept call was answered, or a receive got nothing).
    pub fn free(&mut self, slot: usize) {
        self.pool.give(slot);
    }

    /// Answers the call whose reply capability is in `slot` and frees it.
    /// A caller that died meanwhile is no error of the server's.
    pub fn answer(&mut self, slot: usize, msg: &Message) {
        let _ = reply(slot, msg);
        self.free(slot);
    }
}
