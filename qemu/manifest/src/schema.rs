//! The manifest schema: which tables and keys exist, their types and
//! defaults, and the rules for each single value.
//!
//! Reading goes top-down through [`Fields`], so unknown keys, wrong types and
//! missing keys are reported before any value rule runs. Rules that relate
//! several tasks live in `validate`. A new table (regions, channels, ...)
//! is a new key list and a new reader here.

use toml::Table;

use crate::error::Error;
use crate::limits::*;
use crate::model::{Manifest, System, Task};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::test_spec;

/// Keys allowed at the top level.
pub(crate) const TOP_KEYS: &[&str] = &["system", "tasks", "test"];
/// Keys allowed in `[system]`.
pub(crate) const SYSTEM_KEYS: &[&str] = &["name", "description", "memory_mib", "cpus"];
/// Keys allowed in each `[tasks.NAME]`.
pub(crate) const TASK_KEYS: &[&str] = &[
    "crate",
    "priority",
    "stack_size",
    "heap_size",
    "start_order",
];

/// Reads a parsed TOML document into a manifest whose every single value is
/// valid. Tasks stay in document order.
pub(crate) fn read(origin: &str, document: &Table) -> Result<Manifest, Error> {
    let top = Fields::new(origin, String::new(), document, TOP_KEYS)?;
    let system = system(&top.required_table("system", SYSTEM_KEYS)?)?;
    let tasks = top
        .named_tables("tasks", TASK_KEYS)?
        .into_iter()
        .map(|(name, fields)| task(name, &fields))
        .collect::<Result<_, _>>()?;
    let test = top
        .optional_table("test", test_spec::KEYS)?
        .map(|fields| test_spec::read(&fields))
        .transpose()?;
    Ok(Manifest {
        origin: origin.to_owned(),
        system,
        tasks,
        test,
    })
}

fn system(fields: &Fields) -> Result<System, Error> {
    let name: &str = fields.required("name")?;
    Ok(System {
        name: rules::name(fields, fields.path_of("name"), name, &rules::SYSTEM_NAME)?,
        description: fields.optional::<&str>("description")?.map(str::to_owned),
        memory_mib: rules::integer(
            fields,
            "memory_mib",
            Some(DEFAULT_MEMORY_MIB),
            MIN_MEMORY_MIB,
            MAX_MEMORY_MIB,
            Unit::Count,
        )?,
        cpus: rules::integer(
            fields,
            "cpus",
            Some(DEFAULT_CPUS),
            MIN_CPUS,
            MAX_CPUS,
            Unit::Count,
        )?,
    })
}

fn task(name: &str, fields: &Fields) -> Result<Task, Error> {
    let name = rules::name(fields, fields.path().to_owned(), name, &rules::TASK_NAME)?;
    let crate_name: &str = fields.required("crate")?;
    Ok(Task {
        name,
        crate_name: rules::name(
            fields,
            fields.path_of("crate"),
            crate_name,
            &rules::CRATE_NAME,
        )?,
        priority: rules::integer(fields, "priority", None, 0, MAX_PRIORITY, Unit::Count)?,
        stack_size: rules::pages(
            fields,
            "stack_size",
            DEFAULT_STACK_SIZE,
            MIN_STACK_SIZE,
            MAX_STACK_SIZE,
        )?,
        heap_size: rules::pages(fields, "heap_size", DEFAULT_HEAP_SIZE, 0, MAX_HEAP_SIZE)?,
        start_order: rules::integer(fields, "start_order", None, 0, u32::MAX, Unit::Count)?,
    })
}
