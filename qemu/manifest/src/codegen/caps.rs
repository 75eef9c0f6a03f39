//! The `caps` module of a task's constants.
//!
//! One constant per filled slot (the slot name in upper case, `-` as `_`),
//! plus `NAME_ADDR` and `NAME_SIZE` for each region and MMIO mapping, and
//! `FIRST_FREE`, the first slot the task can use for capabilities it
//! receives at run time. The doc line of each slot says what it holds.

use super::constant;
use crate::model::{rights_text, Cap, Manifest, Object, ObjectSpec, Task};
use crate::objects::declared_kind;
use crate::slots::FIRST_FREE;

const INDENT: &str = "    ";

/// Writes `pub mod caps { ... }` for `task`.
pub(super) fn module(out: &mut String, manifest: &Manifest, task: &Task) {
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
    out.push_str("}\n");
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
        &format!("{vaddr:#x}"),
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
