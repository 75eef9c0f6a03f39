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
//!
//! The same statistics say how busy the guest's CPUs were: QEMU names
//! each guest CPU's thread `CPU n/TCG` (the runner starts it with
//! `-name ...,debug-threads=on`), and the nanoseconds those threads ran
//! over the interval's wall time is the share of a host core each kept
//! busy — the guest's work, QEMU's emulation of it and the host kernel's
//! part, but not the time the guest CPU was halted. A guest CPU well
//! short of 1 was idle for that part of the run: what held the guest back
//! then was waiting (for a device, for another thread), not its CPU.

use std::collections::HashMap;
use std::fmt;
use std::time::Instant;

/// One thread's statistics at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Thread {
    run_ns: u64,
    wait_ns: u64,
    slices: u64,
    /// Whether the thread runs a guest CPU (its name is `CPU n/...`).
    guest_cpu: bool,
}

/// Each thread's statistics, by thread id, at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Threads {
    threads: HashMap<u32, Thread>,
    at: Instant,
}

/// What a process's threads did between two samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Waited {
    /// Nanoseconds the threads ran, summed over them.
    pub run_ns: u64,
    /// Nanoseconds they were runnable but waited for a host CPU.
    pub wait_ns: u64,
    /// Time slices they ran in (one per wake-up or preemption).
    pub slices: u64,
    /// Of `run_ns`, the nanoseconds the guest CPUs' threads ran.
    pub guest_cpu_ns: u64,
    /// Wall-clock nanoseconds between the two samples.
    pub wall_ns: u64,
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

    /// Host cores the guest CPUs' threads kept busy on average (summed
    /// over the guest's CPUs); `None` when no thread was known as a guest
    /// CPU or no time passed, so nothing wrong is printed.
    pub fn guest_cpus_busy(&self) -> Option<f64> {
        (self.guest_cpu_ns > 0 && self.wall_ns > 0)
            .then(|| self.guest_cpu_ns as f64 / self.wall_ns as f64)
    }

    /// Host cores QEMU's other threads (the main loop, where slirp and
    /// most devices run, and its helpers) kept busy on average.
    pub fn other_threads_busy(&self) -> Option<f64> {
        self.guest_cpus_busy()?;
        Some(self.run_ns.saturating_sub(self.guest_cpu_ns) as f64 / self.wall_ns as f64)
    }

    /// The guest CPUs' and the other threads' busy cores as a table shows
    /// them (`0.65 | 0.46`), or `?` when not known.
    pub fn busy_text(&self) -> String {
        match (self.guest_cpus_busy(), self.other_threads_busy()) {
            (Some(g), Some(o)) => format!("{g:.2} | {o:.2}"),
            _ => "?".into(),
        }
    }

    /// The guest CPUs' busy cores as a benchmark records them
    /// (`guest_cpus_busy`, unit `cores`): to a hundredth.
    pub fn guest_cpus_recorded(&self) -> Option<f64> {
        self.guest_cpus_busy().map(|c| (c * 100.0).round() / 100.0)
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

/// Whether a thread named `comm` runs a guest CPU: QEMU names them
/// `CPU <n>/<accelerator>` when started with `debug-threads=on`.
pub fn is_guest_cpu(comm: &str) -> bool {
    comm.trim_end()
        .strip_prefix("CPU ")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
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
        if let Some((run_ns, wait_ns, slices)) =
            std::fs::read_to_string(task.path().join("schedstat"))
                .ok()
                .as_deref()
                .and_then(parse)
        {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            threads.insert(
                tid,
                Thread {
                    run_ns,
                    wait_ns,
                    slices,
                    guest_cpu: is_guest_cpu(&comm),
                },
            );
        }
    }
    (!threads.is_empty()).then_some(Threads {
        threads,
        at: Instant::now(),
    })
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
        let wall = self.at.saturating_duration_since(earlier.at);
        let mut w = Waited {
            wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
            ..Waited::default()
        };
        for (tid, t) in &self.threads {
            let (run0, wait0, slices0) = earlier
                .threads
                .get(tid)
                .map_or((0, 0, 0), |e| (e.run_ns, e.wait_ns, e.slices));
            let ran = t.run_ns.saturating_sub(run0);
            w.run_ns += ran;
            w.wait_ns += t.wait_ns.saturating_sub(wait0);
            w.slices += t.slices.saturating_sub(slices0);
            if t.guest_cpu {
                w.guest_cpu_ns += ran;
            }
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads sampled at `at`; thread 2 runs a guest CPU.
    fn threads_at(at: Instant, list: &[(u32, u64, u64)]) -> Threads {
        let threads = list
            .iter()
            .map(|&(t, r, w)| {
                let thread = Thread {
                    run_ns: r,
                    wait_ns: w,
                    // Each test thread ran in 10 slices more each time.
                    slices: r / 100,
                    guest_cpu: t == 2,
                };
                (t, thread)
            })
            .collect();
        Threads { threads, at }
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
        let t0 = Instant::now();
        let before = threads_at(t0, &[(1, 1_000, 100), (2, 500, 0), (3, 50, 50)]);
        // Thread 3 ended; thread 4 started; 2 µs passed.
        let t1 = t0 + std::time::Duration::from_nanos(2_000);
        let after = threads_at(t1, &[(1, 1_600, 400), (2, 900, 100), (4, 100, 0)]);
        let w = after.since(&before);
        assert_eq!(
            w,
            Waited {
                run_ns: 600 + 400 + 100,
                wait_ns: 300 + 100,
                slices: 6 + 4 + 1,
                guest_cpu_ns: 400,
                wall_ns: 2_000,
            }
        );
        // The guest CPU's thread ran 400 of 2,000 ns, the others 700.
        assert_eq!(w.guest_cpus_busy(), Some(0.2));
        assert_eq!(w.other_threads_busy(), Some(0.35));
        assert_eq!(w.busy_text(), "0.20 | 0.35");
        assert_eq!(w.guest_cpus_recorded(), Some(0.2));
        assert!((w.share() - 400.0 / 1500.0).abs() < 1e-12);
        assert_eq!(w.recorded(), 0.267);
        // 400 ns over 11 slices: 0.036 µs each.
        assert_eq!(w.to_string(), "27 %, 0 µs");
    }

    #[test]
    fn threads_that_never_ran_waited_nothing_and_waits_per_slice_are_microseconds() {
        let none = Waited::default();
        assert_eq!((none.share(), none.per_slice_us()), (0.0, 0.0));
        // Nothing known of the guest's CPUs: nothing printed of them.
        assert_eq!(
            (none.guest_cpus_busy(), none.busy_text().as_str()),
            (None, "?")
        );
        let woken = Waited {
            run_ns: 700_000_000,
            wait_ns: 300_000_000,
            slices: 20_000,
            ..Waited::default()
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
        let w = later.since(&first);
        assert!(w.run_ns > 0 && w.wall_ns >= 22_000_000);
        // No thread of the test runner is a guest CPU.
        assert_eq!(w.guest_cpu_ns, 0);
    }

    #[test]
    fn guest_cpu_threads_are_known_by_qemus_names_for_them() {
        for name in ["CPU 0/TCG\n", "CPU 1/TCG", "CPU 12/KVM"] {
            assert!(is_guest_cpu(name), "{name}");
        }
        for name in [
            "qemu-system-x86",
            "CPU /TCG",
            "CPU x/TCG",
            "CPU 0",
            "IO mon_iothread",
            "worker",
        ] {
            assert!(!is_guest_cpu(name), "{name}");
        }
    }
}
