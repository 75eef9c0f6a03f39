//! Benchmark samples for in-guest benchmarks: collect TSC deltas, then
//! print the median, 99th percentile and sample count as record lines
//! ([`conflux_abi::bench::BenchLine`]), which the host runner reads back
//! and turns into records (adding the mode and the unit: TSC cycles under
//! `tcg`, instructions under `icount`).

use alloc::vec::Vec;
use conflux_abi::bench::{BenchLine, Stat};

/// Recorded rounds per metric (the issue asks for at least 100,000).
pub const ROUNDS: usize = 100_000;
/// Unrecorded warm-up rounds before recording starts.
pub const WARMUP: usize = 2_000;

/// Deltas of one metric.
pub struct Samples {
    /// A record line of the metric, its name checked once.
    metric: BenchLine<'static>,
    values: Vec<u64>,
}

impl Samples {
    /// Room for `n` samples of `metric`.
    ///
    /// # Panics
    ///
    /// If `metric` is not a metric name (ASCII letters, digits, `_`), which
    /// the runner could not read back.
    pub fn new(metric: &'static str, n: usize) -> Self {
        let metric = match BenchLine::new(metric, Stat::Samples, 0) {
            Ok(line) => line,
            Err(e) => panic!("benchmark metric `{metric}`: {e}"),
        };
        Self {
            metric,
            values: Vec::with_capacity(n),
        }
    }

    pub fn push(&mut self, delta: u64) {
        self.values.push(delta);
    }

    /// Sorts the samples and prints median, p99 and the sample count (only
    /// the count when there are none); returns the median.
    pub fn report(mut self) -> Option<u64> {
        self.values.sort_unstable();
        let n = self.values.len();
        let at = |q: usize| self.values[(n * q / 100).min(n - 1)];
        if n > 0 {
            crate::println!("{}", self.metric.with(Stat::Median, at(50)));
            crate::println!("{}", self.metric.with(Stat::P99, at(99)));
            let mean = self.values.iter().sum::<u64>() / n as u64;
            crate::println!("{}", self.metric.with(Stat::Mean, mean));
        }
        crate::println!("{}", self.metric.with(Stat::Samples, n as u64));
        (n > 0).then(|| at(50))
    }
}
