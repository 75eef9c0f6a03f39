//! What the workloads print: record lines in exactly the format Conflux's
//! in-guest benchmarks use (`conflux_abi::bench::BenchLine`, behind the
//! console prefix `linux-peer: `), so the runner reads both with one
//! parser, and the checks that make a figure of wrong work worthless.

use conflux_abi::bench::{BenchLine, Stat};

/// The prefix of every line the runner reads (Conflux's console puts a
/// task's name there; this program is the peer's one "task").
pub const TASK: &str = "linux-peer";

/// Prints one console line with the task prefix.
pub fn say(text: &str) {
    println!("{TASK}: {text}");
}

/// The samples of one metric: TSC deltas (TSC cycles under tcg, guest
/// instructions under icount, as in Conflux's guests).
pub struct Samples {
    metric: BenchLine<'static>,
    values: Vec<u64>,
}

impl Samples {
    /// Room for `n` samples of metric `bench__config__param`.
    ///
    /// # Panics
    ///
    /// If the name has characters a record cannot carry (a bug here).
    pub fn new(bench: &str, config: &str, param: &str, n: usize) -> Self {
        let name = format!(
            "{}__{}__{}",
            bench.replace('-', "_"),
            config.replace('-', "_"),
            param.replace('-', "_")
        );
        let name: &'static str = Box::leak(name.into_boxed_str());
        let metric = BenchLine::new(name, Stat::Samples, 0)
            .unwrap_or_else(|e| panic!("benchmark metric `{name}`: {e}"));
        Self {
            metric,
            values: Vec::with_capacity(n),
        }
    }

    pub fn push(&mut self, delta: u64) {
        self.values.push(delta);
    }

    /// The lines Conflux's `Samples::report` prints: median, p99 and mean
    /// (when there are samples) and the count.
    pub fn lines(mut self) -> Vec<String> {
        self.values.sort_unstable();
        let n = self.values.len();
        let mut out = Vec::new();
        if n > 0 {
            let at = |q: usize| self.values[(n * q / 100).min(n - 1)];
            let mean = self.values.iter().sum::<u64>() / n as u64;
            for (stat, v) in [
                (Stat::Median, at(50)),
                (Stat::P99, at(99)),
                (Stat::Mean, mean),
            ] {
                out.push(self.metric.with(stat, v).to_string());
            }
        }
        out.push(self.metric.with(Stat::Samples, n as u64).to_string());
        out
    }

    /// Prints [`Samples::lines`].
    pub fn report(self) {
        for line in self.lines() {
            say(&line);
        }
    }
}

/// The checks a run made; a failed one is printed as `CHECK FAILED`,
/// which makes the runner refuse the whole run.
#[derive(Default)]
pub struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    /// Records whether `what` held; `detail` says what was seen instead.
    pub fn that(&mut self, what: &str, ok: bool, detail: impl std::fmt::Display) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            say(&format!("CHECK FAILED: {what}: {detail}"));
        }
    }

    /// The closing line the runner waits for.
    pub fn summary(&self) -> String {
        if self.failed == 0 {
            format!("all {} checks passed", self.passed)
        } else {
            format!(
                "{} of {} checks failed",
                self.failed,
                self.passed + self.failed
            )
        }
    }
}

/// The time-stamp counter: TSC cycles under tcg, the guest's retired
/// instructions under icount (QEMU advances the virtual TSC one step per
/// instruction), exactly what Conflux's `conflux_userlib::sys::rdtsc` reads.
pub fn rdtsc() -> u64 {
    // Safety: `rdtsc` only reads the time-stamp counter; Linux leaves it
    // readable from user mode (no `PR_SET_TSC`), no other precondition.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_conflux_record_lines_with_the_triple_name() {
        let mut s = Samples::new("fs-ops", "linux-io_uring", "open-read-close", 4);
        for v in [40, 10, 30, 20] {
            s.push(v);
        }
        let lines = s.lines();
        assert_eq!(
            lines,
            [
                "BENCH fs_ops__linux_io_uring__open_read_close median 30",
                "BENCH fs_ops__linux_io_uring__open_read_close p99 40",
                "BENCH fs_ops__linux_io_uring__open_read_close mean 25",
                "BENCH fs_ops__linux_io_uring__open_read_close samples 4",
            ]
        );
        for l in &lines {
            assert!(BenchLine::parse(l).is_ok(), "{l}");
        }
    }

    #[test]
    fn no_samples_is_only_a_count() {
        let s = Samples::new("ipc", "linux-syscall", "getpid", 0);
        assert_eq!(s.lines(), ["BENCH ipc__linux_syscall__getpid samples 0"]);
    }

    #[test]
    fn a_failed_check_changes_the_summary() {
        let mut c = Checks::default();
        c.that("a", true, "");
        assert_eq!(c.summary(), "all 1 checks passed");
        c.that("b", false, "saw 3");
        assert_eq!(c.summary(), "1 of 2 checks failed");
    }
}
