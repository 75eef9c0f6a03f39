//! How long an idle CPU polls for work before it halts: an adaptive
//! window, the policy of Linux's guest `haltpoll` governor.
//!
//! Under a hypervisor or an emulator a halted virtual CPU is a host thread
//! asleep, and the interrupt that ends the halt (a device's completion, a
//! wake-up IPI from another CPU) must first get that thread scheduled
//! again on the host: tens of microseconds that the guest sees as latency
//! in every hand-over. The flow benchmark measured it in QEMU's threads
//! (4–20 µs per time slice, at 5,000–15,000 slices a second). A CPU that
//! spins with interrupts on for a short while before it halts takes an
//! interrupt that comes soon at once, at the cost of host CPU time when
//! none comes. So the window adapts to what the wake-ups did: a wake-up
//! the window caught leaves it as it is; one that came after the window
//! but within [`HaltPoll::max`] grows it (doubling, from at least
//! [`HaltPoll::start`]), since a longer poll would have caught it; a
//! wake-up later than the maximum halves it, since polling for that one
//! only burnt the host's time. A machine with nothing to do drifts to a
//! window of zero and halts at once. The kernel keeps one per CPU and
//! measures in TSC cycles; this module only decides.

/// One CPU's idle poll window, in TSC cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HaltPoll {
    window: u64,
    start: u64,
    max: u64,
}

impl HaltPoll {
    /// A policy that never polls (the kernel's until it knows its TSC
    /// rate, and for good under `idle=halt`).
    pub const OFF: Self = Self {
        window: 0,
        start: 0,
        max: 0,
    };

    /// Linux's defaults, as in its `haltpoll` governor: grow from 50 µs,
    /// never beyond 200 µs.
    pub const START_US: u64 = 50;
    pub const MAX_US: u64 = 200;

    /// The policy for a CPU whose TSC counts `tsc_per_us` cycles a
    /// microsecond, starting with a window of zero.
    pub const fn new(tsc_per_us: u64) -> Self {
        Self {
            window: 0,
            start: Self::START_US.saturating_mul(tsc_per_us),
            max: Self::MAX_US.saturating_mul(tsc_per_us),
        }
    }

    /// Whether this policy never polls (so an idle spell need not even
    /// be timed).
    pub const fn is_off(&self) -> bool {
        self.max == 0
    }

    /// How long the CPU polls when it next goes idle.
    pub const fn window(&self) -> u64 {
        self.window
    }

    /// The smallest window a grow gives.
    pub const fn start(&self) -> u64 {
        self.start
    }

    /// The largest window, and the longest idle spell worth polling for.
    pub const fn max(&self) -> u64 {
        self.max
    }

    /// The CPU was idle for `idle` cycles before it had work again (the
    /// first wake-up that gave it a task, not a tick that found nothing):
    /// adapts the window for the next idle spell.
    pub fn woke_after(&mut self, idle: u64) {
        if idle <= self.window {
            // The poll caught it.
        } else if idle <= self.max {
            self.window = (self.window.saturating_mul(2))
                .max(self.start)
                .min(self.max);
        } else {
            self.window /= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 cycles a microsecond: start 50,000, max 200,000.
    fn policy() -> HaltPoll {
        HaltPoll::new(1_000)
    }

    #[test]
    fn a_new_policy_does_not_poll_and_off_never_does() {
        assert_eq!(policy().window(), 0);
        assert!(!policy().is_off() && HaltPoll::OFF.is_off());
        // A TSC too slow to count a microsecond gives a policy that is off.
        assert!(HaltPoll::new(0).is_off());
        let mut off = HaltPoll::OFF;
        for idle in [0, 1, 10, 1_000_000] {
            off.woke_after(idle);
            assert_eq!(off.window(), 0, "after an idle spell of {idle}");
        }
    }

    #[test]
    fn a_wake_up_the_window_missed_but_a_longer_one_would_catch_grows_it_to_the_maximum() {
        let mut p = policy();
        p.woke_after(10_000);
        assert_eq!(p.window(), 50_000, "the first grow goes to start");
        p.woke_after(60_000);
        assert_eq!(p.window(), 100_000);
        p.woke_after(150_000);
        assert_eq!(p.window(), 200_000);
        p.woke_after(200_000);
        assert_eq!(p.window(), 200_000, "caught at the maximum: kept");
    }

    #[test]
    fn a_wake_up_the_window_caught_leaves_it_alone() {
        let mut p = policy();
        p.woke_after(40_000);
        p.woke_after(70_000);
        assert_eq!(p.window(), 100_000);
        for idle in [0, 1, 99_999, 100_000] {
            p.woke_after(idle);
            assert_eq!(p.window(), 100_000, "after an idle spell of {idle}");
        }
    }

    #[test]
    fn wake_ups_later_than_the_maximum_halve_it_down_to_zero() {
        let mut p = policy();
        for idle in [100_000, 150_000, 150_000] {
            p.woke_after(idle);
        }
        assert_eq!(p.window(), p.max());
        p.woke_after(200_001);
        assert_eq!(p.window(), 100_000);
        for _ in 0..20 {
            p.woke_after(10_000_000);
        }
        assert_eq!(p.window(), 0, "an idle machine stops polling");
        p.woke_after(30_000);
        assert_eq!(p.window(), p.start(), "and starts again from start");
    }

    #[test]
    fn a_huge_rate_saturates_instead_of_wrapping() {
        let mut p = HaltPoll::new(u64::MAX / 10);
        assert_eq!(p.max(), u64::MAX);
        p.woke_after(1);
        assert_eq!(p.window(), p.start());
        p.woke_after(u64::MAX);
        assert_eq!(p.window(), u64::MAX, "caught: kept");
    }
}
