//! How long httpd's ring mode polls for an answer before it sleeps on
//! it: adaptive, like FlexSC's syscall threads. With the network server
//! polling on another CPU, an answer usually comes within a few hundred
//! looks, and sleeping (an IPC, a wake-up across CPUs) costs far more;
//! with the server on httpd's own CPU, or asleep, no answer can come
//! while httpd polls, and every look is wasted. So the budget doubles
//! (up to [`MAX`]) each time an answer came while polling and halves
//! (down to none) each time httpd had to sleep anyway; at zero it still
//! tries one poll in [`PROBE_EVERY`] sleeps with the least budget, so a
//! server that starts answering quickly again is noticed.

/// The most looks before sleeping.
pub const MAX: u32 = 1024;
/// The budget a probe tries.
pub const PROBE: u32 = 16;
/// With no budget, one wait in this many probes again.
pub const PROBE_EVERY: u32 = 32;

/// The polling budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spin {
    budget: u32,
    /// Waits since the budget reached zero.
    idle: u32,
}

impl Default for Spin {
    fn default() -> Self {
        Spin::new()
    }
}

impl Spin {
    /// Starts hopeful: the server may well be polling.
    pub fn new() -> Spin {
        Spin {
            budget: MAX / 4,
            idle: 0,
        }
    }

    /// How many looks the next wait may take before sleeping.
    pub fn budget(&mut self) -> u32 {
        if self.budget > 0 {
            return self.budget;
        }
        self.idle += 1;
        if self.idle >= PROBE_EVERY {
            self.idle = 0;
            PROBE
        } else {
            0
        }
    }

    /// The answer came after `looks` looks, while polling.
    pub fn answered(&mut self, looks: u32) {
        // Room for the next one to take twice as long.
        self.budget = (looks.max(1) * 2).max(self.budget).clamp(PROBE, MAX);
        self.idle = 0;
    }

    /// No answer within the budget: httpd slept on it.
    pub fn slept(&mut self) {
        self.budget /= 2;
        if self.budget < PROBE {
            self.budget = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn sleeping_each_time_brings_the_budget_to_zero() {
        let mut s = Spin::new();
        for _ in 0..16 {
            s.budget();
            s.slept();
        }
        assert_eq!(s.budget(), 0);
    }

    #[test]
    fn at_zero_one_wait_in_probe_every_probes() {
        let mut s = Spin::new();
        for _ in 0..16 {
            s.slept();
        }
        let budgets: Vec<u32> = (0..PROBE_EVERY * 2).map(|_| s.budget()).collect();
        assert_eq!(budgets.iter().filter(|b| **b == PROBE).count(), 2);
        assert_eq!(budgets.iter().filter(|b| **b == 0).count(), 2 * PROBE_EVERY as usize - 2);
    }

    #[test]
    fn a_probe_answered_brings_polling_back() {
        let mut s = Spin::new();
        for _ in 0..16 {
            s.slept();
        }
        s.answered(3);
        assert_eq!(s.budget(), PROBE);
        s.answered(100);
        assert_eq!(s.budget(), 200);
    }

    #[test]
    fn the_budget_never_passes_max() {
        let mut s = Spin::new();
        for _ in 0..8 {
            s.answered(MAX);
        }
        assert_eq!(s.budget(), MAX);
        s.answered(u32::MAX / 4);
        assert_eq!(s.budget(), MAX);
    }

    #[test]
    fn halving_drops_below_probe_to_zero() {
        let mut s = Spin::new();
        s.answered(10); // budget 256 stays (max of old and 20)
        assert_eq!(s.budget(), MAX / 4);
        for _ in 0..4 {
            s.slept();
        }
        assert_eq!(s.budget(), 16);
        s.slept();
        assert_eq!(s.budget(), 0);
    }
}
