//! Every way a manifest can be rejected, one variant per rule.
//!
//! Each message says where (the file, then the TOML path such as
//! `tasks.hello.priority`), what is wrong, and what to do about it. The
//! messages are part of the crate's interface: tests assert them word for
//! word, so change them deliberately.

use std::fmt;

use crate::limits::PAGE_SIZE;
use crate::model::Mode;
use crate::suggest::Suggestion;

/// Why a manifest was rejected. `Display` gives the full message, starting
/// with the manifest's origin.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The manifest file could not be read.
    Read {
        origin: String,
        source: std::io::Error,
    },
    /// The text is not valid TOML.
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A key the schema does not know, in the table at `table` ("" is the
    /// top level).
    UnknownKey {
        origin: String,
        table: String,
        key: String,
        suggestion: Suggestion,
    },
    /// A value of the wrong TOML type.
    WrongType {
        origin: String,
        path: String,
        expected: &'static str,
        found: String,
    },
    /// A required key is absent from the table at `table`.
    MissingKey {
        origin: String,
        table: String,
        key: &'static str,
        expected: &'static str,
    },
    /// A system, task or crate name that breaks its syntax rule.
    InvalidName {
        origin: String,
        path: String,
        what: &'static str,
        name: String,
        rule: &'static str,
    },
    /// A system or task name longer than `max` bytes.
    NameTooLong {
        origin: String,
        path: String,
        what: &'static str,
        name: String,
        max: usize,
    },
    /// An integer outside its allowed range (priority, sizes, memory, cpus,
    /// timeout, ...); `bytes` says whether it is a size in bytes.
    OutOfRange {
        origin: String,
        path: String,
        value: i64,
        min: i64,
        max: i64,
        bytes: bool,
    },
    /// A stack or heap size that is not a whole number of pages.
    NotPageMultiple {
        origin: String,
        path: String,
        value: i64,
    },
    /// An entry of `test.modes` that names no mode.
    UnknownMode {
        origin: String,
        path: String,
        value: String,
        suggestion: Suggestion,
    },
    /// A mode listed twice in `test.modes`.
    DuplicateMode { origin: String, mode: Mode },
    /// `test.expect` has no entries.
    EmptyExpect { origin: String },
    /// An empty string in `test.expect` or `test.forbid`.
    EmptyPattern { origin: String, path: String },
    /// `test.outcome` names no outcome.
    UnknownOutcome {
        origin: String,
        value: String,
        suggestion: Suggestion,
    },
    /// The system has no task.
    NoTasks { origin: String },
    /// The system has more tasks than [`crate::limits::MAX_TASKS`].
    TooManyTasks {
        origin: String,
        count: usize,
        max: usize,
    },
    /// Two tasks share a `start_order`.
    DuplicateStartOrder {
        origin: String,
        first: String,
        second: String,
        start_order: u32,
    },
    /// Two tasks are built from the same crate.
    DuplicateCrate {
        origin: String,
        first: String,
        second: String,
        crate_name: String,
    },
    /// The tasks' stacks and heaps need more than half the guest memory.
    MemoryBudget {
        origin: String,
        requested: u64,
        available: u64,
        memory_mib: u32,
    },
}

impl Error {
    /// The path or label of the manifest this error is about.
    pub fn origin(&self) -> &str {
        match self {
            Error::Read { origin, .. }
            | Error::Syntax { origin, .. }
            | Error::UnknownKey { origin, .. }
            | Error::WrongType { origin, .. }
            | Error::MissingKey { origin, .. }
            | Error::InvalidName { origin, .. }
            | Error::NameTooLong { origin, .. }
            | Error::OutOfRange { origin, .. }
            | Error::NotPageMultiple { origin, .. }
            | Error::UnknownMode { origin, .. }
            | Error::DuplicateMode { origin, .. }
            | Error::EmptyExpect { origin }
            | Error::EmptyPattern { origin, .. }
            | Error::UnknownOutcome { origin, .. }
            | Error::NoTasks { origin }
            | Error::TooManyTasks { origin, .. }
            | Error::DuplicateStartOrder { origin, .. }
            | Error::DuplicateCrate { origin, .. }
            | Error::MemoryBudget { origin, .. } => origin,
        }
    }

    /// The message without the origin prefix.
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { source, .. } => write!(f, "cannot read the manifest: {source}"),
            Error::Syntax { message, .. } => write!(f, "invalid TOML: {message}"),
            Error::UnknownKey { table, key, suggestion, .. } => {
                write!(f, "unknown key `{key}` {}; {suggestion}", table_place(table))
            }
            Error::WrongType { path, expected, found, .. } => {
                write!(f, "`{path}` must be {expected}, but it is {found}")
            }
            Error::MissingKey { table, key, expected, .. } => missing(f, table, key, expected),
            Error::InvalidName { path, what, name, rule, .. } => {
                write!(f, "`{path}`: the {what} {name:?} is not valid; it must {rule}")
            }
            Error::NameTooLong { path, what, name, max, .. } => write!(
                f,
                "`{path}`: the {what} {name:?} is {} bytes long; shorten it to at most {max} bytes",
                name.len()
            ),
            Error::OutOfRange { path, value, min, max, bytes, .. } => write!(
                f,
                "`{path}` is {}, out of range; use a value from {} to {}",
                quantity(*value, *bytes),
                quantity(*min, *bytes),
                quantity(*max, *bytes)
            ),
            Error::NotPageMultiple { path, value, .. } => write!(
                f,
                "`{path}` is {value}, not a whole number of {PAGE_SIZE}-byte pages; round it up to {}",
                round_up_to_page(*value)
            ),
            Error::UnknownMode { path, value, suggestion, .. } => {
                write!(f, "`{path}` is {value:?}, which is not a mode; {suggestion}")
            }
            Error::DuplicateMode { mode, .. } => write!(
                f,
                "`test.modes` lists {:?} more than once; list each mode once",
                mode.as_str()
            ),
            Error::EmptyExpect { .. } => f.write_str(
                "`test.expect` is empty; list at least one piece of text the serial console must print",
            ),
            Error::EmptyPattern { path, .. } => write!(
                f,
                "`{path}` is an empty string, which matches any output; remove it or write the text to look for"
            ),
            Error::UnknownOutcome { value, suggestion, .. } => {
                write!(f, "`test.outcome` is {value:?}, which is not an outcome; {suggestion}")
            }
            Error::NoTasks { .. } => f.write_str(
                "the system has no tasks; add at least one `[tasks.NAME]` table with `crate`, `priority` and `start_order`",
            ),
            Error::TooManyTasks { count, max, .. } => write!(
                f,
                "the system has {count} tasks, more than the {max} a system may have; remove or merge tasks"
            ),
            Error::DuplicateStartOrder { first, second, start_order, .. } => write!(
                f,
                "tasks `{first}` and `{second}` both have `start_order = {start_order}`; give each task its own start_order"
            ),
            Error::DuplicateCrate { first, second, crate_name, .. } => write!(
                f,
                "tasks `{first}` and `{second}` are both built from crate `{crate_name}`; a task's constants are generated per crate, so a crate can be only one task in a system: give each task its own crate"
            ),
            Error::MemoryBudget { requested, available, memory_mib, .. } => {
                memory_budget(f, *requested, *available, *memory_mib)
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Syntax {
                origin,
                line,
                column,
                ..
            } => write!(f, "{origin}:{line}:{column}: ")?,
            _ => write!(f, "{}: ", self.origin())?,
        }
        self.describe(f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// "at the top level" or "in `[tasks.hello]`".
fn table_place(table: &str) -> String {
    if table.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("in `[{table}]`")
    }
}

fn missing(f: &mut fmt::Formatter<'_>, table: &str, key: &str, expected: &str) -> fmt::Result {
    let holder = if table.is_empty() {
        "the manifest".to_owned()
    } else {
        format!("`[{table}]`")
    };
    if expected == crate::strict::TABLE {
        let full = crate::strict::join(table, key);
        write!(
            f,
            "{holder} is missing the required table `[{full}]`; add it"
        )
    } else {
        write!(
            f,
            "{holder} is missing the required key `{key}` ({expected}); add it"
        )
    }
}

fn memory_budget(
    f: &mut fmt::Formatter<'_>,
    requested: u64,
    available: u64,
    memory_mib: u32,
) -> fmt::Result {
    let mib = u64::from(crate::limits::MIB);
    let needed_mib = (requested * 2).div_ceil(mib);
    write!(
        f,
        "the tasks' stacks and heaps take {}, more than the {} (half of `system.memory_mib = {memory_mib}`) that tasks may use; ",
        bytes(requested),
        bytes(available)
    )?;
    if needed_mib <= u64::from(crate::limits::MAX_MEMORY_MIB) {
        write!(f, "raise `system.memory_mib` to at least {needed_mib} or ")?;
    }
    f.write_str("shrink the tasks' `stack_size` and `heap_size`")
}

/// A number as written, followed by a readable size when it is one.
fn quantity(value: i64, is_bytes: bool) -> String {
    match u64::try_from(value) {
        Ok(size) if is_bytes && size >= 1024 => format!("{value} ({})", bytes(size)),
        _ => value.to_string(),
    }
}

/// A byte count in the largest unit that states it exactly.
fn bytes(size: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    UNITS
        .iter()
        .find(|(unit, _)| size >= *unit && size.is_multiple_of(*unit))
        .map(|(unit, name)| format!("{} {name}", size / unit))
        .unwrap_or_else(|| format!("{size} bytes"))
}

fn round_up_to_page(value: i64) -> i64 {
    let page = i64::from(PAGE_SIZE);
    (value + page - 1) / page * page
}
