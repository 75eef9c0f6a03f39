//! The scheduler's choice: fixed priorities (0 most urgent), round robin
//! among equals.
//!
//! The next task is the most urgent ready one, searching from the task
//! after `from`, so a yielding or preempted task goes behind its peers.
//! The running task is always the most urgent ready task: every path that
//! makes a task ready checks [`Kernel::should_preempt`] before returning
//! to the caller, which is what lets the IPC fastpath hand the CPU to an
//! equally or more urgent partner without searching.

use crate::kernel::Kernel;
use crate::machine::Machine;
use crate::task::State;

impl<M: Machine> Kernel<M> {
    /// The most urgent ready task placed on `cpu`, round robin among
    /// equals starting after `from`.
    pub fn pick_next(&self, cpu: usize, from: usize) -> Option<usize> {
        let n = self.ntasks.clamp(1, self.tasks.len());
        let mut best: Option<(u8, usize)> = None;
        let mut i = from.min(n - 1);
        for _ in 0..n {
            i = if i + 1 == n { 0 } else { i + 1 };
            if let Some(t) = &self.tasks[i] {
                if t.state.is_ready()
                    && self.placement.cpu_of(i) == cpu
                    && best.is_none_or(|(p, _)| t.priority < p)
                {
                    best = Some((t.priority, i));
                }
            }
        }
        best.map(|(_, i)| i)
    }

    /// True when no ready task but `t` itself and `leaving` (the running
    /// task, about to block) is as urgent as `t`: once `leaving` blocks,
    /// `t` is the only most urgent ready task, so the search
    /// ([`Kernel::pick_next`]) would choose it from any starting point.
    /// This lets `reply_recv` hand the CPU straight to a less urgent
    /// caller (a client less urgent than its server, the common case)
    /// with the scheduler's own answer. It looks only at the other ready
    /// tasks (the summary's bitmap), usually none, where the search and
    /// the slow path cost about a thousand instructions.
    /// Only a task on `leaving`'s CPU can be handed that CPU.
    pub fn alone_next(&self, t: usize, leaving: usize) -> bool {
        let Some(p) = self.tasks[t].as_ref().map(|x| x.priority) else {
            return false;
        };
        if !self.placement.same_cpu(t, leaving) {
            return false;
        }
        let cpu = self.placement.cpu_of(leaving);
        let mut others = self.summary.ready & self.placement.mask[cpu] & !(1 << t | 1 << leaving);
        while others != 0 {
            let i = others.trailing_zeros() as usize;
            if self.tasks[i].as_ref().is_some_and(|x| x.priority <= p) {
                return false;
            }
            others &= others - 1;
        }
        true
    }

    /// True when a ready task on `current`'s CPU is more urgent than it.
    pub fn should_preempt(&self, current: usize) -> bool {
        let cur = self.tasks[current].as_ref().map_or(u8::MAX, |t| t.priority);
        let cpu = self.placement.cpu_of(current);
        self.live().iter().enumerate().any(|(i, t)| {
            t.as_ref().is_some_and(|t| {
                t.state.is_ready() && t.priority < cur && self.placement.cpu_of(i) == cpu
            })
        })
    }

    /// Some task waits on a notification an interrupt line can signal
    /// (in `wait`, or receiving with it bound), or a timer is armed, or a
    /// timed call has a deadline to come.
    pub fn waits_for_interrupt(&self) -> bool {
        self.timer_armed()
            || self.call_deadline_pending()
            || self
                .live()
                .iter()
                .flatten()
                .any(|t| match (t.state, t.bound) {
                    (State::Waiting { obj, .. }, _) => self.objects.fed_by_irq(obj),
                    (State::Receiving { .. }, Some(b)) => self.objects.fed_by_irq(b.obj),
                    _ => false,
                })
    }
}
