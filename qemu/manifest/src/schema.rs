//! The manifest schema: which tables and keys exist, their types and
//! defaults, and the rules for each single value.
//!
//! Reading goes top-down through [`Fields`], so unknown keys, wrong types and
//! missing keys are reported before any value rule runs. Rules that relate
//! several tasks or objects live in `validate`, `resolve`, `slots`,
//! `supervision`, `devices` and `graph`. A new table is a new key list and
//! a new reader here (the object tables are in `objects`, a task's
//! capabilities in `caps`).

use toml::Table;

use crate::caps::{self, CapDecl};
use crate::device_table::{self, DeviceDecl};
use crate::error::Error;
use crate::flow_table::{self, FlowsDecl};
use crate::limits::*;
use crate::model::{Manifest, Object, Restart, System, Task};
use crate::objects::{self, TABLES};
use crate::rules::{self, Unit};
use crate::strict::Fields;
use crate::suggest::{Suggestion, Words};
use crate::test_spec;

/// Keys allowed at the top level.
pub(crate) const TOP_KEYS: &[&str] = &[
    "system", "tasks", "test", "devices", "flows", TABLES[0], TABLES[1], TABLES[2], TABLES[3],
    TABLES[4], TABLES[5],
];
/// Keys allowed in `[system]`.
pub(crate) const SYSTEM_KEYS: &[&str] =
    &["name", "description", "memory_mib", "cpus", "supervisor"];
/// Keys allowed in each `[tasks.NAME]`.
pub(crate) const TASK_KEYS: &[&str] = &[
    "crate",
    "priority",
    "stack_size",
    "heap_size",
    "start_order",
    "restart",
    "cpu",
    "caps",
];

/// A manifest whose single values are valid, before names are resolved:
/// `manifest` has no objects and no task capabilities yet.
pub(crate) struct Draft {
    pub manifest: Manifest,
    /// Declared objects, in id order, naming tasks and notifications.
    pub objects: Vec<Object<String>>,
    /// Each task's capability entries, parallel to `manifest.tasks`.
    pub caps: Vec<Vec<CapDecl>>,
    /// `[devices.*]`, in document order, naming their drivers.
    pub devices: Vec<DeviceDecl>,
    /// `[flows]`, naming its tasks.
    pub flows: Option<FlowsDecl>,
    /// The endpoints declared with `sessions = true`, by name.
    pub sessions: Vec<String>,
}

/// Reads a parsed TOML document. Tasks stay in document order.
pub(crate) fn read(origin: &str, document: &Table) -> Result<Draft, Error> {
    let top = Fields::new(origin, String::new(), document, TOP_KEYS)?;
    let system = system(&top.required_table("system", SYSTEM_KEYS)?)?;
    let (tasks, caps) = top
        .named_tables("tasks", TASK_KEYS)?
        .into_iter()
        .map(|(name, fields)| Ok((task(name, &fields)?, caps::read(&fields)?)))
        .collect::<Result<Vec<_>, Error>>()?
        .into_iter()
        .unzip();
    let (objects, sessions) = objects::read(&top)?;
    let devices = device_table::read(&top)?;
    let flows = flow_table::read(&top)?;
    let test = top
        .optional_table("test", test_spec::KEYS)?
        .map(|fields| test_spec::read(&fields))
        .transpose()?;
    let manifest = Manifest {
        origin: origin.to_owned(),
        system,
        tasks,
        objects: Vec::new(),
        devices: Vec::new(),
        flows: None,
        sessions: Vec::new(),
        test,
    };
    Ok(Draft {
        manifest,
        objects,
        caps,
        devices,
        flows,
        sessions,
    })
}

impl Draft {
    /// Puts the tasks (and their capability entries) in start order.
    pub(crate) fn sort_tasks(&mut self) {
        let tasks = std::mem::take(&mut self.manifest.tasks);
        let caps = std::mem::take(&mut self.caps);
        let mut pairs: Vec<_> = tasks.into_iter().zip(caps).collect();
        pairs.sort_by_key(|(task, _)| task.start_order);
        (self.manifest.tasks, self.caps) = pairs.into_iter().unzip();
    }
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
        supervisor: fields.optional::<&str>("supervisor")?.map(str::to_owned),
    })
}

fn task(name: &str, fields: &Fields) -> Result<Task, Error> {
    let name = rules::name(fields, fields.path().to_owned(), name, &rules::TASK_NAME)?;
    // Without `crate`, the task runs the crate of its own name; several
    // tasks may run one crate (each gets its own values at image time).
    let crate_name = match fields.optional::<&str>("crate")? {
        Some(c) => rules::name(fields, fields.path_of("crate"), c, &rules::CRATE_NAME)?,
        None => name.clone(),
    };
    Ok(Task {
        name,
        crate_name,
        priority: rules::integer(fields, "priority", None, 0, MAX_PRIORITY, Unit::Count)?,
        stack_size: rules::pages(
            fields,
            "stack_size",
            Some(DEFAULT_STACK_SIZE),
            MIN_STACK_SIZE,
            MAX_STACK_SIZE,
        )?,
        heap_size: rules::pages(
            fields,
            "heap_size",
            Some(DEFAULT_HEAP_SIZE),
            0,
            MAX_HEAP_SIZE,
        )?,
        start_order: rules::integer(fields, "start_order", None, 0, u32::MAX, Unit::Count)?,
        restart: restart(fields)?,
        cpu: rules::integer(fields, "cpu", Some(0), 0, MAX_CPUS - 1, Unit::Count)?,
        caps: Vec::new(),
    })
}

fn restart(fields: &Fields) -> Result<Restart, Error> {
    let Some(name) = fields.optional::<&str>("restart")? else {
        return Ok(Restart::Never);
    };
    name.parse().map_err(|_| Error::UnknownRestart {
        origin: fields.origin().to_owned(),
        path: fields.path_of("restart"),
        value: name.to_owned(),
        suggestion: Box::new(Suggestion::new(name, Restart::NAMES, Words::Values)),
    })
}
