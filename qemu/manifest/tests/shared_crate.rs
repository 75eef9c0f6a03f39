//! One crate, several tasks: `crate` defaults to the task's name, several
//! tasks may name one crate, the crate is compiled with only what they
//! share, and each task's own values are data for its image.

mod common;

use common::{ok, HELLO, SYSTEM};
use conflux_manifest::{task_constants, task_values};

/// Two clients of one crate, each with its own region, and a third task.
const TWO: &str = "[regions.r1]\nsize = 4096\n[regions.r2]\nsize = 4096\n\
    [tasks.c1]\ncrate = \"client\"\npriority = 2\nstart_order = 2\n\
    [tasks.c1.caps]\nbuf = { region = \"r1\", rights = \"rw\" }\n\
    [tasks.c2]\ncrate = \"client\"\npriority = 3\nstart_order = 3\n\
    [tasks.c2.caps]\nbuf = { region = \"r2\", rights = \"rw\" }\n";

#[test]
fn crate_defaults_to_the_task_name() {
    let manifest = ok(&format!(
        "{SYSTEM}[tasks.echo]\npriority = 2\nstart_order = 1\n"
    ));
    assert_eq!(manifest.tasks[0].crate_name, "echo");
}

#[test]
fn several_tasks_may_run_one_crate() {
    let manifest = ok(&format!("{SYSTEM}{HELLO}{TWO}"));
    let of: Vec<usize> = manifest.tasks_of_crate("client").collect();
    assert_eq!(of, [1, 2]);
}

#[test]
fn a_shared_crate_is_compiled_with_what_its_tasks_share() {
    let manifest = ok(&format!("{SYSTEM}{HELLO}{TWO}"));
    let text = task_constants(&manifest, "client");
    // The same slot and mapping for both: compiled in.
    assert!(text.contains("    pub const BUF: usize = 1;\n"), "{text}");
    assert!(text.contains("pub const BUF_ADDR: u64 = "), "{text}");
    assert!(
        text.contains("pub const SYSTEM_NAME: &str = \"t\";"),
        "{text}"
    );
    // Their own: read at start, and the file says so.
    assert!(!text.contains("pub const TASK_NAME:"), "{text}");
    assert!(
        text.contains("pub const TASK_NAMES: [&str; TASK_COUNT] = [\"hello\", \"c1\", \"c2\"];"),
        "{text}"
    );
    assert!(!text.contains("pub const PRIORITY:"), "{text}");
    assert!(
        text.contains("(`conflux_userlib::task`): TASK_NAME, TASK_INDEX, PRIORITY\n"),
        "{text}"
    );
    // A crate of one task is unchanged.
    let hello = task_constants(&manifest, "hello");
    assert!(hello.contains("pub const TASK_NAME: &str = \"hello\";"));
}

#[test]
fn each_task_gets_its_own_values() {
    let manifest = ok(&format!("{SYSTEM}{HELLO}{TWO}"));
    let value = |index: usize, key: &str| {
        task_values(&manifest, index)
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    };
    assert_eq!(value(1, "TASK_INDEX"), Some(1));
    assert_eq!(value(2, "TASK_INDEX"), Some(2));
    assert_eq!(value(1, "PRIORITY"), Some(2));
    assert_eq!(value(2, "PRIORITY"), Some(3));
    assert_eq!(value(2, "caps::BUF"), Some(1));
    assert_eq!(value(2, "HEAP_SIZE"), Some(65536));
    // Strings and tables are compiled in only.
    assert_eq!(value(1, "SYSTEM_NAME"), None);
}

#[test]
fn an_unknown_crate_gets_a_compile_error_saying_what_to_do() {
    let manifest = ok(&format!("{SYSTEM}{HELLO}"));
    let text = task_constants(&manifest, "nobody");
    assert!(
        text.contains(
            "compile_error!(\"crate `nobody` is not a task of the system in systems/t.toml"
        ),
        "{text}"
    );
}
