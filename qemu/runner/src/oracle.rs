//! The test oracle: judges a guest test's console output against its
//! `[test]` table.
//!
//! Every console line says who wrote it: the kernel console starts a task's
//! lines with `NAME: ` and its own with `conflux: ` (the runner's lines
//! added to the output use that prefix too), and never lets one writer
//! continue another's line. The oracle relies on it. An expected line owned
//! by task T (`"T: ..."`) is looked for only in lines T printed, and one
//! without an owner only in kernel lines, so a task
//! cannot satisfy another task's expectation, or the kernel's, whatever it
//! prints. Forbidden text is looked for anywhere: there, more places only
//! make the check stricter.

use conflux_abi::exit::Verdict;
use conflux_manifest::{Outcome, TestSpec};
use std::collections::HashMap;

/// The prefix of the kernel's console lines (and the runner's).
const KERNEL_PREFIX: &str = "conflux: ";

/// Lines that mean the kernel itself broke; never acceptable in a passing test.
const KERNEL_BROKE: [&str; 2] = ["KERNEL FAULT", "KERNEL PANIC"];

/// Forbidden in every test: a test task's check failed (`testing::Checks`).
const ALWAYS_FORBIDDEN: [&str; 1] = ["CHECK FAILED"];

/// Who wrote a console line, or owns an expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Writer<'t> {
    Kernel,
    Task(&'t str),
    /// Not a console line of anyone the oracle knows (QEMU's own stderr).
    Unknown,
}

impl Writer<'_> {
    fn describe(self) -> String {
        match self {
            Writer::Kernel => format!("the kernel (lines starting with `{KERNEL_PREFIX}`)"),
            Writer::Task(t) => format!("task `{t}` (lines starting with `{t}: `)"),
            Writer::Unknown => "no known writer".into(),
        }
    }
}

/// The task whose lines start like `text` (`"NAME: ..."`). Task names are
/// letters, digits, `-` and `_`, so at most one task can match.
fn task_of<'t>(text: &str, tasks: &[&'t str]) -> Option<&'t str> {
    tasks
        .iter()
        .copied()
        .find(|t| text.strip_prefix(t).is_some_and(|r| r.starts_with(": ")))
}

/// Who must have printed the expected line `pattern`.
fn owner<'t>(pattern: &str, tasks: &[&'t str]) -> Writer<'t> {
    task_of(pattern, tasks).map_or(Writer::Kernel, Writer::Task)
}

/// One console line and where it starts in the output.
struct Line<'o, 't> {
    start: usize,
    text: &'o str,
    writer: Writer<'t>,
}

fn lines<'o, 't>(output: &'o str, tasks: &[&'t str]) -> Vec<Line<'o, 't>> {
    let mut start = 0;
    output
        .split_inclusive('\n')
        .map(|raw| {
            let text = raw.strip_suffix('\n').unwrap_or(raw);
            let writer = match task_of(text, tasks) {
                Some(t) => Writer::Task(t),
                None if text.starts_with(KERNEL_PREFIX) => Writer::Kernel,
                None => Writer::Unknown,
            };
            let line = Line {
                start,
                text,
                writer,
            };
            start += raw.len();
            line
        })
        .collect()
}

/// Where the first match of `want` by `who` at or after `from` ends.
///
/// An expectation is text inside one line of its writer: for a task's
/// (`"T: text"`), `text` after the `T: ` of one of T's lines; for the
/// kernel's, anywhere in one of its lines. Several expectations may match
/// pieces of one line, in order (a fault report is one long line).
fn find(lines: &[Line<'_, '_>], want: &str, who: Writer<'_>, from: usize) -> Option<usize> {
    let (prefix_len, body) = match who {
        Writer::Task(t) => (t.len() + 2, &want[t.len() + 2..]),
        _ => (0, want),
    };
    lines
        .iter()
        .filter(|l| l.writer == who && l.start + l.text.len() >= from)
        .find_map(|l| {
            let skip = from.saturating_sub(l.start).max(prefix_len);
            let i = l.text.get(skip..)?.find(body)?;
            Some(l.start + skip + i + body.len())
        })
}

/// Why `want`, owned by `who`, was not found where it had to be.
fn missing(lines: &[Line<'_, '_>], want: &str, who: Writer<'_>) -> String {
    if find(lines, want, who, 0).is_some() {
        return format!("`{want}` appeared, but before an expected line that must precede it");
    }
    let others: Vec<String> = lines
        .iter()
        .filter(|l| l.text.contains(want))
        .map(|l| format!("`{}`", l.text))
        .take(3)
        .collect();
    if others.is_empty() {
        return format!("never printed `{want}`");
    }
    format!(
        "`{want}` must be printed by {}, but appeared only in: {} (lines of another writer cannot stand in for it)",
        who.describe(),
        others.join(", ")
    )
}

/// Checks `expect` against `output` with the order that is causal.
///
/// Tasks run concurrently (the timer preempts them), so lines of different
/// tasks may interleave any way. A task's line must come after the previous
/// expected line of the same task and after the last expected kernel line
/// before it; a kernel line (not owned by a task) must come after every
/// earlier expected line.
fn check_expect(expect: &[String], tasks: &[&str], output: &str, problems: &mut Vec<String>) {
    let lines = lines(output, tasks);
    let mut last_of: HashMap<&str, usize> = HashMap::new();
    let (mut barrier, mut all) = (0usize, 0usize);
    for want in expect {
        let who = owner(want, tasks);
        let from = match who {
            Writer::Task(t) => barrier.max(last_of.get(t).copied().unwrap_or(0)),
            _ => all,
        };
        let Some(end) = find(&lines, want, who, from) else {
            problems.push(missing(&lines, want, who));
            continue;
        };
        all = all.max(end);
        match who {
            Writer::Task(t) => {
                last_of.insert(t, end);
            }
            _ => barrier = end,
        }
    }
}

/// Forbidden text anywhere in the output: the manifest's list and
/// [`ALWAYS_FORBIDDEN`], each reported once.
fn check_forbid(forbid: &[String], output: &str, problems: &mut Vec<String>) {
    let listed = forbid.iter().map(String::as_str);
    let always = ALWAYS_FORBIDDEN
        .into_iter()
        .filter(|a| !forbid.iter().any(|f| f == a));
    for bad in listed.chain(always) {
        if output.contains(bad) {
            problems.push(format!("printed forbidden `{bad}`"));
        }
    }
}

/// Whether every expected line of `expect` is on the console `output`,
/// by the rules of [`judge`] (a serving system is stopped only then).
pub fn expect_met(expect: &[String], tasks: &[&str], output: &str) -> bool {
    let mut problems = Vec::new();
    check_expect(expect, tasks, output, &mut problems);
    problems.is_empty()
}

/// Everything wrong with a run that ended by itself or timed out (status
/// `None`), judged against its spec. Empty means pass.
pub fn judge(spec: &TestSpec, tasks: &[&str], output: &str, status: Option<i32>) -> Vec<String> {
    judge_end(spec, tasks, output, status, false)
}

/// [`judge`], for a run the runner may have `stopped` on purpose (a
/// serving system, once its exchanges were judged and its expected lines
/// were out): that is how a serving system must end, and no other.
pub fn judge_end(
    spec: &TestSpec,
    tasks: &[&str],
    output: &str,
    status: Option<i32>,
    stopped: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    if tasks.contains(&"conflux") {
        problems.push("a task is named `conflux`, the kernel's console prefix, so its lines cannot be told from the kernel's: rename it in the manifest".into());
    }
    check_expect(&spec.expect, tasks, output, &mut problems);
    check_forbid(&spec.forbid, output, &mut problems);
    let want = match spec.outcome {
        Outcome::Serving => {
            serving_end(spec, output, status, stopped, &mut problems);
            return problems;
        }
        Outcome::Pass | Outcome::PowerOff => {
            for bad in KERNEL_BROKE {
                if output.contains(bad) {
                    problems.push(format!("kernel reported `{bad}`"));
                }
            }
            Verdict::AllTasksEnded
        }
        Outcome::KernelFault => Verdict::KernelFault,
    };
    if spec.outcome == Outcome::PowerOff {
        match status {
            None => problems.push(format!(
                "timed out after {} s: the guest never powered off (hung, or the timeout is too short)",
                spec.timeout_secs
            )),
            Some(0) => {}
            Some(s) => problems.push(format!(
                "ended with: {}; expected: the guest powers the machine off (QEMU status 0)",
                crate::qemu::verdict_text(Some(s))
            )),
        }
        return problems;
    }
    match status {
        None => problems.push(format!(
            "timed out after {} s (hung, or the timeout is too short)",
            spec.timeout_secs
        )),
        Some(s) if Verdict::from_qemu_status(s) != Some(want) => problems.push(format!(
            "ended with: {}; expected: {}",
            crate::qemu::verdict_text(Some(s)),
            crate::qemu::verdict_text(Some(want.qemu_status()))
        )),
        Some(_) => {}
    }
    problems
}

/// A serving system must have been stopped by the runner, and its kernel
/// must not have broken.
fn serving_end(
    spec: &TestSpec,
    output: &str,
    status: Option<i32>,
    stopped: bool,
    problems: &mut Vec<String>,
) {
    for bad in KERNEL_BROKE {
        if output.contains(bad) {
            problems.push(format!("kernel reported `{bad}`"));
        }
    }
    match (stopped, status) {
        (true, _) => {}
        (false, None) => problems.push(format!(
            "timed out after {} s before every exchange was judged and every expected line was out (a serving system is stopped only then)",
            spec.timeout_secs
        )),
        (false, Some(s)) => problems.push(format!(
            "ended by itself with: {}; a serving system must keep running until the runner stops it",
            crate::qemu::verdict_text(Some(s))
        )),
    }
}

#[cfg(test)]
mod tests;
