//! The `caps` module of a task's constants.
//!
//! One constant per filled slot (the slot name in upper case, `-` as `_`),
//! plus `NAME_ADDR` and `NAME_SIZE` for each region and MMIO mapping, and
//! `FIRST_FREE`, the first slot the task can use for capabilities it
//! receives at run time. The doc line of each slot says what it holds. The
//! supervisor's module also has `TASK_NAMES` and `RESTART_ON_FAULT`, to
//! name the task a fault message's badge designates and decide whether to
//! restart it.

use super::constant;
use crate::model::{rights_text, Cap, Manifest, Object, ObjectSpec, Restart, Task};
use crate::objects::declared_kind;
use crate::slots::{FIRST_FREE, RESTART_ON_FAULT, TASK_NAMES};

const INDENT: &str = "    ";

/// Writes `pub mod caps { ... }` for `task`, the task at `index`.
pub(super) fn module(out: &mut String, manifest: &Manifest, index: usize, task: &Task) {
    out.push_str(
        "/// The capabilities this task starts with: slot numbers, and where\n\
         /// regions and MMIO ranges are mapped. Slot 0 is always empty.\n\
         #[allow(dead_code)]\n\
         pub mod caps {\n",
    );
    for cap in &task.caps {
        slot(out, cap, manifest.object_of(cap));
    }
    constant(
        out,
        INDENT,
        "The first slot the manifest leaves empty (the table size when none is).",
        FIRST_FREE,
        "usize",
        &(task.caps.len() + 1).to_string(),
    );
    if manifest
        .supervisor()
        .is_some_and(|(supervisor, _)| supervisor == index)
    {
        supervisor(out, manifest);
    }
    out.push_str("}\n");
}

/// What the supervisor needs to report and restart faulting tasks.
fn supervisor(out: &mut String, manifest: &Manifest) {
    let names: Vec<String> = manifest
        .tasks
        .iter()
        .map(|t| format!("{:?}", t.name))
        .collect();
    let restart: Vec<String> = manifest
        .tasks
        .iter()
        .map(|t| (t.restart == Restart::OnFault).to_string())
        .collect();
    constant(
        out,
        INDENT,
        "Every task's name, by task index (the badge of its fault messages).",
        TASK_NAMES,
        "&[&str]",
        &format!("&[{}]", names.join(", ")),
    );
    constant(
        out,
        INDENT,
        "Whether each task, by task index, is restarted after a fault.",
        RESTART_ON_FAULT,
        "&[bool]",
        &format!("&[{}]", restart.join(", ")),
    );
}

fn slot(out: &mut String, cap: &Cap, object: &Object) {
    let name = cap.constant();
    constant(
        out,
        INDENT,
        &describe(cap, object),
        &name,
        "usize",
        &cap.slot.to_string(),
    );
    let (Some(vaddr), Some(size)) = (cap.map_vaddr, object.spec.map_size()) else {
        return;
    };
    let doc = format!("Address where `{}` is mapped.", cap.name);
    constant(
        out,
        INDENT,
        &doc,
        &format!("{name}_ADDR"),
        "u64",
        &hex(vaddr),
    );
    let doc = format!("Bytes mapped at `{name}_ADDR`.");
    constant(
        out,
        INDENT,
        &doc,
        &format!("{name}_SIZE"),
        "usize",
        &size.to_string(),
    );
}

/// "Slot of `echo`: endpoint `echo`, rights "wg", badge 7."
fn describe(cap: &Cap, object: &Object) -> String {
    let Some(kind) = declared_kind(&object.spec) else {
        debug_assert!(matches!(object.spec, ObjectSpec::Faults { .. }));
        return format!(
            "Slot of `{}`: the endpoint on which the kernel reports tasks' faults (receive; the badge is the faulting task's index).",
            cap.name
        );
    };
    let badge = match cap.badge {
        0 => String::new(),
        badge => format!(", badge {badge}"),
    };
    format!(
        "Slot of `{}`: {} `{}`, rights {:?}{badge}.",
        cap.name,
        kind.short,
        object.name,
        rights_text(cap.rights)
    )
}

/// `0x2000_0000_2000`: hex in groups of four digits.
fn hex(value: u64) -> String {
    let digits = format!("{value:x}");
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(4)
        .rev()
        .map(|group| std::str::from_utf8(group).expect("hex digits are ASCII"))
        .collect();
    format!("0x{}", groups.join("_"))
}
