//! Phrasing shared by several messages: places, sizes, ranges, and
//! references to things that do not exist.

use std::fmt;

use super::Span;
use crate::limits::PAGE_SIZE;
use crate::suggest::Suggestion;

/// "at the top level" or "in `[tasks.hello]`".
pub(super) fn table_place(table: &str) -> String {
    if table.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("in `[{table}]`")
    }
}

pub(super) fn missing(
    f: &mut fmt::Formatter<'_>,
    table: &str,
    key: &str,
    expected: &str,
) -> fmt::Result {
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

pub(super) fn memory_budget(
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
pub(super) fn quantity(value: i64, is_bytes: bool) -> String {
    match u64::try_from(value) {
        Ok(size) if is_bytes && size >= 1024 => format!("{value} ({})", bytes(size)),
        _ => value.to_string(),
    }
}

/// A byte count in the largest unit that states it exactly.
pub(super) fn bytes(size: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    UNITS
        .iter()
        .find(|(unit, _)| size >= *unit && size.is_multiple_of(*unit))
        .map(|(unit, name)| format!("{} {name}", size / unit))
        .unwrap_or_else(|| format!("{size} bytes"))
}

pub(super) fn round_up_to_page(value: i64) -> i64 {
    let page = i64::from(PAGE_SIZE);
    (value + page - 1) / page * page
}

/// `` `name` (0x2f8..0x300) ``.
pub(super) fn span(span: &Span) -> String {
    format!("`{}` ({:#x}..{:#x})", span.name, span.start, span.end)
}

/// "`path` is "x", which is not a task; did you mean "y"?"; when nothing
/// of the kind exists and `declare_in` is given, says where to declare it.
pub(super) fn reference(
    f: &mut fmt::Formatter<'_>,
    path: &str,
    value: &str,
    what: &str,
    suggestion: &Suggestion,
    declare_in: Option<&str>,
) -> fmt::Result {
    write!(f, "`{path}` is {value:?}, which is not {what}; ")?;
    match declare_in {
        Some(table) if suggestion.best.is_none() => {
            let full = crate::strict::join(table, value);
            write!(f, "declare it as `[{full}]`")?;
            if !suggestion.allowed.is_empty() {
                write!(f, " or {suggestion}")?;
            }
            Ok(())
        }
        _ => write!(f, "{suggestion}"),
    }
}
