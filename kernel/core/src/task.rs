//! Tasks: identity, scheduling state, saved context and memory.

use crate::machine::Machine;
use conflux_abi::ipc::FaultMessage;

/// Where a task is in its life. Blocked states name the slot they block
/// through, so revoking that capability can wake them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Ready,
    /// Blocked until a receiver takes its message from endpoint `obj`
    /// (reached through `slot`); a call then waits for the reply. `seq`
    /// orders senders (FIFO). An offered capability waits in the task's
    /// in-flight node.
    Sending {
        obj: u16,
        slot: u8,
        call: bool,
        badge: u64,
        seq: u64,
    },
    /// Blocked until a message arrives on endpoint `obj` (through `slot`).
    Receiving {
        obj: u16,
        slot: u8,
        reply_slot: u8,
        cap_slot: u8,
    },
    /// Called `server` and waits for its reply.
    AwaitingReply {
        server: u8,
    },
    /// Blocked on notification `obj` (through `slot`).
    Waiting {
        obj: u16,
        slot: u8,
    },
    /// Faulted; its fault message waits on the supervisor's endpoint `obj`.
    FaultSending {
        obj: u16,
        seq: u64,
    },
    /// Faulted; the supervisor has the message and will decide.
    FaultAwaiting,
    /// Ended with `exit` (the code was reported then).
    Exited,
    /// Faulted and not restarted.
    Stopped,
}

impl State {
    #[inline]
    pub fn is_ready(&self) -> bool {
        matches!(self, Self::Ready)
    }

    /// The endpoint this state waits on, for the per-endpoint count.
    #[inline]
    pub fn endpoint(&self) -> Option<u16> {
        match *self {
            Self::Sending { obj, .. }
            | Self::Receiving { obj, .. }
            | Self::FaultSending { obj, .. } => Some(obj),
            _ => None,
        }
    }

    /// Blocked in a call or send: the states a deadline may run in.
    #[inline]
    pub fn in_call(&self) -> bool {
        matches!(self, Self::Sending { .. } | Self::AwaitingReply { .. })
    }

    /// Ended for good (as far as anyone can call it now).
    pub fn is_dead(&self) -> bool {
        matches!(
            self,
            Self::Exited | Self::Stopped | Self::FaultSending { .. } | Self::FaultAwaiting
        )
    }
}

/// A task as the machine built it: context, address space, IPC buffer.
pub struct LoadedTask<M: Machine> {
    pub ctx: M::Context,
    pub space: M::Space,
    /// Physical address of the task's IPC buffer page.
    pub ipc_buf: u64,
}

/// One task.
pub struct Task<M: Machine> {
    pub name: &'static str,
    /// 0 is the most urgent.
    pub priority: u8,
    /// The manifest's priority: `set_priority` may go no more urgent.
    pub base_priority: u8,
    /// Incremented on every restart; capabilities to the task's endpoints
    /// made for an older generation get `DeadPeer`.
    pub generation: u32,
    pub state: State,
    /// The saved registers. The trap entry writes them in place, so this
    /// field must not move while the task lives (tasks sit in a fixed table).
    pub ctx: M::Context,
    /// `None` once the task has ended (the space is destroyed at once).
    pub space: Option<M::Space>,
    pub ipc_buf: u64,
    /// The report of how the task ended (fault, panic or exit), kept
    /// until the task is restarted.
    pub fault: Option<FaultMessage>,
    /// Whether the task's next console byte starts a line.
    pub at_line_start: bool,
    /// The notification bound to this task's receives (`ntfn_bind`).
    pub bound: Option<crate::bound::Binding>,
    /// The task's armed one-shot timer (`timer_set`).
    pub timer: Option<crate::timer::Timer>,
    /// The tick at which the timed call it is blocked in gives up
    /// (`call_timed`); 0 when it is in no timed call. Only a task
    /// `Sending` or `AwaitingReply` has one: every path that makes a task
    /// ready clears it (`crate::deadline`).
    pub deadline: u64,
    /// The reply epoch: how many calls this instance abandoned at their
    /// deadline while a server held them. A reply capability made for an
    /// older epoch answers nothing (one for an older instance fails on
    /// its generation already).
    pub epoch: u32,
}

impl<M: Machine> Task<M> {
    pub fn new(name: &'static str, priority: u8, generation: u32, t: LoadedTask<M>) -> Self {
        Self {
            name,
            priority,
            base_priority: priority,
            generation,
            state: State::Ready,
            ctx: t.ctx,
            space: Some(t.space),
            ipc_buf: t.ipc_buf,
            fault: None,
            at_line_start: true,
            bound: None,
            timer: None,
            deadline: 0,
            epoch: 0,
        }
    }

    /// Whether the task ended with `exit` (not a fault or a panic).
    pub fn exited(&self) -> bool {
        self.fault.is_some_and(|f| f.exit_code().is_some())
    }
}
