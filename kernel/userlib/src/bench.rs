//! Benchmark samples for in-guest benchmarks: collect TSC deltas, then
//! print the median and 99th percentile as `BENCH <metric> <param> <value>`
//! lines, which the host runner turns into records (adding the mode and the
//! unit: TSC cycles under `tcg`, instructions under `icount`).

use alloc::vec::Vec;

/// Recorded rounds per metric (the issue asks for at least 100,000).
pub const ROUNDS: usize = 100_000;
/// Unrecorded warm-up rounds before recording starts.
pub const WARMUP: usize = 2_000;

/// Deltas of one metric.
pub struct Samples {
    metric: &'static str,
    values: Vec<u64>,
}

impl Samples {
    /// Room for `n` samples of `metric`.
    pub fn new(metric: &'static str, n: usize) -> Self {
        Self {
            metric,
            values: Vec::with_capacity(n),
        }
    }

    pub fn push(&mut self, delta: u64) {
        self.values.push(delta);
    }

    /// Sorts the samples and prints median and p99.
    pub fn report(mut self) {
        self.values.sort_unstable();
        let n = self.values.len();
        if n == 0 {
            crate::println!("BENCH {} no samples", self.metric);
            return;
        }
        let at = |q: usize| self.values[(n * q / 100).min(n - 1)];
        crate::println!("BENCH {} median {}", self.metric, at(50));
        crate::println!("BENCH {} p99 {}", self.metric, at(99));
        crate::println!("BENCH {} samples {}", self.metric, n);
    }
}
