//! Issue 25's targets, judged from the figures (icount only: exact
//! instruction counts, the one mode where a small margin means
//! something). Each target is met, missed by a stated amount, or has no
//! records yet, with the command that would produce them.
//!
//! - COSY-FAST cheaper than Linux's syscalls and its io_uring on ls -l,
//!   grep, dbsim and cached 4 KiB reads (fs-ops `pread`), at every
//!   parameter both sides measured; the worst parameter decides.
//! - A Conflux call/reply round trip (`ipc`, `call_reply_roundtrip`,
//!   median) at most 1.5x Linux's getpid and at most 1/20 of its pipe
//!   round trip (the Linux peer's `ipc` metrics whose names contain
//!   `getpid` and `pipe`).

use crate::figures::{Figure, Figures};
use crate::table::is_linux;

const MODE: &str = "icount";
const FAST: &str = "COSY-FAST";
const LINUX: [&str; 2] = ["linux-syscall", "linux-io_uring"];
/// The IPC targets' ratios.
const GETPID_LIMIT: f64 = 1.5;
const PIPE_LIMIT: f64 = 1.0 / 20.0;

/// How a target stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Met(String),
    Missed(String),
    NoRecords(String),
}

/// One target's line in the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub goal: String,
    pub verdict: Verdict,
}

/// A workload the cost target covers: its label, bench, metric and the
/// one parameter it is about (`None`: all).
struct Workload {
    label: &'static str,
    bench: &'static str,
    metric: &'static str,
    param: Option<&'static str>,
    command: &'static str,
}

const WORKLOADS: [Workload; 4] = [
    Workload {
        label: "ls -l",
        bench: "ls-l",
        metric: "time",
        param: None,
        command: "cargo make bench cosy",
    },
    Workload {
        label: "grep",
        bench: "grep",
        metric: "time",
        param: None,
        command: "cargo make bench cosy",
    },
    Workload {
        label: "dbsim",
        bench: "dbsim",
        metric: "time",
        param: None,
        command: "cargo make bench cosy",
    },
    Workload {
        label: "cached 4 KiB reads",
        bench: "fs-ops",
        metric: "instructions_per_op",
        param: Some("pread"),
        command: "cargo make bench fs-ops",
    },
];

/// Every target's verdict.
pub fn evaluate(figures: &Figures) -> Vec<Target> {
    let mut out = Vec::new();
    for w in &WORKLOADS {
        for linux in LINUX {
            out.push(Target {
                goal: format!("COSY-FAST cheaper than {linux} on {}", w.label),
                verdict: cheaper(figures, w, linux),
            });
        }
    }
    out.extend(ipc(figures));
    out
}

fn cheaper(figures: &Figures, w: &Workload, linux: &str) -> Verdict {
    let ours: Vec<(&str, &Figure)> = figures
        .iter()
        .filter(|(k, _)| {
            k.bench == w.bench
                && k.config == FAST
                && k.metric == w.metric
                && k.mode == MODE
                && w.param.is_none_or(|p| k.param == p)
        })
        .map(|(k, f)| (k.param.as_str(), f))
        .collect();
    if ours.is_empty() {
        return Verdict::NoRecords(format!(
            "no {FAST} `{}` records under {MODE}: `{}`",
            w.bench, w.command
        ));
    }
    let pairs: Vec<(&str, f64, f64)> = ours
        .iter()
        .filter_map(|(p, f)| {
            let theirs = figures.get(w.bench, linux, p, w.metric, MODE)?;
            Some((*p, f.value, theirs.value))
        })
        .collect();
    let Some(&(param, fast, other)) = pairs
        .iter()
        .max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)))
    else {
        return Verdict::NoRecords(format!(
            "no {linux} `{}` records under {MODE} at {FAST}'s parameters: `cargo make bench linux`",
            w.bench
        ));
    };
    let coverage = if pairs.len() < ours.len() {
        format!(
            " (compared at {} of {FAST}'s {} parameters)",
            pairs.len(),
            ours.len()
        )
    } else {
        String::new()
    };
    let ratio = fast / other;
    if ratio < 1.0 {
        Verdict::Met(format!(
            "worst parameter `{param}`: {} vs {}, {ratio:.2}x{coverage}",
            count(fast),
            count(other)
        ))
    } else {
        Verdict::Missed(format!(
            "by {:.0} % at `{param}`: {} vs {} instructions ({ratio:.2}x){coverage}",
            (ratio - 1.0) * 100.0,
            count(fast),
            count(other)
        ))
    }
}

/// A Linux `ipc` figure under icount whose metric contains `word`: the
/// median where there is one.
fn linux_ipc<'f>(figures: &'f Figures, word: &str) -> Option<(String, &'f Figure)> {
    let found: Vec<_> = figures
        .iter()
        .filter(|(k, _)| {
            k.bench == "ipc" && is_linux(&k.config) && k.mode == MODE && k.metric.contains(word)
        })
        .collect();
    let pick = found
        .iter()
        .find(|(k, _)| k.param == "median")
        .or(found.first())?;
    Some((
        format!("{} {} ({})", pick.0.config, pick.0.metric, pick.0.param),
        pick.1,
    ))
}

fn ipc(figures: &Figures) -> Vec<Target> {
    let ours = figures
        .iter()
        .find(|(k, _)| {
            k.bench == "ipc"
                && !is_linux(&k.config)
                && k.metric == "call_reply_roundtrip"
                && k.param == "median"
                && k.mode == MODE
        })
        .map(|(_, f)| f.value);
    let mut out = Vec::new();
    for (word, limit, goal) in [
        ("getpid", GETPID_LIMIT, "IPC round trip ≤ 1.5x Linux getpid"),
        (
            "pipe",
            PIPE_LIMIT,
            "IPC round trip ≤ 1/20 of a Linux pipe round trip",
        ),
    ] {
        let verdict = match (ours, linux_ipc(figures, word)) {
            (None, _) => Verdict::NoRecords(format!(
                "no Conflux `ipc` call_reply_roundtrip median under {MODE}: `cargo make bench ipc`"
            )),
            (_, None) => Verdict::NoRecords(format!(
                "no Linux `ipc` {word} record under {MODE}: `cargo make bench linux`"
            )),
            (Some(ours), Some((what, theirs))) => {
                let ratio = ours / theirs.value;
                let bound = theirs.value * limit;
                let said = format!(
                    "{} vs {what} {} = {}",
                    count(ours),
                    count(theirs.value),
                    ratio_text(ratio)
                );
                if ratio <= limit {
                    Verdict::Met(said)
                } else {
                    Verdict::Missed(format!(
                        "by {} instructions ({:.0} % over the bound of {}): {said}",
                        count(ours - bound),
                        (ours / bound - 1.0) * 100.0,
                        count(bound)
                    ))
                }
            }
        };
        out.push(Target {
            goal: goal.into(),
            verdict,
        });
    }
    out
}

/// `1.48x`, or `1/27` for ratios below one half.
fn ratio_text(r: f64) -> String {
    if r < 0.5 && r > 0.0 {
        format!("1/{:.0}", 1.0 / r)
    } else {
        format!("{r:.2}x")
    }
}

/// An instruction count with thousands separators.
pub fn count(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    fn rec(bench: &str, config: &str, param: &str, metric: &str, value: f64) -> Record {
        Record {
            bench: bench.into(),
            config: config.into(),
            param: param.into(),
            metric: metric.into(),
            value,
            unit: "instructions".into(),
            mode: "icount".into(),
            run: None,
            line: 0,
        }
    }

    fn verdict<'t>(targets: &'t [Target], goal: &str) -> &'t Verdict {
        &targets
            .iter()
            .find(|t| t.goal == goal)
            .unwrap_or_else(|| panic!("no target {goal}"))
            .verdict
    }

    #[test]
    fn the_worst_parameter_decides_and_the_miss_is_measured() {
        let records = [
            rec("grep", "COSY-FAST", "1MiB", "time", 900.0),
            rec("grep", "COSY-FAST", "2MiB", "time", 2400.0),
            rec("grep", "linux-syscall", "1MiB", "time", 1000.0),
            rec("grep", "linux-syscall", "2MiB", "time", 2000.0),
            rec("grep", "linux-io_uring", "1MiB", "time", 1000.0),
            rec("ls-l", "COSY-FAST", "5000-warm", "time", 90.0),
            rec("ls-l", "linux-syscall", "5000-warm", "time", 100.0),
        ];
        let t = evaluate(&Figures::of(&records));
        assert_eq!(t.len(), 10);
        let Verdict::Missed(why) = verdict(&t, "COSY-FAST cheaper than linux-syscall on grep")
        else {
            panic!("grep against syscalls should be missed")
        };
        assert!(
            why.starts_with("by 20 % at `2MiB`: 2,400 vs 2,000"),
            "{why}"
        );
        let Verdict::Met(why) = verdict(&t, "COSY-FAST cheaper than linux-io_uring on grep") else {
            panic!("grep against io_uring should be met")
        };
        assert!(
            why.contains("compared at 1 of COSY-FAST's 2 parameters"),
            "{why}"
        );
        assert!(matches!(
            verdict(&t, "COSY-FAST cheaper than linux-syscall on ls -l"),
            Verdict::Met(_)
        ));
        let Verdict::NoRecords(why) = verdict(&t, "COSY-FAST cheaper than linux-io_uring on ls -l")
        else {
            panic!("no io_uring ls -l records")
        };
        assert!(why.contains("cargo make bench linux"), "{why}");
        let Verdict::NoRecords(why) = verdict(&t, "COSY-FAST cheaper than linux-syscall on dbsim")
        else {
            panic!("no dbsim records")
        };
        assert!(why.contains("cargo make bench cosy"), "{why}");
    }

    #[test]
    fn ipc_round_trips_against_getpid_and_pipes() {
        let mut records = vec![
            rec("ipc", "1cpu", "median", "call_reply_roundtrip", 474.0),
            rec("ipc", "linux-syscall", "median", "getpid", 300.0),
            rec("ipc", "linux-syscall", "median", "pipe_roundtrip", 13000.0),
        ];
        let t = evaluate(&Figures::of(&records));
        let Verdict::Missed(why) = verdict(&t, "IPC round trip ≤ 1.5x Linux getpid") else {
            panic!("474 > 450 should miss")
        };
        assert!(
            why.starts_with("by 24 instructions (5 % over the bound of 450)"),
            "{why}"
        );
        let Verdict::Met(why) = verdict(&t, "IPC round trip ≤ 1/20 of a Linux pipe round trip")
        else {
            panic!("474 < 650 should be met")
        };
        assert!(why.contains("1/27"), "{why}");
        records.push(rec("ipc", "linux-syscall", "median", "getpid", 321.0));
        let t = evaluate(&Figures::of(&records));
        assert!(matches!(
            verdict(&t, "IPC round trip ≤ 1.5x Linux getpid"),
            Verdict::Met(_)
        ));
        let none = evaluate(&Figures::of(&records[..1]));
        let Verdict::NoRecords(why) = verdict(&none, "IPC round trip ≤ 1.5x Linux getpid") else {
            panic!("no Linux records")
        };
        assert!(why.contains("cargo make bench linux"), "{why}");
    }

    #[test]
    fn counts_have_separators() {
        assert_eq!(count(175_146_756_235.0), "175,146,756,235");
        assert_eq!(count(474.0), "474");
        assert_eq!(count(-1200.0), "-1,200");
    }
}
