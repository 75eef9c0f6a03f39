//! In-guest tests: every manifest in `qemu/tests/` is a test system whose
//! `[test]` section says what its console must show, what it must never
//! show, and how the kernel must end. Each runs once per listed mode.

use crate::accel::{self, Accel};
use crate::{host_test, image, qemu, symbolize, workspace};
use conflux_abi::exit::Verdict;
use conflux_manifest::{Outcome, TestSpec};
use std::time::Duration;

/// Pass/fail/skip counts for the whole run.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub failures: Vec<String>,
}

/// Lines that mean the kernel itself broke; never acceptable in a passing test.
const KERNEL_BROKE: [&str; 2] = ["KERNEL FAULT", "KERNEL PANIC"];

/// The task whose console line `pattern` is (`"NAME: ..."`), if any.
fn owner<'a>(pattern: &str, tasks: &[&'a str]) -> Option<&'a str> {
    tasks
        .iter()
        .copied()
        .find(|t| pattern.strip_prefix(t).is_some_and(|r| r.starts_with(": ")))
}

/// Checks `expect` against `output` with the order that is causal.
///
/// Tasks run concurrently (the timer preempts them), so lines of different
/// tasks may interleave any way. A task's line must come after the previous
/// expected line of the same task and after the last expected kernel line
/// before it; a kernel line (not owned by a task) must come after every
/// earlier expected line.
fn check_expect(expect: &[String], tasks: &[&str], output: &str, problems: &mut Vec<String>) {
    let mut last_of: std::collections::HashMap<&str, usize> = Default::default();
    let (mut barrier, mut all) = (0usize, 0usize);
    for want in expect {
        let who = owner(want, tasks);
        let from = match who {
            Some(t) => barrier.max(last_of.get(t).copied().unwrap_or(0)),
            None => all,
        };
        match output[from..].find(want.as_str()) {
            Some(i) => {
                let end = from + i + want.len();
                all = all.max(end);
                match who {
                    Some(t) => {
                        last_of.insert(t, end);
                    }
                    None => barrier = end,
                }
            }
            None if output.contains(want.as_str()) => problems.push(format!(
                "`{want}` appeared, but before an expected line that must precede it"
            )),
            None => problems.push(format!("never printed `{want}`")),
        }
    }
}

/// Everything wrong with a run, judged against its spec. Empty means pass.
pub fn judge(spec: &TestSpec, tasks: &[&str], output: &str, status: Option<i32>) -> Vec<String> {
    let mut problems = Vec::new();
    check_expect(&spec.expect, tasks, output, &mut problems);
    for bad in &spec.forbid {
        if output.contains(bad.as_str()) {
            problems.push(format!("printed forbidden `{bad}`"));
        }
    }
    let want = match spec.outcome {
        Outcome::Pass => {
            for bad in KERNEL_BROKE {
                if output.contains(bad) {
                    problems.push(format!("kernel reported `{bad}`"));
                }
            }
            Verdict::AllTasksEnded
        }
        Outcome::KernelFault => Verdict::KernelFault,
    };
    match status {
        None => problems.push(format!(
            "timed out after {} s (hung, or the timeout is too short)",
            spec.timeout_secs
        )),
        Some(s) if Verdict::from_qemu_status(s) != Some(want) => problems.push(format!(
            "ended with: {}; expected: {}",
            qemu::verdict_text(Some(s)),
            qemu::verdict_text(Some(want.qemu_status()))
        )),
        Some(_) => {}
    }
    problems
}

fn run_system(path: &std::path::Path, tally: &mut Tally) -> Result<(), String> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let built = image::build(path)?;
    let spec = built
        .manifest
        .test
        .clone()
        .ok_or_else(|| format!("{}: a test system needs a [test] section", path.display()))?;
    for mode in &spec.modes {
        let accel = Accel::from_mode(*mode);
        if accel == Accel::Kvm && !accel::hardware_kvm() {
            println!("guest {name} [{accel}] ... skipped (no hardware KVM)");
            tally.skipped += 1;
            continue;
        }
        let mut run = qemu::run_captured(
            &built,
            accel,
            Duration::from_secs(spec.timeout_secs as u64),
            &spec.kernel_args,
        )?;
        // The runner's source lines for kernel faults count as console
        // output, so a test can check them too.
        for l in symbolize::annotate(&run.output, &built.kernel) {
            run.output.push_str(&l);
            run.output.push('\n');
        }
        let log = workspace::root().join(format!("target/test-logs/{name}.{accel}.log"));
        let _ = std::fs::create_dir_all(log.parent().expect("log has a parent"));
        let _ = std::fs::write(&log, &run.output);
        let tasks: Vec<&str> = built
            .manifest
            .tasks
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        let problems = judge(&spec, &tasks, &run.output, run.status);
        if problems.is_empty() {
            println!(
                "guest {name} [{accel}] ... ok ({:.1} s)",
                run.elapsed.as_secs_f64()
            );
            tally.passed += 1;
        } else {
            println!(
                "guest {name} [{accel}] ... FAILED ({:.1} s)",
                run.elapsed.as_secs_f64()
            );
            for p in &problems {
                println!("    - {p}");
            }
            println!("    console log: {}; last lines:", log.display());
            let lines: Vec<&str> = run.output.lines().collect();
            for l in &lines[lines.len().saturating_sub(15)..] {
                println!("    | {l}");
            }
            tally.failed += 1;
            tally.failures.push(format!("guest {name} [{accel}]"));
        }
    }
    Ok(())
}

/// Host tests (unless filtered), then every guest test; prints one closing tally line.
pub fn run_all(filter: Option<&str>) -> Result<(), String> {
    let mut tally = Tally::default();
    if filter.is_none() {
        host_test::run(&mut tally);
    }
    qemu::find_qemu()?;
    for path in workspace::manifests_in(&workspace::tests_dir()) {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        if let Err(e) = run_system(&path, &mut tally) {
            println!("guest {name} ... FAILED\n    - {e}");
            tally.failed += 1;
            tally.failures.push(format!("guest {name}"));
        }
    }
    println!();
    for f in &tally.failures {
        println!("failed: {f}");
    }
    let skipped = if tally.skipped > 0 {
        format!(", {} skipped", tally.skipped)
    } else {
        String::new()
    };
    println!("{} passed, {} failed{skipped}", tally.passed, tally.failed);
    if tally.failed > 0 {
        return Err(format!("{} test(s) failed", tally.failed));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(expect: &[&str], forbid: &[&str], outcome: Outcome) -> TestSpec {
        TestSpec {
            timeout_secs: 5,
            modes: vec![conflux_manifest::Mode::Tcg],
            expect: expect.iter().map(|s| s.to_string()).collect(),
            forbid: forbid.iter().map(|s| s.to_string()).collect(),
            outcome,
            kernel_args: String::new(),
            allow_mmio_in_ram: false,
        }
    }

    const PASS: Option<i32> = Some(99);

    #[test]
    fn passes_when_lines_appear_in_order() {
        assert!(judge(&spec(&["a", "b"], &[], Outcome::Pass), &[], "a\nb\n", PASS).is_empty());
    }

    #[test]
    fn reports_order_missing_forbidden_and_exit() {
        let p = judge(
            &spec(&["b", "a"], &["zzz"], Outcome::Pass),
            &[],
            "a\nb zzz\n",
            Some(1),
        );
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("before an expected line"));
        assert!(p[1].contains("forbidden `zzz`"));
        assert!(p[2].contains("status 1"));
        let p = judge(&spec(&["x"], &[], Outcome::Pass), &[], "", None);
        assert!(p[0].contains("never printed `x`") && p[1].contains("timed out"));
    }

    #[test]
    fn task_lines_are_ordered_per_task_and_after_kernel_barriers() {
        let tasks = ["a", "b"];
        let s = spec(&["up", "a: 1", "b: 1", "a: 2", "end"], &[], Outcome::Pass);
        // Tasks interleaved the other way round: still a pass.
        assert!(judge(&s, &tasks, "up\nb: 1\na: 1\na: 2\nend\n", PASS).is_empty());
        // A task line before the kernel line that precedes it: a failure.
        assert_eq!(
            judge(&s, &tasks, "a: 1\nup\nb: 1\na: 2\nend\n", PASS).len(),
            1
        );
        // A kernel line before a task line listed earlier: a failure.
        assert_eq!(
            judge(&s, &tasks, "up\na: 1\nb: 1\nend\na: 2\n", PASS).len(),
            1
        );
    }

    #[test]
    fn kernel_fault_fails_a_pass_test_and_passes_a_fault_test() {
        let out = "conflux: KERNEL PANIC at x.rs:1: boom\n";
        assert!(!judge(&spec(&[], &[], Outcome::Pass), &[], out, Some(101)).is_empty());
        assert!(judge(
            &spec(&["boom"], &[], Outcome::KernelFault),
            &[],
            out,
            Some(101)
        )
        .is_empty());
    }
}
