//! One turn of a stage task's message loop, the same in every stage task:
//! a message from `flowmgr` is answered through [`Stages::handle`], a
//! doorbell (the kernel's report that the bound notification rang) is
//! handed back to the task's own loop.

use crate::os::System;
use crate::table::{Stages, Work};
use conflux_flow_protocol::stage::START_WORDS;
use conflux_userlib::ipc::{self, Message, Received};

/// What arrived on the task's FLOW endpoint.
pub enum Arrived {
    /// `flowmgr`'s message, answered.
    Answered,
    /// The bound notification rang with these bits (doorbells, a device's
    /// interrupt): the task decides what they mean.
    Rang(u64),
}

impl System {
    /// Answers `got` (received with its reply capability in `reply` and a
    /// capability, if one came, in its `msg.cap`), or reports the bits of
    /// a doorbell.
    pub fn serve<W: Work>(
        &mut self,
        stages: &mut Stages<W>,
        work: &mut W,
        got: &Received,
        reply: usize,
    ) -> Arrived {
        if let Some(bits) = got.notified() {
            return Arrived::Rang(bits);
        }
        let (words, len) = Self::words::<START_WORDS>(&got.msg);
        let a = stages.handle(work, self, got.msg.label, &words[..len], got.msg.cap);
        let regs = a.len.min(conflux_abi::ipc::REG_WORDS);
        for i in regs..a.len {
            ipc::set_long_word(i, a.words[i]);
        }
        let answer = Message::new(a.status as u32, &a.words[..regs]).with_len(a.len);
        // A caller that went away has no one to answer: nothing to do.
        let _ = ipc::reply(reply, &answer);
        Arrived::Answered
    }
}
