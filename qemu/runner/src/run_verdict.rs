//! Whether an interactive run (`cargo make run`) went wrong, so that the
//! command's exit status says so: a script or CI step that boots a system
//! must fail when a task failed or the kernel faulted, not only print it.
//!
//! Judged from QEMU's exit status (the kernel's `isa-debug-exit` verdict)
//! and the kernel's console lines, which always start `conflux: `:
//! `task 'T' faulted: ...`, `task 'T' panicked (...)` (a panic ends a task
//! as a fault does), `task 'T' exited with code N`, `boot failed: ...`,
//! `all tasks ended: ..., N failed to start, ...`, and `KERNEL FAULT` /
//! `KERNEL PANIC`. A task that faulted or panicked counts even when its
//! supervisor restarted it. Quitting
//! with Ctrl-A X (status 0) is no failure by itself.

use conflux_abi::exit::Verdict;

/// The kernel's prefix on its console lines.
const KERNEL: &str = "conflux: ";

/// What went wrong in a run that printed `output` and ended with QEMU
/// `status` (`None`: killed by a signal); empty when nothing did.
pub fn problems(output: &str, status: Option<i32>) -> Vec<String> {
    let mut found = Vec::new();
    match status.map(|s| (s, Verdict::from_qemu_status(s))) {
        Some((_, Some(Verdict::KernelFault))) => {
            found.push("the kernel faulted or panicked (see its report above)".to_owned())
        }
        Some((_, Some(Verdict::AllTasksEnded))) | Some((0, None)) => {}
        Some((s, None)) => found.push(format!("QEMU exited with status {s}")),
        None => found.push("QEMU was killed by a signal".to_owned()),
    }
    for line in output.lines() {
        let line = line.trim_end_matches('\r');
        let Some(text) = line.strip_prefix(KERNEL) else {
            continue;
        };
        if let Some(problem) = kernel_line(text) {
            found.push(problem);
        }
    }
    found
}

/// The problem one kernel console line (without its prefix) reports.
fn kernel_line(text: &str) -> Option<String> {
    if let Some(rest) = text.strip_prefix("task '") {
        let (task, what) = rest.split_once("' ")?;
        if what.starts_with("faulted:") {
            return Some(format!("task '{task}' faulted"));
        }
        if what.starts_with("panicked") {
            return Some(format!("task '{task}' panicked"));
        }
        let code = what.strip_prefix("exited with code ")?;
        return match code.trim() {
            "0" => None,
            other => Some(format!("task '{task}' exited with code {other}")),
        };
    }
    if text.starts_with("boot failed:")
        || text.contains("KERNEL FAULT")
        || text.contains("KERNEL PANIC")
    {
        return Some(format!("the kernel reported `{text}`"));
    }
    let counts = text.strip_prefix("all tasks ended: ")?;
    let failed = counts
        .split(", ")
        .find_map(|part| part.strip_suffix(" failed to start"))?;
    (failed != "0").then(|| format!("{failed} task(s) failed to start"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENDED: i32 = 99;

    #[test]
    fn a_clean_run_has_no_problem() {
        let out = "conflux: system 'default' up: 3 tasks\nhello: hi\nconflux: task 'hello' exited with code 0\n\
            conflux: all tasks ended: 3 exited, 0 stopped after a fault, 0 failed to start, 0 blocked forever\n";
        assert!(problems(out, Some(ENDED)).is_empty());
        assert!(problems("", Some(0)).is_empty(), "Ctrl-A X");
    }

    #[test]
    fn task_failures_are_each_named() {
        let out = "conflux: task 'srv' faulted: page fault at 0x0; task stopped, other tasks continue\r\n\
            conflux: task 'cli' panicked (its last console line says where and why); task stopped, other tasks continue\n\
            cli: conflux: task 'forged' panicked (printed by a task)\n\
            conflux: task 'x' exited with code 3\n\
            cli: conflux: task 'forged' faulted: printed by a task\n\
            conflux: all tasks ended: 1 exited, 1 stopped after a fault, 2 failed to start, 0 blocked forever\n";
        assert_eq!(
            problems(out, Some(ENDED)),
            [
                "task 'srv' faulted",
                "task 'cli' panicked",
                "task 'x' exited with code 3",
                "2 task(s) failed to start",
            ]
        );
    }

    #[test]
    fn the_kernel_and_qemu_failing_count() {
        let fault = Verdict::KernelFault.qemu_status();
        assert_eq!(
            problems("conflux: KERNEL PANIC at x.rs:1\n", Some(fault)),
            [
                "the kernel faulted or panicked (see its report above)",
                "the kernel reported `KERNEL PANIC at x.rs:1`"
            ]
        );
        assert_eq!(problems("", Some(1)), ["QEMU exited with status 1"]);
        assert_eq!(problems("", None), ["QEMU was killed by a signal"]);
        assert_eq!(
            problems("conflux: boot failed: no initrd\n", Some(fault))[1],
            "the kernel reported `boot failed: no initrd`"
        );
    }
}
