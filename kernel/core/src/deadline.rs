//! Calls with a deadline (`call_timed`): no call need wait forever on a
//! peer that never answers.
//!
//! A timed call is an ordinary call (the slow path's `send_from`) that
//! also records, in the caller's `Task::deadline`, the tick at which it
//! gives up. [`Kernel::tick`] ends every call whose tick came: a caller
//! still `Sending` (no receiver took the message) is woken with
//! `TimedOut` and its offered capability dropped (it only ever offered a
//! copy, derived into its in-flight node; its own stays in its slot); a
//! caller `AwaitingReply` is woken the same way, and its reply epoch
//! (`Task::epoch`) moves on, so the reply capability the server holds
//! answers nothing: a late `reply` fails with `TimedOut` and can never
//! reach the caller's next call, which is made at the new epoch.
//!
//! Why a deadline of the call's own, not the task's one-shot timer (as
//! seL4's MCS kernel gives a call a timeout of its own, apart from the
//! notification timers of user-level time servers): a server that arms its
//! timer for its own work (`flowmgr`'s watch) and calls a peer meanwhile
//! must lose neither, and a timer that woke a call would have to be told
//! apart from one meant for the receive loop. So the two are independent:
//! a timed call neither reads nor changes the timer, and the timer's
//! expiry during a timed call only signals its notification, as always.
//!
//! Why the epoch rather than deleting the server's reply capability:
//! nothing tells the kernel which slot of the server holds it without a
//! scan, and a server whose reply fails with a specific error knows what
//! happened. The IPC fastpath keeps its cost: an untimed call never takes
//! this module's path, `fast_call` copies the epoch into the reply
//! capability beside the generation, and `fast_reply_recv` compares it and
//! clears the deadline (one store) of the caller it answers. Timed calls
//! themselves go through the slow path: they are for control traffic,
//! where a peer may hang, not for the request path.

use crate::kernel::{Kernel, Next};
use crate::machine::{Machine, UserRegs};
use crate::task::State;
use conflux_abi::syscall::unpack_timed;
use conflux_abi::SysError;

impl<M: Machine> Kernel<M> {
    /// `call_timed(ep | ticks << 8, info, w0..w3)`.
    pub fn sys_call_timed(&mut self, me: usize) -> Result<Next, SysError> {
        let (slot, ticks) = unpack_timed(self.task(me).ctx.arg(0))?;
        self.send_from(me, slot as u64, true, ticks)
    }

    /// Ends the timed calls whose deadline tick `now` reached.
    pub(crate) fn expire_calls(&mut self, now: u64) {
        for t in 0..self.ntasks {
            let Some(task) = self.tasks[t].as_mut() else {
                continue;
            };
            if task.deadline == 0 || task.deadline > now {
                continue;
            }
            match task.state {
                // The server holds the call: its reply capability for it
                // must answer nothing from now on.
                State::AwaitingReply { .. } => task.epoch = task.epoch.wrapping_add(1),
                State::Sending { .. } => {}
                // Not in a call: cannot happen (whatever ends a call
                // clears its deadline), and nothing to end if it did.
                _ => {
                    task.deadline = 0;
                    continue;
                }
            }
            self.wake_with(t, SysError::TimedOut);
        }
    }

    /// True when some task is in a timed call (it will be woken at its
    /// deadline, so the CPU idles rather than halts).
    pub fn call_deadline_pending(&self) -> bool {
        self.live().iter().flatten().any(|t| t.deadline != 0)
    }
}
