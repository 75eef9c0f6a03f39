//! The report's sections: which benches each gathers, what it compares
//! (ratio columns, the papers' figures), which configurations and modes
//! it expects, and the command that produces each. A section without
//! records is listed as such rather than left out silently.

use crate::markdown::Ratio;
use crate::papers;
use crate::targets::count;

/// How a section lays out its figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// One table (and plot) per bench, metric and mode.
    PerWorkload,
    /// One table per mode and unit with the metrics as rows, for benches
    /// where Conflux and Linux measure the same thing under different
    /// metric names (IPC: a round trip beside getpid and pipes; boot: to
    /// the shell prompt beside Linux's `/init`). Records whose param is
    /// in `skip` are left out (a row is `metric` for param `median`, else
    /// `metric param`); each `headline` metric of Conflux's is then set
    /// over every Linux row of the same table.
    MetricsAsRows {
        skip: &'static [&'static str],
        headline: &'static [&'static str],
    },
}

/// Where a paper's figure is asked for.
pub struct At<'a> {
    pub bench: &'a str,
    pub metric: &'a str,
    pub param: &'a str,
    pub mode: &'a str,
}

/// One section of the report.
pub struct Section {
    pub title: &'static str,
    pub benches: &'static [&'static str],
    pub about: &'static str,
    pub command: &'static str,
    /// Configurations and the modes each is expected under.
    pub expect: &'static [(&'static str, &'static [&'static str])],
    pub ratios: &'static [Ratio],
    pub layout: Layout,
    /// The paper column's text for a table's row.
    pub paper: fn(&At) -> Option<String>,
}

const BOTH: &[&str] = &["icount", "tcg"];
const TCG: &[&str] = &["tcg"];

const fn r(num: &'static str, den: &'static str) -> Ratio {
    Ratio { num, den }
}

/// Speed-ups over VAN (the Cosy papers' measure) and COSY-FAST's cost
/// relative to Linux (below 1: cheaper than Linux).
const COSY_RATIOS: &[Ratio] = &[
    r("VAN", "COSY"),
    r("VAN", "COSY-FAST"),
    r("COSY-FAST", "linux-syscall"),
    r("COSY-FAST", "linux-io_uring"),
    r("COSY", "linux-syscall"),
];

const COSY_EXPECT: &[(&str, &[&str])] = &[
    ("VAN", BOTH),
    ("COSY", BOTH),
    ("COSY-FAST", BOTH),
    ("linux-syscall", BOTH),
    ("linux-io_uring", BOTH),
];

fn no_paper(_: &At) -> Option<String> {
    None
}

fn cosy_paper(at: &At) -> Option<String> {
    let bench = at.bench;
    if bench == "null-loop" {
        return papers::cosy_null_loop(at.param)
            .map(|c| format!("VAN / COSY {}x ({})", c.ratio.unwrap_or(0.0), c.text));
    }
    let mut parts: Vec<String> = Vec::new();
    for config in ["COSY", "COSY-FAST"] {
        let Some(c) = papers::cosy(bench, config) else {
            continue;
        };
        let part = match c.ratio {
            Some(x) => format!("VAN / {config} {x}x ({})", c.text),
            None => c.text.to_owned(),
        };
        // bonnie's figures are one text for both configurations.
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// FlexSC counted instructions: beside icount tables only.
fn fs_ops_paper(at: &At) -> Option<String> {
    if at.mode != "icount" {
        return None;
    }
    papers::flexsc_syscall(at.param).map(|(v, call)| {
        format!(
            "Linux {call} on a Core i7: {} instructions (FlexSC Table 1)",
            count(v)
        )
    })
}

/// The paper measured packet rates: beside rate tables only.
fn flow_paper(at: &At) -> Option<String> {
    if at.bench != "flow" || !at.metric.ends_with("_per_s") {
        return None;
    }
    papers::flow(at.param).map(|c| format!("flow / memory-centric {}", c.text))
}

/// Every section, in report order.
pub const SECTIONS: &[Section] = &[
    Section {
        title: "IPC: a Conflux round trip against Linux's getpid and pipe round trips",
        benches: &["ipc"],
        about: "Conflux: `call` → `reply_recv` between two tasks on one CPU (`qemu/systems/ipcbench.toml`), beside notify→wait and yield. Linux: getpid, and pipe and eventfd round trips between two processes, on the same QEMU machine. Medians (p99 and mean left out); the targets above judge the icount figures.",
        command: "`cargo make bench ipc`",
        expect: &[("1cpu", BOTH), ("linux-syscall", BOTH)],
        ratios: &[],
        layout: Layout::MetricsAsRows {
            // p99 equals the median under icount; tcg's tail is in the
            // bench's own table.
            skip: &["p99", "mean"],
            headline: &["call_reply_roundtrip"],
        },
        paper: no_paper,
    },
    Section {
        title: "File operations (fs-ops): the file server's cost per operation",
        benches: &["fs-ops"],
        about: "Per operation against the file server: VAN (one IPC per operation), COSY (one compound), COSY-FAST (a compound over a shared data region), beside Linux's syscalls and io_uring on the same ext4 image. `VAN / x` is a speed-up over VAN; `x / linux-*` is a cost relative to Linux (below 1: cheaper). FlexSC's Table 1 counts Linux's instructions per call on a real Core i7: the same unit as icount on another machine and kernel, so an order of magnitude, not a comparison.",
        command: "`cargo make bench fs-ops`",
        expect: COSY_EXPECT,
        ratios: COSY_RATIOS,
        layout: Layout::PerWorkload,
        paper: fs_ops_paper,
    },
    Section {
        title: "Cosy workloads: null loop, ls -l, grep, dbsim, copy, bonnie",
        benches: &["null-loop", "ls-l", "grep", "dbsim", "copy", "bonnie"],
        about: "The Cosy papers' workloads (guest time across one run of the workload). The papers report elapsed-time changes on their own machine; they are quoted here as speed-ups over VAN (`VAN / x`, e.g. -85 % elapsed = 6.7x), the only form that carries across machines.",
        command: "`cargo make bench cosy`",
        expect: COSY_EXPECT,
        ratios: COSY_RATIOS,
        layout: Layout::PerWorkload,
        paper: cosy_paper,
    },
    Section {
        title: "Flows: against the memory-centric path and against each stage alone",
        benches: &["flow", "flow-file-tcp"],
        about: "The flow paper's experiment: encrypted datagrams → NIC → crypto device → disk, as a flowmgr flow and as the memory-centric path through a task, and each stage alone (`stage-*`). Rates are each configuration's best over the offered loads. `flow / memory-centric` is the paper's measure (its figures are ratios from its own hardware); `flow / stage-*` is the flow's share of that stage's capacity (the bench also records it as `utilisation_stage-*`).",
        command: "`cargo make bench flow`, `cargo make bench flow-file-tcp`",
        expect: &[("flow", TCG), ("memory-centric", TCG), ("stage-udp", TCG), ("stage-crypto", TCG), ("stage-disk", TCG)],
        ratios: &[
            r("flow", "memory-centric"),
            r("flow", "stage-udp"),
            r("flow", "stage-crypto"),
            r("flow", "stage-disk"),
            r("flow", "stage-tcp"),
        ],
        layout: Layout::PerWorkload,
        paper: flow_paper,
    },
    Section {
        title: "Rings against synchronous IPC (FlexSC on Conflux)",
        benches: &["rings"],
        about: "Exception-less rings to the servers against synchronous IPC on one and two CPUs (issue 27): the NOP, dbsim and ls -l one request at a time (`*_latency`), and the many-client dbsim with a row per number of clients (`dbsim_clients_rate`: requests/s over all clients; `dbsim_clients_latency`: per request). Paths: `sync-ipc-*` one IPC per operation, `sync-compound-*` the request as one compound by IPC, `ring*` an entry per operation, `ring-compound*` the request as one compound entry. FlexSC (OSDI 2010) reported Apache +116 % (2.16x), BIND +105 %, MySQL +40 % throughput with exception-less calls, on its own hardware: a ratio to set beside `ring / sync-ipc-*`. For throughput metrics above 1 is better; for latencies below 1.",
        command: "`cargo make bench rings`",
        expect: &[
            ("sync-ipc-1cpu", TCG),
            ("sync-ipc-2cpu", TCG),
            ("sync-compound-2cpu", TCG),
            ("ring", TCG),
            ("ring-compound", TCG),
        ],
        ratios: &[
            r("ring", "sync-ipc-1cpu"),
            r("ring-compound", "sync-ipc-1cpu"),
            r("ring", "sync-ipc-2cpu"),
            r("ring-compound", "sync-ipc-2cpu"),
            r("ring-compound", "sync-compound-2cpu"),
            r("ring-1cpu", "sync-ipc-1cpu"),
            r("ring-compound-1cpu", "sync-ipc-1cpu"),
        ],
        layout: Layout::PerWorkload,
        paper: no_paper,
    },
    Section {
        title: "Boot: QEMU's start to a usable system",
        benches: &["boot"],
        about: "Host wall time from starting QEMU to the kernel banner, the shell prompt and httpd's first answer (Conflux's default system), beside Linux's boot to `/init` on the same machine.",
        command: "`cargo make bench boot`",
        expect: &[("default", TCG), ("linux", TCG)],
        ratios: &[],
        layout: Layout::MetricsAsRows {
            skip: &[],
            headline: &[
                "qemu_start_to_banner",
                "qemu_start_to_shell_prompt",
                "qemu_start_to_http_answer",
            ],
        },
        paper: no_paper,
    },
];

/// The Linux peer's command, which writes every `linux*` record.
pub const LINUX_COMMAND: &str = "`cargo make bench linux`";

/// Every command a section's records come from: its own, and the Linux
/// peer's where it expects Linux's configurations.
pub fn commands(section: &Section) -> String {
    if section.expect.iter().any(|(c, _)| c.starts_with("linux")) {
        format!("{} (Conflux), {LINUX_COMMAND} (Linux)", section.command)
    } else {
        section.command.to_owned()
    }
}

/// The command that produces records of `config` in `section`.
pub fn command_for(section: &Section, config: &str) -> &'static str {
    if config.starts_with("linux") {
        LINUX_COMMAND
    } else {
        section.command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn papers_columns_name_their_source() {
        let ls = cosy_paper(&At {
            bench: "ls-l",
            metric: "time",
            param: "5000-warm",
            mode: "icount",
        })
        .unwrap();
        assert!(
            ls.contains("VAN / COSY 1.09x") && ls.contains("VAN / COSY-FAST 6.7x"),
            "{ls}"
        );
        let bonnie = cosy_paper(&At {
            bench: "bonnie",
            metric: "time",
            param: "write",
            mode: "icount",
        })
        .unwrap();
        assert_eq!(bonnie.matches("fastread").count(), 1, "{bonnie}");
        assert!(fs_ops_paper(&At {
            bench: "fs-ops",
            metric: "time",
            param: "pread",
            mode: "icount"
        })
        .unwrap()
        .contains("3,739"));
        assert_eq!(
            fs_ops_paper(&At {
                bench: "fs-ops",
                metric: "time",
                param: "nop",
                mode: "icount"
            }),
            None
        );
        assert_eq!(
            fs_ops_paper(&At {
                bench: "fs-ops",
                metric: "time",
                param: "pread",
                mode: "tcg"
            }),
            None
        );
        assert!(flow_paper(&At {
            bench: "flow",
            metric: "packets_per_s",
            param: "64",
            mode: "tcg"
        })
        .unwrap()
        .contains("1.13x"));
        let share = At {
            bench: "flow",
            metric: "utilisation_stage-udp",
            param: "64",
            mode: "tcg",
        };
        assert_eq!(flow_paper(&share), None);
        assert!(cosy_paper(&At {
            bench: "null-loop",
            metric: "time",
            param: "2",
            mode: "icount"
        })
        .unwrap()
        .contains("1.14x"));
        assert_eq!(
            cosy_paper(&At {
                bench: "null-loop",
                metric: "time",
                param: "8",
                mode: "icount"
            }),
            None
        );
    }

    #[test]
    fn linux_records_come_from_the_linux_bench() {
        let boot = SECTIONS.iter().find(|s| s.benches == ["boot"]).unwrap();
        assert_eq!(command_for(boot, "linux"), "`cargo make bench linux`");
        assert_eq!(command_for(boot, "default"), "`cargo make bench boot`");
        assert_eq!(
            commands(boot),
            "`cargo make bench boot` (Conflux), `cargo make bench linux` (Linux)"
        );
        let rings = SECTIONS.iter().find(|s| s.benches == ["rings"]).unwrap();
        assert_eq!(commands(rings), "`cargo make bench rings`");
    }
}
