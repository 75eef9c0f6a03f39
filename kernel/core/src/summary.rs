//! Summaries of the tasks' states that the IPC fastpath reads instead of
//! scanning the task table.
//!
//! The kernel keeps no wait queues (a blocked task records what it waits
//! on in its own state), so "does anyone wait on this endpoint?" and "is
//! any other task ready?" would each be a pass over the tasks. The
//! fastpath asks both on every round trip, so the answers are kept here,
//! changed only where task states change ([`Kernel::set_state`], the
//! fastpath's own commits, revocation's wake-ups) and compared with a scan
//! after every syscall in the host tests.
//!
//! [`Kernel::set_state`]: crate::kernel::Kernel::set_state

use crate::task::State;
use conflux_bootimg::{MAX_OBJECTS, MAX_TASKS};

// One bit per task in `ready`.
const _: () = assert!(MAX_TASKS <= u64::BITS as usize);

/// What the tasks' states add up to.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Per endpoint object: tasks blocked on it (sending, receiving or
    /// delivering a fault).
    pub ep_blocked: [u16; MAX_OBJECTS],
    /// Bit `t` is set while task `t` is ready (running or runnable).
    pub ready: u64,
}

impl Default for Summary {
    fn default() -> Self {
        Self::new()
    }
}

impl Summary {
    pub const fn new() -> Self {
        Self {
            ep_blocked: [0; MAX_OBJECTS],
            ready: 0,
        }
    }

    /// Task `t` went from `old` to `new`.
    #[inline]
    pub fn change(&mut self, t: usize, old: State, new: State) {
        if let Some(o) = old.endpoint() {
            let c = &mut self.ep_blocked[o as usize];
            *c = c.saturating_sub(1);
        }
        if let Some(o) = new.endpoint() {
            self.ep_blocked[o as usize] += 1;
        }
        self.set_ready(t, new.is_ready());
    }

    /// Records whether task `t` is ready.
    #[inline]
    pub fn set_ready(&mut self, t: usize, ready: bool) {
        let bit = 1u64 << t;
        if ready {
            self.ready |= bit;
        } else {
            self.ready &= !bit;
        }
    }
}
