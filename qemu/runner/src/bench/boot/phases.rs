//! The milestones of one boot, read from its console, and the phases
//! between them: what `bench boot` prints and records.
//!
//! A milestone is a moment after QEMU's start: a console line appearing
//! (dated on the host), a boot-trace line (dated by its TSC count, see the
//! parent module), or the first HTTP answer. A phase is the time between
//! two milestones; the phases of different tasks overlap (the tasks run
//! side by side), so they do not add up to the total.

use std::time::Duration;

use super::super::Record;
use crate::qemu::{Console, BANNER_MARK};

/// The kernel argument that turns the boot trace on.
pub const TRACE_ARGUMENT: &str = "boot-trace";
/// What a boot-trace line starts with (after the kernel's `conflux: `).
const TRACE_PREFIX: &str = "conflux: boot trace: tsc ";
/// httpd's line once it listens.
pub const HTTPD_SERVING: &str = "httpd: serving http on port 80";

/// Milestones seen as console text, by name.
const LINES: [(&str, &str); 7] = [
    ("banner", BANNER_MARK),
    ("blk_ready", "blk: virtio-blk at "),
    ("nic_ready", "nic: virtio-net at "),
    ("fs_mounted", "fs: ext4 mounted"),
    ("net_up", "net: up: "),
    ("shell_prompt", "shell: / $ "),
    ("httpd_serving", HTTPD_SERVING),
];

/// Milestones from the boot trace: name, and what the trace line says.
const TRACED: [(&str, &str); 11] = [
    ("kernel_entry", "kernel entered"),
    ("kernel_set_up", "kernel set up"),
    ("tasks_loading", "loading tasks"),
    ("tasks_loaded", "tasks loaded"),
    ("init_runs", "task 'init' runs"),
    ("blk_runs", "task 'blk' runs"),
    ("fs_runs", "task 'fs' runs"),
    ("shell_runs", "task 'shell' runs"),
    ("nic_runs", "task 'nic' runs"),
    ("net_runs", "task 'net' runs"),
    ("httpd_runs", "task 'httpd' runs"),
];

/// Phases: name, first milestone, last milestone, what it covers.
pub const PHASES: [(&str, &str, &str, &str); 11] = [
    (
        "qemu",
        "qemu_start",
        "vm_start",
        "QEMU's own start: devices, loading kernel and image files",
    ),
    (
        "firmware",
        "vm_start",
        "kernel_entry",
        "SeaBIOS and the PVH loader (copies the boot image in)",
    ),
    (
        "kernel_init",
        "kernel_entry",
        "tasks_loading",
        "CPU, paging, memory map, boot objects, clock",
    ),
    (
        "task_load",
        "tasks_loading",
        "tasks_loaded",
        "every task's ELF, stack and heap",
    ),
    ("blk_probe", "blk_runs", "blk_ready", "virtio-blk driver"),
    (
        "fs_mount",
        "fs_runs",
        "fs_mounted",
        "file server: caches, ext4 mount, journal",
    ),
    ("nic_probe", "nic_runs", "nic_ready", "virtio-net driver"),
    (
        "net_up",
        "net_runs",
        "net_up",
        "network server (static address: no DHCP)",
    ),
    (
        "shell_start",
        "shell_runs",
        "shell_prompt",
        "shell to its prompt (waits for fs)",
    ),
    (
        "httpd_start",
        "httpd_runs",
        "httpd_serving",
        "httpd to listening (waits for fs and net)",
    ),
    (
        "http_answer",
        "httpd_serving",
        "http_answer",
        "first request through the forward",
    ),
];

/// One boot's milestones: (name, time since QEMU's start).
#[derive(Debug, Clone, Default)]
pub struct Milestones(pub Vec<(&'static str, Duration)>);

impl Milestones {
    /// Reads the milestones from `console`, the TSC counts at `rate`
    /// cycles per ms, and `answer`, when httpd first answered.
    pub fn read(console: &Console, rate: f64, answer: Duration) -> Self {
        let text = console.text();
        let traced: Vec<(u64, &str, Duration)> = text
            .lines()
            .filter_map(|l| {
                let (tsc, what) = parse_trace(l)?;
                Some((tsc, what, console.first_seen(l)?))
            })
            .collect();
        let mut found = vec![("qemu_start", Duration::ZERO)];
        if let Some(vm) = vm_start(traced.iter().map(|&(t, _, at)| (t, at)), rate) {
            found.push(("vm_start", vm));
            for (name, what) in TRACED {
                if let Some(&(tsc, _, _)) = traced.iter().find(|t| t.1 == what) {
                    found.push((name, vm + from_cycles(tsc, rate)));
                }
            }
        }
        for (name, mark) in LINES {
            if let Some(at) = console.first_seen(mark) {
                found.push((name, at));
            }
        }
        found.push(("http_answer", answer));
        Self(found)
    }

    pub fn get(&self, name: &str) -> Option<Duration> {
        self.0.iter().find(|m| m.0 == name).map(|m| m.1)
    }

    /// The first milestone a phase needs that this boot lacks, as a
    /// description for an error.
    pub fn missing(&self) -> Option<String> {
        PHASES
            .iter()
            .flat_map(|p| [p.1, p.2])
            .find(|name| self.get(name).is_none())
            .map(|name| {
                let line = LINES
                    .iter()
                    .chain(TRACED.iter())
                    .find(|l| l.0 == name)
                    .map_or("a boot-trace line", |l| l.1);
                format!("`{line}` (milestone {name}; is `{TRACE_ARGUMENT}` reaching the kernel?)")
            })
    }

    /// The length of phase `(first, last)`, if both were seen.
    fn phase(&self, first: &str, last: &str) -> Option<Duration> {
        Some(self.get(last)?.saturating_sub(self.get(first)?))
    }
}

/// `(tsc, what)` of a boot-trace line.
pub fn parse_trace(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix(TRACE_PREFIX)?;
    let (tsc, what) = rest.split_once(' ')?;
    Some((tsc.parse().ok()?, what.trim_end()))
}

/// When the virtual machine started running, from `(tsc, arrival)` of
/// trace lines: a line leaves the guest at `start + tsc / rate` and comes
/// out of the pipe no earlier, so the earliest `arrival - tsc / rate` is
/// the closest bound.
pub fn vm_start(points: impl Iterator<Item = (u64, Duration)>, rate: f64) -> Option<Duration> {
    points
        .map(|(tsc, at)| at.saturating_sub(from_cycles(tsc, rate)))
        .min()
}

fn from_cycles(tsc: u64, rate: f64) -> Duration {
    Duration::from_secs_f64(tsc as f64 / rate / 1000.0)
}

/// Median, least and most of one figure over the boots (ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    fn of(mut v: Vec<f64>) -> Option<Self> {
        if v.is_empty() {
            return None;
        }
        let min = v.iter().copied().fold(f64::MAX, f64::min);
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        let median = super::super::median(&mut v);
        Some(Self { median, min, max })
    }
}

/// Every milestone and phase over the boots.
pub struct Table {
    /// Milestones, earliest median first.
    pub milestones: Vec<(&'static str, Spread)>,
    pub phases: Vec<(&'static str, &'static str, Spread)>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

impl Table {
    pub fn from_runs(runs: &[Milestones]) -> Self {
        let mut names: Vec<&'static str> = Vec::new();
        for m in runs.iter().flat_map(|r| &r.0) {
            if !names.contains(&m.0) && m.0 != "qemu_start" {
                names.push(m.0);
            }
        }
        let mut milestones: Vec<_> = names
            .into_iter()
            .filter_map(|n| {
                let v = runs.iter().filter_map(|r| r.get(n)).map(ms).collect();
                Some((n, Spread::of(v)?))
            })
            .collect();
        milestones.sort_by(|a, b| a.1.median.total_cmp(&b.1.median));
        let phases = PHASES
            .iter()
            .filter_map(|&(name, first, last, what)| {
                let v = runs
                    .iter()
                    .filter_map(|r| r.phase(first, last))
                    .map(ms)
                    .collect();
                Some((name, what, Spread::of(v)?))
            })
            .collect();
        Self { milestones, phases }
    }

    /// The readable table.
    pub fn render(&self, runs: usize, rate: f64) -> String {
        let mut o = format!(
            "bench boot: default system, tcg, {runs} boots, host wall clock from QEMU's start (TSC {:.0} MHz)\n",
            rate / 1000.0
        );
        o.push_str(&format!(
            "  {:<32} {:>9} {:>9} {:>9}\n",
            "milestone (ms after QEMU start)", "median", "min", "max"
        ));
        for (name, s) in &self.milestones {
            o.push_str(&row(name, s));
        }
        o.push_str(&format!(
            "  {:<32} {:>9} {:>9} {:>9}   what\n",
            "phase (ms; tasks overlap)", "median", "min", "max"
        ));
        for (name, what, s) in &self.phases {
            o.push_str(&format!("{}   {what}\n", row(name, s).trim_end()));
        }
        o
    }

    /// Records: `qemu_start_to_*` per milestone, `phase_*` per phase,
    /// each as median, min and max.
    pub fn records(&self) -> Vec<Record<'static>> {
        let mut out = Vec::new();
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let rows = self
            .milestones
            .iter()
            .map(|(n, s)| (leak(format!("qemu_start_to_{n}")), *s))
            .chain(
                self.phases
                    .iter()
                    .map(|(n, _, s)| (leak(format!("phase_{n}")), *s)),
            );
        for (metric, s) in rows {
            for (param, value) in [("median", s.median), ("min", s.min), ("max", s.max)] {
                out.push(Record {
                    bench: "boot",
                    config: "default",
                    param,
                    metric,
                    value,
                    unit: "ms",
                    mode: "tcg",
                });
            }
        }
        out
    }
}

fn row(name: &str, s: &Spread) -> String {
    format!(
        "  {:<32} {:>7.1}ms {:>7.1}ms {:>7.1}ms\n",
        name, s.median, s.min, s.max
    )
}
