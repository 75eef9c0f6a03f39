use super::phases::{parse_trace, vm_start, Milestones, Table};
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn trace_lines_give_their_count_and_milestone() {
    assert_eq!(
        parse_trace("conflux: boot trace: tsc 123456 task 'fs' runs"),
        Some((123456, "task 'fs' runs"))
    );
    assert_eq!(
        parse_trace("conflux: boot trace: tsc x kernel entered"),
        None
    );
    assert_eq!(parse_trace("fs: boot trace: tsc 1 kernel entered"), None);
}

#[test]
fn the_machine_started_at_the_earliest_bound_the_lines_give() {
    // 1,000 cycles per ms: the second line came out 2 ms late.
    let points = [(10_000u64, ms(110)), (20_000, ms(122)), (30_000, ms(130))];
    assert_eq!(vm_start(points.into_iter(), 1000.0), Some(ms(100)));
    assert_eq!(vm_start(std::iter::empty(), 1000.0), None);
}

#[test]
fn a_boot_without_the_trace_names_what_is_missing() {
    let console = crate::qemu::Console::showing("conflux: up: 7 tasks\n");
    let m = Milestones::read(&console, 1000.0, ms(5));
    let missing = m.missing().unwrap();
    assert!(missing.contains("a boot-trace line"), "{missing}");
    assert!(
        missing.contains("boot-trace` reaching the kernel"),
        "{missing}"
    );
}

#[test]
fn the_table_takes_medians_per_milestone_and_per_phase() {
    let boot = |answer: u64| {
        Milestones(vec![
            ("qemu_start", ms(0)),
            ("vm_start", ms(20)),
            ("httpd_serving", ms(answer - 10)),
            ("http_answer", ms(answer)),
        ])
    };
    let t = Table::from_runs(&[boot(300), boot(100), boot(200)]);
    let answer = t.milestones.iter().find(|m| m.0 == "http_answer").unwrap();
    assert_eq!(
        (answer.1.median, answer.1.min, answer.1.max),
        (200.0, 100.0, 300.0)
    );
    assert_eq!(t.milestones[0].0, "vm_start");
    let qemu = t.phases.iter().find(|p| p.0 == "qemu").unwrap();
    assert_eq!(qemu.2.median, 20.0);
    // A phase whose milestones no boot saw is left out, not zero.
    assert!(t.phases.iter().all(|p| p.0 != "fs_mount"));
    let records = t.records();
    assert!(records
        .iter()
        .any(|r| r.metric == "qemu_start_to_http_answer"
            && r.param == "median"
            && r.value == 200.0));
    assert!(records.iter().all(|r| r.bench == "boot" && r.mode == "tcg"));
}
