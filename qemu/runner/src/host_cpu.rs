//! How busy the host's CPUs were over an interval, read from the
//! kernel's `/proc/stat`. A benchmark under TCG runs each guest CPU as a
//! host thread, beside QEMU's I/O thread (where slirp handles every
//! datagram) and the runner's own load generator; when those need more
//! host cores than there are, the host sets the pace and a figure says
//! nothing about the guest. Benchmarks print this beside their figures so
//! that such a run is recognised as one.

use std::fmt;

/// The host's CPU time counters at one moment (clock ticks since boot).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Ticks spent doing anything but idling or waiting for I/O.
    busy: u64,
    /// All ticks, on all CPUs.
    total: u64,
    /// Online CPUs (`cpuN` lines).
    cpus: usize,
}

/// The host's CPUs' use between two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Busy {
    /// CPUs kept busy on average (0 ..= `cpus`).
    pub cores: f64,
    pub cpus: usize,
}

impl Busy {
    /// CPUs busy as a benchmark records them (`host_cpus_busy`, unit
    /// `cores`): to a hundredth.
    pub fn recorded(&self) -> f64 {
        (self.cores * 100.0).round() / 100.0
    }

    /// True when the host had (almost) no CPU time to spare: within a
    /// tenth of a core of all of them.
    pub fn saturated(&self) -> bool {
        self.cores >= self.cpus as f64 - 0.1
    }
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}/{}", self.cores, self.cpus)
    }
}

/// The counters now; `None` where `/proc/stat` cannot be read (not
/// Linux), so callers print nothing rather than a wrong figure.
pub fn sample() -> Option<Sample> {
    parse(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The host's use of its CPUs from `start` (a [`sample`]) to now; `None`
/// if either end could not be read.
pub fn since(start: Option<Sample>) -> Option<Busy> {
    sample()?.since(&start?)
}

/// The counters in a `/proc/stat` text: its aggregate `cpu` line
/// (user nice system idle iowait irq softirq steal ...; guest time is
/// already inside user) and the number of `cpuN` lines.
pub fn parse(stat: &str) -> Option<Sample> {
    let mut lines = stat.lines();
    let all = lines.find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = all
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    // user nice system idle iowait irq softirq steal: the first eight; the
    // guest columns that may follow are counted in user and nice already.
    let counted = ticks.get(..8.min(ticks.len()))?;
    if counted.len() < 5 {
        return None;
    }
    let total: u64 = counted.iter().sum();
    let idle = counted[3] + counted[4];
    let cpus = stat
        .lines()
        .filter(|l| {
            l.strip_prefix("cpu")
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        })
        .count();
    (cpus > 0).then_some(Sample {
        busy: total - idle,
        total,
        cpus,
    })
}

impl Sample {
    /// The host's use of its CPUs from `earlier` to `self`; `None` when no
    /// tick passed between them.
    pub fn since(&self, earlier: &Sample) -> Option<Busy> {
        let total = self.total.checked_sub(earlier.total)?;
        let busy = self.busy.checked_sub(earlier.busy)?;
        (total > 0).then(|| Busy {
            cores: busy as f64 / total as f64 * self.cpus as f64,
            cpus: self.cpus,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(user: u64, idle: u64, iowait: u64) -> String {
        format!(
            "cpu  {user} 0 10 {idle} {iowait} 0 0 0 0 0\n\
             cpu0 1 0 1 1 0 0 0 0 0 0\n\
             cpu1 1 0 1 1 0 0 0 0 0 0\n\
             intr 12345 0 0\n\
             ctxt 999\n"
        )
    }

    #[test]
    fn an_interval_counts_busy_cores() {
        let a = parse(&stat(100, 1000, 0)).unwrap();
        // 150 ticks pass: 100 busy, 50 idle, on two CPUs.
        let b = parse(&stat(200, 1050, 0)).unwrap();
        let busy = b.since(&a).unwrap();
        assert_eq!(busy.cpus, 2);
        assert!((busy.cores - 2.0 * 100.0 / 150.0).abs() < 1e-9);
        assert!(!busy.saturated());
        assert_eq!(busy.to_string(), "1.33/2");
        assert_eq!(busy.recorded(), 1.33);
    }

    #[test]
    fn waiting_for_io_is_idle_and_a_full_host_is_saturated() {
        let a = parse(&stat(0, 0, 0)).unwrap();
        let waiting = parse(&stat(0, 50, 50)).unwrap();
        assert_eq!(waiting.since(&a).unwrap().cores, 0.0);
        let full = parse(&stat(1000, 5, 0)).unwrap();
        assert!(full.since(&a).unwrap().saturated());
    }

    #[test]
    fn no_time_passing_or_no_cpu_line_gives_nothing() {
        let a = parse(&stat(1, 1, 1)).unwrap();
        assert_eq!(a.since(&a), None);
        assert_eq!(parse("intr 1\nctxt 2\n"), None);
        assert_eq!(parse("cpu  x y z\ncpu0 1 1 1 1\n"), None);
        // A counter that went backwards (another boot) is not an interval.
        let later = parse(&stat(5, 5, 5)).unwrap();
        assert_eq!(a.since(&later), None);
    }
}
