//! Which CPU each task runs on, which CPUs are busy, and which must be
//! woken because a task placed there became ready.
//!
//! A task never moves: the manifest places it (`cpu = N`, default 0) and
//! only that CPU runs it, so its saved registers, FPU state and address
//! space are only ever live on one CPU. Each CPU's run queue is the set of
//! its tasks ([`Placement::mask`]) within the ready bitmap
//! (`Summary::ready`), searched by priority and round robin as on one CPU
//! (`crate::sched`). When a task becomes ready (`Kernel::set_state`), its
//! CPU's bit is set in [`Placement::wake`]; after each kernel entry the
//! glue takes the bits of the other CPUs ([`Placement::take_remote`]) and
//! interrupts them, so a message or signal to a task on another CPU wakes
//! it there. Hand-offs (`Next::Switch`, the IPC fastpath) only ever go to
//! a task on the same CPU.
//!
//! With one CPU every task is on CPU 0, every mask test passes and no
//! wake-up is ever remote: scheduling is exactly the one-CPU kernel's.
//! [`Placement::spread`] says whether that holds (no task placed off CPU
//! 0, whatever the CPU count); while it does, the IPC fastpath skips its
//! same-CPU checks, wake-ups set no bits, and the glue skips its per-entry
//! SMP work, so the one-CPU path pays one test per entry for SMP.

use conflux_bootimg::MAX_TASKS;

/// Most CPUs the kernel schedules on (the manifest's `system.cpus` bound).
pub const MAX_CPUS: usize = conflux_bootimg::MAX_CPUS;

/// Task placement and the CPUs' state, as seen under the kernel lock.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The CPU of each task.
    cpu_of: [u8; MAX_TASKS],
    /// Per CPU: bit `t` set when task `t` is placed there.
    pub mask: [u64; MAX_CPUS],
    /// CPUs with a task that became ready since the last [`Self::take_remote`].
    pub wake: u64,
    /// CPUs running a task (not idle).
    pub busy: u64,
    /// How many CPUs run (set by the glue before `Kernel::start`).
    pub cpus: usize,
    /// Some task was placed on a CPU other than 0 (see [`Self::spread`]).
    spread: bool,
}

impl Default for Placement {
    fn default() -> Self {
        Self::new()
    }
}

impl Placement {
    /// Every task on CPU 0.
    pub const fn new() -> Self {
        let mut mask = [0; MAX_CPUS];
        mask[0] = u64::MAX;
        Self {
            cpu_of: [0; MAX_TASKS],
            mask,
            wake: 0,
            busy: 0,
            cpus: 1,
            spread: false,
        }
    }

    /// Places task `t` on `cpu` (checked by the caller against the CPUs
    /// the machine has).
    pub fn place(&mut self, t: usize, cpu: usize) {
        let old = self.cpu_of[t] as usize;
        self.mask[old] &= !(1 << t);
        self.mask[cpu] |= 1 << t;
        self.cpu_of[t] = cpu as u8;
        self.spread |= cpu != 0;
    }

    /// Whether tasks may run on more than one CPU: some task was placed
    /// off CPU 0 (placement happens at boot only, so this never changes
    /// while tasks run). While false every task is on CPU 0, so every
    /// hand-off is within a CPU, no wake-up is remote and no other CPU
    /// runs a task — what lets the one-CPU path skip the SMP work.
    #[inline]
    pub fn spread(&self) -> bool {
        self.spread
    }

    /// The CPU task `t` runs on.
    #[inline]
    pub fn cpu_of(&self, t: usize) -> usize {
        self.cpu_of[t] as usize
    }

    /// Whether tasks `a` and `b` run on the same CPU (a hand-off between
    /// them needs no other CPU).
    #[inline]
    pub fn same_cpu(&self, a: usize, b: usize) -> bool {
        self.cpu_of[a] == self.cpu_of[b]
    }

    /// Task `t` became ready: its CPU must look again. Unplaced systems
    /// keep no bits (CPU 0 chooses after every entry anyway).
    #[inline]
    pub fn woke(&mut self, t: usize) {
        if self.spread {
            self.wake |= 1 << self.cpu_of[t];
        }
    }

    /// The CPUs other than `me` to interrupt so they look at their newly
    /// ready tasks; forgets every pending wake-up (`me` looks anyway, as it
    /// chooses after every entry).
    #[inline]
    pub fn take_remote(&mut self, me: usize) -> u64 {
        core::mem::take(&mut self.wake) & !(1 << me)
    }

    /// Records whether `cpu` runs a task.
    #[inline]
    pub fn set_busy(&mut self, cpu: usize, busy: bool) {
        if busy {
            self.busy |= 1 << cpu;
        } else {
            self.busy &= !(1 << cpu);
        }
    }
}
