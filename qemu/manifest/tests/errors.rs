//! One test per validation error, each asserting the exact message: the
//! messages are part of the crate's interface.

mod common;

use common::{err, message, HELLO, SYSTEM};
use conflux_manifest::Error;

fn with_system(rest: &str) -> String {
    format!("{SYSTEM}{rest}")
}

/// A system with the `hello` task whose line `key = ...` is replaced by
/// `line` (or added when the key is not there).
fn with_task_line(key: &str, line: &str) -> String {
    let mut task: Vec<String> = HELLO
        .lines()
        .filter(|l| !l.starts_with(&format!("{key} ")))
        .map(str::to_owned)
        .collect();
    task.push(line.to_owned());
    with_system(&(task.join("\n") + "\n"))
}

fn with_test(body: &str) -> String {
    with_system(&format!("{HELLO}[test]\n{body}"))
}

#[test]
fn syntax_error_gives_line_and_column() {
    let error = err("[system]\nname = \"t\"\nmemory_mib = = 3\n");
    assert!(
        matches!(
            error,
            Error::Syntax {
                line: 3,
                column: 14,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "systems/t.toml:3:14: invalid TOML: extra `=`, expected nothing"
    );
}

#[test]
fn duplicate_key_is_a_syntax_error() {
    let text = with_system(&format!("{HELLO}priority = 3\n"));
    assert_eq!(
        message(&text),
        "systems/t.toml:7:1: invalid TOML: duplicate key"
    );
}

#[test]
fn unknown_top_level_key_suggests() {
    assert_eq!(
        message(&format!("{SYSTEM}{HELLO}[tset]\nexpect = [\"x\"]\n")),
        "systems/t.toml: unknown key `tset` at the top level; did you mean `test`?"
    );
}

#[test]
fn unknown_system_key_suggests() {
    assert_eq!(
        message(&format!("{SYSTEM}memory = 64\n{HELLO}")),
        "systems/t.toml: unknown key `memory` in `[system]`; did you mean `memory_mib`?"
    );
}

#[test]
fn unknown_task_key_suggests() {
    assert_eq!(
        message(&with_task_line("priority", "prioirty = 2")),
        "systems/t.toml: unknown key `prioirty` in `[tasks.hello]`; did you mean `priority`?"
    );
}

#[test]
fn unknown_task_key_without_a_close_one_lists_the_keys() {
    assert_eq!(
        message(&with_task_line("colour", "colour = \"red\"")),
        "systems/t.toml: unknown key `colour` in `[tasks.hello]`; the keys allowed there are `crate`, `priority`, `stack_size`, `heap_size`, `start_order`, `restart`, `cpu`, `caps`"
    );
}

#[test]
fn unknown_test_key_suggests() {
    assert_eq!(
        message(&with_test("expected = [\"x\"]\n")),
        "systems/t.toml: unknown key `expected` in `[test]`; did you mean `expect`?"
    );
}

#[test]
fn wrong_type_names_key_and_types() {
    assert_eq!(
        message(&with_task_line("priority", "priority = \"high\"")),
        "systems/t.toml: `tasks.hello.priority` must be an integer, but it is a string"
    );
}

#[test]
fn wrong_type_in_array() {
    assert_eq!(
        message(&with_test("expect = [\"ok\", 3]\n")),
        "systems/t.toml: `test.expect` must be an array of strings, but it is an array holding an integer"
    );
}

#[test]
fn wrong_type_for_a_table() {
    assert_eq!(
        message(&format!("system = \"t\"\n{HELLO}")),
        "systems/t.toml: `system` must be a table, but it is a string"
    );
}

#[test]
fn task_that_is_not_a_table() {
    assert_eq!(
        message(&with_system("[tasks]\nhello = 1\n")),
        "systems/t.toml: `tasks.hello` must be a table, but it is an integer"
    );
}

#[test]
fn missing_system_table() {
    assert_eq!(
        message(HELLO),
        "systems/t.toml: the manifest is missing the required table `[system]`; add it"
    );
}

#[test]
fn missing_required_key() {
    let text = with_system("[tasks.hello]\ncrate = \"hello\"\npriority = 2\n");
    assert_eq!(
        message(&text),
        "systems/t.toml: `[tasks.hello]` is missing the required key `start_order` (an integer); add it"
    );
}

#[test]
fn missing_system_name() {
    assert_eq!(
        message(&format!("[system]\ncpus = 1\n{HELLO}")),
        "systems/t.toml: `[system]` is missing the required key `name` (a string); add it"
    );
}

#[test]
fn missing_expect() {
    assert_eq!(
        message(&with_test("timeout_secs = 5\n")),
        "systems/t.toml: `[test]` is missing the required key `expect` (an array of strings); add it"
    );
}

#[test]
fn invalid_system_name() {
    assert_eq!(
        message(&format!("[system]\nname = \"My_System\"\n{HELLO}")),
        "systems/t.toml: `system.name`: the system name \"My_System\" is not valid; it must start with a lowercase letter and hold only lowercase letters, digits and `-`"
    );
}

#[test]
fn system_name_too_long() {
    let name = "a".repeat(32);
    assert_eq!(
        message(&format!("[system]\nname = \"{name}\"\n{HELLO}")),
        format!("systems/t.toml: `system.name`: the system name \"{name}\" is 32 bytes long; shorten it to at most 31 bytes")
    );
}

#[test]
fn invalid_task_name() {
    assert_eq!(
        message(&with_system("[tasks.2nd]\ncrate = \"hello\"\npriority = 2\nstart_order = 1\n")),
        "systems/t.toml: `tasks.2nd`: the task name \"2nd\" is not valid; it must start with a lowercase letter and hold only lowercase letters, digits, `_` and `-`"
    );
}

#[test]
fn task_name_needing_quotes_is_quoted_in_the_path() {
    assert_eq!(
        message(&with_system("[tasks.\"my task\"]\ncrate = \"hello\"\npriority = 2\nstart_order = 1\n")),
        "systems/t.toml: `tasks.\"my task\"`: the task name \"my task\" is not valid; it must start with a lowercase letter and hold only lowercase letters, digits, `_` and `-`"
    );
}

#[test]
fn task_name_too_long() {
    let name = format!("t{}", "_".repeat(31));
    assert_eq!(
        message(&with_system(&format!("[tasks.{name}]\ncrate = \"hello\"\npriority = 2\nstart_order = 1\n"))),
        format!("systems/t.toml: `tasks.{name}`: the task name \"{name}\" is 32 bytes long; shorten it to at most 31 bytes")
    );
}

#[test]
fn invalid_crate_name() {
    assert_eq!(
        message(&with_task_line("crate", "crate = \"hello world\"")),
        "systems/t.toml: `tasks.hello.crate`: the crate name \"hello world\" is not valid; it must be a cargo package name: a letter, then letters, digits, `_` and `-`"
    );
}

#[test]
fn priority_out_of_range() {
    assert_eq!(
        message(&with_task_line("priority", "priority = 16")),
        "systems/t.toml: `tasks.hello.priority` is 16, out of range; use a value from 0 to 15"
    );
}

#[test]
fn negative_start_order() {
    assert_eq!(
        message(&with_task_line("start_order", "start_order = -1")),
        "systems/t.toml: `tasks.hello.start_order` is -1, out of range; use a value from 0 to 4294967295"
    );
}

#[test]
fn stack_size_out_of_range() {
    assert_eq!(
        message(&with_task_line("stack_size", "stack_size = 2097152")),
        "systems/t.toml: `tasks.hello.stack_size` is 2097152 (2 MiB), out of range; use a value from 4096 (4 KiB) to 1048576 (1 MiB)"
    );
}

#[test]
fn stack_size_not_page_multiple() {
    assert_eq!(
        message(&with_task_line("stack_size", "stack_size = 5000")),
        "systems/t.toml: `tasks.hello.stack_size` is 5000, not a whole number of 4096-byte pages; round it up to 8192"
    );
}

#[test]
fn heap_size_out_of_range() {
    assert_eq!(
        message(&with_task_line("heap_size", "heap_size = 1074790400")),
        "systems/t.toml: `tasks.hello.heap_size` is 1074790400 (1025 MiB), out of range; use a value from 0 to 1073741824 (1 GiB)"
    );
}

#[test]
fn heap_size_not_page_multiple() {
    assert_eq!(
        message(&with_task_line("heap_size", "heap_size = 100")),
        "systems/t.toml: `tasks.hello.heap_size` is 100, not a whole number of 4096-byte pages; round it up to 4096"
    );
}

#[test]
fn memory_out_of_range() {
    assert_eq!(
        message(&format!("{SYSTEM}memory_mib = 16\n{HELLO}")),
        "systems/t.toml: `system.memory_mib` is 16, out of range; use a value from 32 to 4096"
    );
}

#[test]
fn cpus_out_of_range() {
    assert_eq!(
        message(&format!("{SYSTEM}cpus = 0\n{HELLO}")),
        "systems/t.toml: `system.cpus` is 0, out of range; use a value from 1 to 8"
    );
}

#[test]
fn task_cpu_past_the_system_s_cpus() {
    assert_eq!(
        message(&with_task_line("cpu", "cpu = 1")),
        "systems/t.toml: task `hello` has `cpu = 1` but the system has 1 CPU(s), numbered from 0; give the task a cpu below 1 or raise `system.cpus`"
    );
}

#[test]
fn task_cpu_past_the_kernel_s_bound() {
    assert_eq!(
        message(&with_task_line("cpu", "cpu = 8")),
        "systems/t.toml: `tasks.hello.cpu` is 8, out of range; use a value from 0 to 7"
    );
}

#[test]
fn timeout_out_of_range() {
    assert_eq!(
        message(&with_test("timeout_secs = 601\nexpect = [\"x\"]\n")),
        "systems/t.toml: `test.timeout_secs` is 601, out of range; use a value from 1 to 600"
    );
}

#[test]
fn unknown_mode_suggests() {
    assert_eq!(
        message(&with_test("modes = [\"tcg\", \"icont\"]\nexpect = [\"x\"]\n")),
        "systems/t.toml: `test.modes[1]` is \"icont\", which is not a mode; did you mean \"icount\"?"
    );
}

#[test]
fn unknown_mode_lists_the_modes() {
    assert_eq!(
        message(&with_test("modes = [\"hvf\"]\nexpect = [\"x\"]\n")),
        "systems/t.toml: `test.modes[0]` is \"hvf\", which is not a mode; use one of \"tcg\", \"icount\", \"kvm\""
    );
}

#[test]
fn duplicate_mode() {
    assert_eq!(
        message(&with_test(
            "modes = [\"tcg\", \"icount\", \"tcg\"]\nexpect = [\"x\"]\n"
        )),
        "systems/t.toml: `test.modes` lists \"tcg\" more than once; list each mode once"
    );
}

#[test]
fn empty_expect() {
    assert_eq!(
        message(&with_test("expect = []\n")),
        "systems/t.toml: `test.expect` is empty; list at least one piece of text the serial console must print"
    );
}

#[test]
fn empty_pattern() {
    assert_eq!(
        message(&with_test("expect = [\"x\"]\nforbid = [\"panic\", \"\"]\n")),
        "systems/t.toml: `test.forbid[1]` is an empty string, which matches any output; remove it or write the text to look for"
    );
}

#[test]
fn nmi_time_out_of_range() {
    assert_eq!(
        message(&with_test(
            "timeout_secs = 5\nexpect = [\"x\"]\nnmi_after_ms = [100, 6000]\n"
        )),
        "systems/t.toml: `test.nmi_after_ms[1]` is 6000, out of range; use a value from 1 to 5000"
    );
}

#[test]
fn nmi_time_zero() {
    assert_eq!(
        message(&with_test("expect = [\"x\"]\nnmi_after_ms = [0]\n")),
        "systems/t.toml: `test.nmi_after_ms[0]` is 0, out of range; use a value from 1 to 30000"
    );
}

#[test]
fn nmi_times_not_increasing() {
    assert_eq!(
        message(&with_test(
            "expect = [\"x\"]\nnmi_after_ms = [100, 300, 300]\n"
        )),
        "systems/t.toml: `test.nmi_after_ms[2]` is 300, not after the time before it (300 ms); list the NMI times in increasing order, each once"
    );
}

#[test]
fn nmi_times_not_integers() {
    assert_eq!(
        message(&with_test("expect = [\"x\"]\nnmi_after_ms = [\"100\"]\n")),
        "systems/t.toml: `test.nmi_after_ms` must be an array of integers, but it is an array of strings"
    );
}

#[test]
fn unknown_outcome() {
    assert_eq!(
        message(&with_test("expect = [\"x\"]\noutcome = \"fail\"\n")),
        "systems/t.toml: `test.outcome` is \"fail\", which is not an outcome; use one of \"pass\", \"kernel-fault\", \"power-off\", \"serving\""
    );
}

#[test]
fn unknown_outcome_suggests() {
    assert_eq!(
        message(&with_test("expect = [\"x\"]\noutcome = \"kernel_fault\"\n")),
        "systems/t.toml: `test.outcome` is \"kernel_fault\", which is not an outcome; did you mean \"kernel-fault\"?"
    );
}

#[test]
fn no_tasks() {
    assert_eq!(
        message(SYSTEM),
        "systems/t.toml: the system has no tasks; add at least one `[tasks.NAME]` table with `crate`, `priority` and `start_order`"
    );
}

#[test]
fn empty_tasks_table() {
    assert!(matches!(
        err(&with_system("[tasks]\n")),
        Error::NoTasks { .. }
    ));
}

#[test]
fn too_many_tasks() {
    let tasks: String = (0..65)
        .map(|i| format!("[tasks.t{i}]\ncrate = \"t{i}\"\npriority = 1\nstart_order = {i}\nheap_size = 0\nstack_size = 4096\n"))
        .collect();
    assert_eq!(
        message(&with_system(&tasks)),
        "systems/t.toml: the system has 65 tasks, more than the 64 a system may have; remove or merge tasks"
    );
}

#[test]
fn duplicate_start_order() {
    let text = with_system(&format!(
        "{HELLO}[tasks.world]\ncrate = \"world\"\npriority = 2\nstart_order = 1\n"
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: tasks `hello` and `world` both have `start_order = 1`; give each task its own start_order"
    );
}

#[test]
fn crate_that_is_no_package_name() {
    let text = with_system(&format!(
        "{HELLO}[tasks.again]\ncrate = \"9lives\"\npriority = 2\nstart_order = 2\n"
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: `tasks.again.crate`: the crate name \"9lives\" is not valid; it must be a cargo package name: a letter, then letters, digits, `_` and `-`"
    );
}

#[test]
fn crate_of_the_wrong_type() {
    let text = with_system(&format!(
        "{HELLO}[tasks.again]\ncrate = 3\npriority = 2\nstart_order = 2\n"
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: `tasks.again.crate` must be a string, but it is an integer"
    );
}

#[test]
fn memory_budget() {
    let text = format!(
        "{SYSTEM}memory_mib = 32\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\nheap_size = 8388608\n\
         [tasks.b]\ncrate = \"b\"\npriority = 1\nstart_order = 2\nheap_size = 8388608\n"
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: the tasks' stacks and heaps take 16416 KiB, more than the 16 MiB (half of `system.memory_mib = 32`) that tasks may use; raise `system.memory_mib` to at least 33 or shrink the tasks' `stack_size` and `heap_size`"
    );
}

#[test]
fn unreadable_file() {
    let error = conflux_manifest::load(std::path::Path::new("/nonexistent/t.toml")).unwrap_err();
    assert!(matches!(error, Error::Read { .. }));
    assert!(
        error
            .to_string()
            .starts_with("/nonexistent/t.toml: cannot read the manifest: "),
        "{error}"
    );
}

#[test]
fn memory_budget_beyond_the_largest_system() {
    let tasks: String = (0..64)
        .map(|i| format!("[tasks.t{i}]\ncrate = \"t{i}\"\npriority = 1\nstart_order = {i}\nheap_size = 67108864\n"))
        .collect();
    assert_eq!(
        message(&format!("{SYSTEM}memory_mib = 4096\n{tasks}")),
        "systems/t.toml: the tasks' stacks and heaps take 4097 MiB, more than the 2 GiB (half of `system.memory_mib = 4096`) that tasks may use; shrink the tasks' `stack_size` and `heap_size`"
    );
}
