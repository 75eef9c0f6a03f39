//! One turn of a stage task's message loop, the same in every stage task:
//! a message from `flowmgr` is answered through [`Stages::handle`], a
//! doorbell (the kernel's report that the bound notification rang) is
//! handed back to the task's own loop.

use crate::os::System;
use crate::table::{Config, Stages, Work};
use conflux_abi::SysError;
use conflux_flow_protocol::stage::START_WORDS;
use conflux_userlib::ipc::{self, Endpoint, Message, Notification, Received};

/// A task's flow role, from its configuration: the FLOW endpoint's slot
/// and the first slot the manifest leaves free (which that endpoint moves).
#[derive(Clone, Copy, Debug)]
pub struct Role {
    pub flow: usize,
    pub first_free: usize,
}

/// The task's flow role if its configuration makes it a flow stage (the
/// manifest's `[flows]` gives it a FLOW endpoint: `caps::FLOW` in its
/// configuration section), else `None`. A driver decides at start whether
/// it serves flows; it builds its [`StageEndpoint`] only then, so a
/// driver that is no stage never has one on its stack.
pub fn flow_role() -> Option<Role> {
    let task = conflux_userlib::task::config();
    Some(Role {
        flow: task.get("caps::FLOW")? as usize,
        first_free: task.get("caps::FIRST_FREE")? as usize,
    })
}

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

/// Where a stage task maps its flows: far above the manifest's premapped
/// regions, which are placed from the bottom of the region window.
pub const WINDOW_BASE: u64 = 0x0000_6000_0000_0000;

/// A stage task's FLOW endpoint with its doorbell notification bound to
/// it, and the task's flows: one receive covers `flowmgr`'s messages, the
/// neighbours' doorbells and (for a driver, whose doorbell is its device's
/// notification) the device's interrupt and its clients' doorbells.
pub struct StageEndpoint<W: Work> {
    pub stages: Stages<W>,
    pub work: W,
    endpoint: Endpoint,
    /// Slots for the caller's reply capability and a capability that
    /// arrives with a message.
    reply: usize,
    received: usize,
}

impl<W: Work> StageEndpoint<W> {
    /// Serves the endpoint in slot `flow` with the notification in slot
    /// `bell` bound to it. Capability slots from `first_free` on are this
    /// task's: the reply, the receive slot, then the flows' (see [`Config`]).
    pub fn new(flow: usize, bell: usize, first_free: usize, work: W) -> Result<Self, SysError> {
        let endpoint = Endpoint(flow);
        Notification(bell).bind(&endpoint)?;
        let cap_base = first_free + 2;
        let slots = conflux_abi::cap::CAP_SLOTS.saturating_sub(cap_base);
        Ok(Self {
            stages: Stages::new(Config::fitting(cap_base, WINDOW_BASE, slots)),
            work,
            endpoint,
            reply: first_free,
            received: first_free + 1,
        })
    }

    /// Whether a flow found its output edge full since the last call
    /// ([`Stages::backed_up`]).
    pub fn backed_up(&mut self) -> bool {
        self.stages.backed_up()
    }

    /// Gives the CPU to another ready task of the same priority: a busy
    /// stage whose output edge is full lets the stages downstream on its
    /// CPU empty it (see `driver`).
    pub fn give_way(&self) {
        conflux_userlib::sys::yield_now();
    }

    /// Takes one message or doorbell, waiting for it if `block` and every
    /// flow is idle. `None` when nothing arrived, or when the receive
    /// failed (said on the console: the task's flows stall until the next
    /// receive, and whatever else it serves goes on).
    pub fn receive(&mut self, block: bool) -> Option<Arrived> {
        let got = if block && self.stages.idle() {
            self.endpoint.recv(self.reply, self.received).map(Some)
        } else {
            self.endpoint.nb_recv(self.reply, self.received)
        };
        match got {
            Ok(got) => Some(System.serve(&mut self.stages, &mut self.work, &got?, self.reply)),
            Err(e) => {
                conflux_userlib::println!(
                    "receive on the FLOW endpoint failed: {e}; this task's flows stall until the next receive"
                );
                None
            }
        }
    }
}
