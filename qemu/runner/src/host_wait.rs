//! How long QEMU's threads waited for a host CPU over an interval, read
//! from the kernel's per-thread scheduler statistics
//! (`/proc/<pid>/task/<tid>/schedstat`: nanoseconds run, nanoseconds
//! waited runnable on a run queue, time slices).
//!
//! How busy the host's CPUs were on average (`host_cpu`) says nothing of
//! what a guest CPU loses each time it is woken: a halted vCPU's thread,
//! or QEMU's I/O thread (slirp, the devices' bottom halves) handed work,
//! is runnable from its wake-up until a host CPU runs it, and the guest
//! does nothing on it meanwhile. The share of their runnable time QEMU's
//! threads spent waiting, and the mean wait per time slice (a slice per
//! wake-up, mostly), tell the two causes apart: tens of microseconds
//! per slice is the host's wake-up latency, paid thousands of times a
//! second; milliseconds are threads queued behind each other for too
//! few cores. A guest CPU that halted is not runnable and counts
//! nothing.

use std::collections::HashMap;
use std::fmt;

/// Each thread's nanoseconds run and waited and its slices, by thread
/// id, at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Threads(HashMap<u32, (u64, u64, u64)>);

/// What a process's threads did between two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waited {
    /// Nanoseconds the threads ran, summed over them.
    pub run_ns: u64,
    /// Nanoseconds they were runnable but waited for a host CPU.
    pub wait_ns: u64,
    /// Time slices they ran in (one per wake-up or preemption).
    pub slices: u64,
}

impl Waited {
    /// The share of the threads' runnable time spent waiting for a CPU
    /// (0 when they never ran).
    pub fn share(&self) -> f64 {
        let runnable = self.run_ns + self.wait_ns;
        if runnable == 0 {
            0.0
        } else {
            self.wait_ns as f64 / runnable as f64
        }
    }

    /// The share as a benchmark records it (`qemu_cpu_wait_share`, unit
    /// `share`): to a thousandth.
    pub fn recorded(&self) -> f64 {
        (self.share() * 1000.0).round() / 1000.0
    }

    /// The mean wait before a time slice, in microseconds (0 for none).
    pub fn per_slice_us(&self) -> f64 {
        if self.slices == 0 {
            0.0
        } else {
            self.wait_ns as f64 / self.slices as f64 / 1000.0
        }
    }
}

impl fmt::Display for Waited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.0} %, {:.0} µs",
            self.share() * 100.0,
            self.per_slice_us()
        )
    }
}

/// The run and wait nanoseconds and the slices of one `schedstat` text.
pub fn parse(schedstat: &str) -> Option<(u64, u64, u64)> {
    let mut fields = schedstat.split_whitespace().map(str::parse::<u64>);
    let run = fields.next()?.ok()?;
    let wait = fields.next()?.ok()?;
    let slices = fields.next()?.ok()?;
    Some((run, wait, slices))
}

/// Process `pid`'s threads now; `None` where the statistics cannot be
/// read (not Linux, or a kernel without them), so callers print nothing
/// rather than a wrong figure.
pub fn sample(pid: u32) -> Option<Threads> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut threads = HashMap::new();
    for task in tasks.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        // A thread that ended since the listing is simply not counted.
        if let Some(times) = std::fs::read_to_string(task.path().join("schedstat"))
            .ok()
            .as_deref()
            .and_then(parse)
        {
            threads.insert(tid, times);
        }
    }
    (!threads.is_empty()).then_some(Threads(threads))
}

/// What process `pid`'s threads did from `start` (a [`sample`]) to now;
/// `None` if either end could not be read.
pub fn since(pid: u32, start: Option<&Threads>) -> Option<Waited> {
    Some(sample(pid)?.since(start?))
}

impl Threads {
    /// What the threads did from `earlier` to `self`: a thread in both
    /// counts its difference, one started since counts whole, one ended
    /// since is lost (its last interval with it).
    pub fn since(&self, earlier: &Threads) -> Waited {
        let mut w = Waited {
            run_ns: 0,
            wait_ns: 0,
            slices: 0,
        };
        for (tid, &(run, wait, slices)) in &self.0 {
            let (run0, wait0, slices0) = earlier.0.get(tid).copied().unwrap_or((0, 0, 0));
            w.run_ns += run.saturating_sub(run0);
            w.wait_ns += wait.saturating_sub(wait0);
            w.slices += slices.saturating_sub(slices0);
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threads(list: &[(u32, u64, u64)]) -> Threads {
        // Each test thread ran in 10 slices more each time.
        Threads(list.iter().map(|&(t, r, w)| (t, (r, w, r / 100))).collect())
    }

    #[test]
    fn parses_run_wait_and_slices_and_refuses_anything_else() {
        assert_eq!(parse("192701 35 1\n"), Some((192_701, 35, 1)));
        assert_eq!(parse("192701 35\n"), None);
        assert_eq!(parse("192701\n"), None);
        assert_eq!(parse("x 1 2"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn sums_each_threads_difference_and_counts_new_threads_whole() {
        let before = threads(&[(1, 1_000, 100), (2, 500, 0), (3, 50, 50)]);
        // Thread 3 ended; thread 4 started.
        let after = threads(&[(1, 1_600, 400), (2, 900, 100), (4, 100, 0)]);
        let w = after.since(&before);
        assert_eq!(
            w,
            Waited {
                run_ns: 600 + 400 + 100,
                wait_ns: 300 + 100,
                slices: 6 + 4 + 1,
            }
        );
        assert!((w.share() - 400.0 / 1500.0).abs() < 1e-12);
        assert_eq!(w.recorded(), 0.267);
        // 400 ns over 11 slices: 0.036 µs each.
        assert_eq!(w.to_string(), "27 %, 0 µs");
    }

    #[test]
    fn threads_that_never_ran_waited_nothing_and_waits_per_slice_are_microseconds() {
        let none = Waited {
            run_ns: 0,
            wait_ns: 0,
            slices: 0,
        };
        assert_eq!((none.share(), none.per_slice_us()), (0.0, 0.0));
        let woken = Waited {
            run_ns: 700_000_000,
            wait_ns: 300_000_000,
            slices: 20_000,
        };
        assert_eq!(woken.per_slice_us(), 15.0);
        assert_eq!(woken.to_string(), "30 %, 15 µs");
    }

    #[test]
    fn this_process_can_be_sampled_where_the_kernel_keeps_the_statistics() {
        // Where `/proc` has them (Linux), the runner's own threads are
        // listed and their times only grow.
        let me = std::process::id();
        let Some(first) = sample(me) else { return };
        // Work for 20 ms, then sleep so the kernel accounts it.
        let until = std::time::Instant::now() + std::time::Duration::from_millis(20);
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
        let later = sample(me).expect("readable once, readable again");
        assert!(later.since(&first).run_ns > 0);
    }
}
