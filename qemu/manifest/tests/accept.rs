//! Manifests that must be accepted, and what they turn into: defaults,
//! start order, limits at their edges.

mod common;

use common::{ok, HELLO, ORIGIN, SYSTEM};
use conflux_manifest::{limits, Mode, Outcome, Restart, System, Task, TestSpec};

#[test]
fn defaults_are_applied() {
    let manifest = ok(&format!("{SYSTEM}{HELLO}"));
    assert_eq!(manifest.origin, ORIGIN);
    assert_eq!(
        manifest.system,
        System {
            name: "t".into(),
            description: None,
            memory_mib: 128,
            cpus: 1,
            supervisor: None,
        }
    );
    assert_eq!(
        manifest.tasks,
        [Task {
            name: "hello".into(),
            crate_name: "hello".into(),
            priority: 2,
            stack_size: 16384,
            heap_size: 65536,
            start_order: 1,
            restart: Restart::Never,
            cpu: 0,
            caps: vec![],
        }]
    );
    assert_eq!(manifest.test, None);
    assert_eq!(manifest.objects, []);
}

#[test]
fn every_key_is_read() {
    let manifest = ok(r#"
        [system]
        name = "bench-ipc"
        description = "IPC benchmark"
        memory_mib = 256
        cpus = 2

        [tasks.ping_pong]
        crate = "ipc-bench"
        priority = 0
        stack_size = 8192
        heap_size = 0
        start_order = 7

        [test]
        timeout_secs = 20
        modes = ["icount", "tcg", "kvm"]
        expect = ["ready", "2 passed, 0 failed"]
        forbid = ["PANIC"]
        outcome = "kernel-fault"
        kernel_args = "selftest=panic"
    "#);
    assert_eq!(
        manifest.system.description.as_deref(),
        Some("IPC benchmark")
    );
    assert_eq!((manifest.system.memory_mib, manifest.system.cpus), (256, 2));
    let task = &manifest.tasks[0];
    assert_eq!(
        (
            task.priority,
            task.stack_size,
            task.heap_size,
            task.start_order
        ),
        (0, 8192, 0, 7)
    );
    assert_eq!(
        manifest.test,
        Some(TestSpec {
            timeout_secs: 20,
            modes: vec![Mode::Icount, Mode::Tcg, Mode::Kvm],
            expect: vec!["ready".into(), "2 passed, 0 failed".into()],
            forbid: vec!["PANIC".into()],
            outcome: Outcome::KernelFault,
            kernel_args: "selftest=panic".into(),
            allow_mmio_in_ram: false,
            nmi_after_ms: vec![],
            crash: None,
            input: String::new(),
            http: Vec::new(),
            udp: Vec::new(),
            tcp_sink: Vec::new(),
            network: None,
            listen: Vec::new(),
        })
    );
}

#[test]
fn test_defaults_are_applied() {
    let manifest = ok(&format!("{SYSTEM}{HELLO}[test]\nexpect = [\"hello\"]\n"));
    assert_eq!(
        manifest.test,
        Some(TestSpec {
            timeout_secs: 30,
            modes: vec![Mode::Tcg],
            expect: vec!["hello".into()],
            forbid: vec![],
            outcome: Outcome::Pass,
            kernel_args: String::new(),
            allow_mmio_in_ram: false,
            nmi_after_ms: vec![],
            crash: None,
            input: String::new(),
            http: Vec::new(),
            udp: Vec::new(),
            tcp_sink: Vec::new(),
            network: None,
            listen: Vec::new(),
        })
    );
}

#[test]
fn tasks_are_sorted_by_start_order() {
    let manifest = ok(&format!(
        "{SYSTEM}\
         [tasks.late]\ncrate = \"late\"\npriority = 1\nstart_order = 30\n\
         [tasks.first]\ncrate = \"first\"\npriority = 1\nstart_order = 0\n\
         [tasks.middle]\ncrate = \"middle\"\npriority = 1\nstart_order = 5\n"
    ));
    let names: Vec<&str> = manifest.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["first", "middle", "late"]);
    let (index, task) = manifest.task_for_crate("late").unwrap();
    assert_eq!((index, task.name.as_str()), (2, "late"));
    assert_eq!(manifest.task("middle").map(|(index, _)| index), Some(1));
    assert!(manifest.task_for_crate("absent").is_none());
}

#[test]
fn limits_at_their_edges_are_accepted() {
    let long = format!("a{}", "-".repeat(limits::MAX_NAME_LEN - 1));
    let manifest = ok(&format!(
        "[system]\nname = \"{long}\"\nmemory_mib = 4096\ncpus = 8\n\
         [tasks.t]\ncrate = \"Crate_9\"\npriority = 15\nstart_order = 4294967295\nstack_size = 1048576\nheap_size = 1073741824\n\
         [test]\ntimeout_secs = 600\nexpect = [\"x\"]\n"
    ));
    assert_eq!(manifest.system.name, long);
    assert_eq!(manifest.tasks[0].heap_size, limits::MAX_HEAP_SIZE);
}

#[test]
fn tasks_may_use_exactly_half_of_memory() {
    // 32 MiB of memory: 16 MiB for tasks, 4 KiB stack + 16 MiB - 4 KiB heap.
    let manifest = ok(
        "[system]\nname = \"t\"\nmemory_mib = 32\n\
         [tasks.t]\ncrate = \"t\"\npriority = 1\nstart_order = 1\nstack_size = 4096\nheap_size = 16773120\n",
    );
    assert_eq!(manifest.tasks[0].memory_bytes(), 16 << 20);
}

#[test]
fn sixty_four_tasks_are_accepted() {
    let tasks: String = (0..64)
        .map(|i| format!("[tasks.t{i}]\ncrate = \"t{i}\"\npriority = 1\nstart_order = {i}\nheap_size = 0\nstack_size = 4096\n"))
        .collect();
    assert_eq!(ok(&format!("{SYSTEM}{tasks}")).tasks.len(), 64);
}

#[test]
fn modes_and_outcomes_round_trip() {
    for mode in Mode::ALL {
        assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
        assert_eq!(mode.to_string(), mode.as_str());
    }
    for outcome in Outcome::ALL {
        assert_eq!(outcome.as_str().parse::<Outcome>(), Ok(outcome));
    }
    let error = "hvf".parse::<Mode>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown mode `hvf`; use one of `tcg`, `icount`, `kvm`"
    );
}

#[test]
fn load_reads_a_file_and_uses_its_path_as_origin() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("load-test.toml");
    std::fs::write(&path, format!("{SYSTEM}{HELLO}")).unwrap();
    let manifest = conflux_manifest::load(&path).unwrap();
    assert_eq!(manifest.origin, path.display().to_string());
}
