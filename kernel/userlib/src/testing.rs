//! A tiny check list for in-guest test tasks: each check prints `ok: …` or
//! `CHECK FAILED: …`, and [`Checks::finish`] prints the tally and exits with
//! the number of failures, so the runner's console expectations and the
//! task's exit code agree.

use core::fmt::Debug;

/// Counts checks and failures.
#[derive(Default)]
pub struct Checks {
    total: u64,
    failed: u64,
}

impl Checks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks that `got == want`.
    pub fn eq<T: PartialEq + Debug>(&mut self, what: &str, got: T, want: T) {
        self.total += 1;
        if got == want {
            crate::println!("ok: {what}: {got:?}");
        } else {
            self.failed += 1;
            crate::println!("CHECK FAILED: {what}: got {got:?}, expected {want:?}");
        }
    }

    /// Checks a condition, describing it with `detail` on failure.
    pub fn that(&mut self, what: &str, cond: bool, detail: impl Debug) {
        self.total += 1;
        if cond {
            crate::println!("ok: {what}");
        } else {
            self.failed += 1;
            crate::println!("CHECK FAILED: {what}: {detail:?}");
        }
    }

    /// Prints the tally and ends the task with the failure count as exit code.
    pub fn finish(self) -> ! {
        if self.failed == 0 {
            crate::println!("all {} checks passed", self.total);
        } else {
            crate::println!("{} of {} checks FAILED", self.failed, self.total);
        }
        crate::sys::exit(self.failed)
    }
}

/// Faults on purpose (a read of address 0, never mapped), so that a test
/// task can be stopped or restarted by its supervisor. Does not return:
/// the kernel ends the task at the fault.
pub fn fault_on_purpose() -> ! {
    // Safety: not safe, on purpose — the read faults, and the kernel stops
    // this task (page 0 is never mapped in any address space).
    let v = unsafe { core::ptr::read_volatile(core::ptr::null::<u64>()) };
    crate::println!("read {v} from address 0: the kernel did not stop this task");
    crate::sys::exit(1)
}

/// `len` bytes that depend only on `seed` (xorshift32): test data that a
/// reader can regenerate to check what it got back.
pub fn pattern(seed: u32, len: usize) -> alloc::vec::Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// The TSC ticks (guest instructions under icount) each of `rounds` runs
/// of `op` took, sorted; the tests that judge latency read their
/// percentiles from it.
pub fn timed(rounds: usize, mut op: impl FnMut()) -> alloc::vec::Vec<u64> {
    let mut times: alloc::vec::Vec<u64> = (0..rounds)
        .map(|_| {
            let t0 = crate::sys::rdtsc();
            op();
            crate::sys::rdtsc() - t0
        })
        .collect();
    times.sort_unstable();
    times
}

/// The `pct`th percentile of sorted `times` (0 when empty).
pub fn percentile(times: &[u64], pct: usize) -> u64 {
    let i = (times.len() * pct / 100).saturating_sub(1);
    times.get(i).copied().unwrap_or(0)
}
