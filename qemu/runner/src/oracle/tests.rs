//! The oracle's rules, and the spoofs it must see through: a task printing
//! another task's line or the kernel's, and a line spliced onto another
//! writer's unfinished line.

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
        nmi_after_ms: vec![],
        crash: None,
        input: String::new(),
        http: vec![],
        udp: vec![],
        tcp_sink: vec![],
        network: None,
        listen: vec![],
    }
}

const PASS: Option<i32> = Some(99);
const TASKS: [&str; 2] = ["client", "evil"];

/// Problems when `output` of a system with `tasks` is judged against `expect` alone.
fn problems_of(tasks: &[&str], expect: &[&str], output: &str) -> Vec<String> {
    judge(&spec(expect, &[], Outcome::Pass), tasks, output, PASS)
}

fn problems(expect: &[&str], output: &str) -> Vec<String> {
    problems_of(&TASKS, expect, output)
}

#[test]
fn passes_when_lines_appear_in_order() {
    let out = "conflux: a\nclient: ok: b\nconflux: c\n";
    assert_eq!(
        problems(&["a", "client: ok: b", "c"], out),
        Vec::<String>::new()
    );
}

#[test]
fn reports_order_missing_forbidden_and_exit() {
    let p = judge(
        &spec(&["b", "a"], &["zzz"], Outcome::Pass),
        &[],
        "conflux: a\nconflux: b zzz\n",
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
    let judge = |out| judge(&s, &tasks, out, PASS);
    // Tasks interleaved the other way round: still a pass.
    let out = "conflux: up\nb: 1\na: 1\na: 2\nconflux: end\n";
    assert!(judge(out).is_empty());
    // A task line before the kernel line that precedes it: a failure.
    assert_eq!(
        judge("a: 1\nconflux: up\nb: 1\na: 2\nconflux: end\n").len(),
        1
    );
    // A kernel line before a task line listed earlier: a failure.
    assert_eq!(
        judge("conflux: up\na: 1\nb: 1\nconflux: end\na: 2\n").len(),
        1
    );
}

#[test]
fn a_kernel_line_is_matched_piece_by_piece() {
    let out = "conflux: task 'x' faulted: page fault, error code 0x4 [user read], address 0x0; task stopped\n";
    let want = [
        "task 'x' faulted: ",
        "error code 0x4",
        "address 0x0",
        "task stopped",
    ];
    assert!(problems(&want, out).is_empty());
    // The pieces keep their order within the line.
    assert_eq!(problems(&["task stopped", "address 0x0"], out).len(), 1);
}

#[test]
fn a_task_line_matches_its_start_and_may_go_on() {
    let out = "client: ok: capability transfer: Ok(())\n";
    assert!(problems(&["client: ok: capability transfer"], out).is_empty());
}

#[test]
fn the_runners_own_lines_count_as_kernel_lines() {
    let out = "conflux: KERNEL PANIC at x.rs:1: boom\nconflux: kernel fault at 0x1 is kernel/kernel/src/selftest.rs:20\n";
    let s = spec(&["boom", "selftest.rs:20"], &[], Outcome::KernelFault);
    assert!(judge(&s, &TASKS, out, Some(101)).is_empty());
}

#[test]
fn another_tasks_line_does_not_satisfy_a_tasks_expectation() {
    let p = problems(&["client: ok: done"], "evil: client: ok: done\n");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("must be printed by task `client`"), "{p:?}");
    assert!(p[0].contains("`evil: client: ok: done`"), "{p:?}");
}

#[test]
fn a_line_spliced_onto_an_unfinished_line_does_not_count() {
    // What the console showed before it kept a global line state: task
    // `evil` printed "x" and later a line that looks like the client's.
    let p = problems(&["client: ok: done"], "evil: xclient: ok: done\n");
    assert_eq!(p.len(), 1, "{p:?}");
    // Nor does a kernel line continued by a task.
    let out = "conflux: task 'client' exitedall tasks ended: 2 exited\n";
    assert!(problems(&["all tasks ended: 2 exited"], out).is_empty());
    let out = "evil: xconflux: all tasks ended: 2 exited\n";
    assert_eq!(problems(&["all tasks ended: 2 exited"], out).len(), 1);
}

#[test]
fn a_task_cannot_print_a_kernel_line() {
    for out in [
        "evil: all tasks ended: 2 exited\n",
        "evil: conflux: all tasks ended: 2 exited\n",
        "client: ok: all tasks ended: 2 exited\n",
    ] {
        let p = problems(&["all tasks ended: 2 exited"], out);
        assert_eq!(p.len(), 1, "{out:?}: {p:?}");
        assert!(p[0].contains("must be printed by the kernel"), "{p:?}");
    }
}

#[test]
fn a_task_line_is_matched_piece_by_piece() {
    let out = "init: task 'server' faulted (vector 14, rip 0x20); restarting it\n";
    let want = [
        "init: task 'server' faulted (vector 14",
        "init: restarting it",
    ];
    assert!(problems_of(&["init"], &want, out).is_empty());
    let p = problems_of(
        &["init"],
        &["init: restarting it", "init: task 'server'"],
        out,
    );
    assert_eq!(p.len(), 1, "{p:?}");
}

#[test]
fn unknown_lines_satisfy_nothing() {
    let out = "[qemu stderr]\nall tasks ended: 2 exited\nclient: ok\n";
    assert_eq!(problems(&["all tasks ended"], out).len(), 1);
}

#[test]
fn every_test_forbids_check_failed_once() {
    let out = "conflux: up\nclient: CHECK FAILED: x: got 1, expected 2\n";
    let p = problems(&["up"], out);
    assert_eq!(p, ["printed forbidden `CHECK FAILED`"]);
    let listed = spec(&["up"], &["CHECK FAILED"], Outcome::Pass);
    assert_eq!(judge(&listed, &TASKS, out, PASS).len(), 1);
}

#[test]
fn forbidden_text_counts_anywhere() {
    let p = judge(
        &spec(&["up"], &["secret"], Outcome::Pass),
        &TASKS,
        "conflux: up\nevil: xsecret\n",
        PASS,
    );
    assert_eq!(p, ["printed forbidden `secret`"]);
}

#[test]
fn a_task_named_like_the_kernel_is_refused() {
    let p = judge(
        &spec(&["up"], &[], Outcome::Pass),
        &["conflux"],
        "conflux: up\n",
        PASS,
    );
    assert!(p[0].contains("rename it"), "{p:?}");
}

#[test]
fn kernel_fault_fails_a_pass_test_and_passes_a_fault_test() {
    let out = "conflux: KERNEL PANIC at x.rs:1: boom\n";
    assert!(!judge(&spec(&["boom"], &[], Outcome::Pass), &[], out, Some(101)).is_empty());
    let fault = spec(&["boom"], &[], Outcome::KernelFault);
    assert!(judge(&fault, &[], out, Some(101)).is_empty());
}

#[test]
fn power_off_passes_only_on_qemu_status_zero_without_kernel_trouble() {
    let off = spec(&["bye"], &[], Outcome::PowerOff);
    assert!(judge(&off, &[], "conflux: bye\n", Some(0)).is_empty());
    let p = judge(&off, &[], "conflux: bye\n", PASS);
    assert!(p[0].contains("powers the machine off"), "{p:?}");
    let p = judge(&off, &[], "conflux: bye\n", None);
    assert!(p[0].contains("never powered off"), "{p:?}");
    let broke = "conflux: bye\nconflux: KERNEL PANIC at x.rs:1: boom\n";
    assert!(!judge(&off, &[], broke, Some(0)).is_empty());
}

#[test]
fn a_serving_system_passes_only_when_the_runner_stopped_it() {
    let serving = spec(&["up"], &[], Outcome::Serving);
    assert!(judge_end(&serving, &[], "conflux: up\n", None, true).is_empty());
    let timed_out = judge_end(&serving, &[], "conflux: up\n", None, false);
    assert_eq!(timed_out.len(), 1);
    assert!(
        timed_out[0].starts_with("timed out after 5 s before"),
        "{timed_out:?}"
    );
    let ended = judge_end(&serving, &[], "conflux: up\n", PASS, false);
    assert!(
        ended[0].contains("a serving system must keep running"),
        "{ended:?}"
    );
    let broke = judge_end(
        &serving,
        &[],
        "conflux: up\nconflux: KERNEL PANIC\n",
        None,
        true,
    );
    assert_eq!(broke, ["kernel reported `KERNEL PANIC`"]);
    let missing = judge_end(&serving, &[], "conflux: down\n", None, true);
    assert_eq!(missing, ["never printed `up`"]);
}

#[test]
fn expect_met_follows_the_oracles_order_and_owners() {
    let expect = ["client: a".to_owned(), "b".to_owned()];
    assert!(expect_met(&expect, &TASKS, "client: a\nconflux: b\n"));
    assert!(!expect_met(&expect, &TASKS, "conflux: b\nclient: a\n"));
    assert!(!expect_met(
        &expect,
        &TASKS,
        "evil: client: a\nconflux: b\n"
    ));
}
