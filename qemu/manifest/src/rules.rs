//! Rules for single values: name syntax, integer ranges, page multiples.
//!
//! Each check takes the [`Fields`] the value came from, so its error names
//! the file and the key path, and returns the value in its trusted Rust type.

use crate::error::Error;
use crate::limits::{MAX_NAME_LEN, PAGE_SIZE};
use crate::strict::Fields;

/// The syntax of one kind of name.
pub(crate) struct NameRule {
    /// What the name is, in messages ("task name").
    pub what: &'static str,
    first: fn(char) -> bool,
    rest: fn(char) -> bool,
    /// The rule, in words, completing "it must ...".
    pub rule: &'static str,
    /// Longest allowed name in bytes, if limited.
    pub max_len: Option<usize>,
}

fn lower_alpha(c: char) -> bool {
    c.is_ascii_lowercase()
}

fn system_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
}

fn task_char(c: char) -> bool {
    system_char(c) || c == '_'
}

fn crate_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn crate_first(c: char) -> bool {
    c.is_ascii_alphabetic()
}

pub(crate) const SYSTEM_NAME: NameRule = NameRule {
    what: "system name",
    first: lower_alpha,
    rest: system_char,
    rule: "start with a lowercase letter and hold only lowercase letters, digits and `-`",
    max_len: Some(MAX_NAME_LEN),
};

pub(crate) const TASK_NAME: NameRule = NameRule {
    what: "task name",
    first: lower_alpha,
    rest: task_char,
    rule: "start with a lowercase letter and hold only lowercase letters, digits, `_` and `-`",
    max_len: Some(MAX_NAME_LEN),
};

/// Endpoints, notifications, regions, ...: the task name syntax.
pub(crate) const OBJECT_NAME: NameRule = NameRule {
    what: "object name",
    ..TASK_NAME
};

/// The keys of `[devices]`: the task name syntax, shorter.
pub(crate) const DEVICE_NAME: NameRule = NameRule {
    what: "device name",
    max_len: Some(crate::limits::MAX_DEVICE_NAME_LEN),
    ..TASK_NAME
};

/// The keys of `[tasks.NAME.caps]`: the task name syntax.
pub(crate) const CAP_NAME: NameRule = NameRule {
    what: "capability name",
    ..TASK_NAME
};

/// Cargo's package name syntax.
pub(crate) const CRATE_NAME: NameRule = NameRule {
    what: "crate name",
    first: crate_first,
    rest: crate_char,
    rule: "be a cargo package name: a letter, then letters, digits, `_` and `-`",
    max_len: None,
};

/// Checks `name` against `rule`; errors name `path` (a key, or for a task
/// the task's own table).
pub(crate) fn name(
    fields: &Fields,
    path: String,
    name: &str,
    rule: &NameRule,
) -> Result<String, Error> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(rule.first) && chars.all(rule.rest);
    if !valid {
        return Err(Error::InvalidName {
            origin: fields.origin().to_owned(),
            path,
            what: rule.what,
            name: name.to_owned(),
            rule: rule.rule,
        });
    }
    match rule.max_len {
        Some(max) if name.len() > max => Err(Error::NameTooLong {
            origin: fields.origin().to_owned(),
            path,
            what: rule.what,
            name: name.to_owned(),
            max,
        }),
        _ => Ok(name.to_owned()),
    }
}

/// Whether an integer counts things or bytes (bytes are also shown in KiB
/// or MiB in messages).
#[derive(Clone, Copy)]
pub(crate) enum Unit {
    Count,
    Bytes,
}

/// Reads the integer at `key` (or takes `default` when it is absent and
/// `default` is given) and checks that it lies in `min..=max`.
pub(crate) fn integer<T>(
    fields: &Fields,
    key: &'static str,
    default: Option<T>,
    min: T,
    max: T,
    unit: Unit,
) -> Result<T, Error>
where
    T: Copy + Into<i64> + TryFrom<i64>,
{
    let value = match default {
        Some(default) => fields.optional::<i64>(key)?.unwrap_or(default.into()),
        None => fields.required::<i64>(key)?,
    };
    let (min, max) = (min.into(), max.into());
    if !(min..=max).contains(&value) {
        return Err(Error::OutOfRange {
            origin: fields.origin().to_owned(),
            path: fields.path_of(key),
            value,
            min,
            max,
            bytes: matches!(unit, Unit::Bytes),
        });
    }
    Ok(T::try_from(value)
        .ok()
        .expect("a value within T's range converts to T"))
}

/// Reads a size in bytes at `key` (or takes `default`, as in [`integer`])
/// and checks its range and that it is a whole number of pages.
pub(crate) fn pages<T>(
    fields: &Fields,
    key: &'static str,
    default: Option<T>,
    min: T,
    max: T,
) -> Result<T, Error>
where
    T: Copy + Into<i64> + TryFrom<i64>,
{
    let size = integer(fields, key, default, min, max, Unit::Bytes)?;
    let value: i64 = size.into();
    if value % i64::from(PAGE_SIZE) != 0 {
        return Err(Error::NotPageMultiple {
            origin: fields.origin().to_owned(),
            path: fields.path_of(key),
            value,
        });
    }
    Ok(size)
}

/// An integer in `min..=max` as a `u64` (TOML integers are `i64`, so
/// `max` must fit one).
pub(crate) fn unsigned(
    fields: &Fields,
    key: &'static str,
    min: u64,
    max: u64,
    unit: Unit,
) -> Result<u64, Error> {
    let wide = |n: u64| i64::try_from(n).expect("manifest limits fit an i64");
    let value = integer(fields, key, None, wide(min), wide(max), unit)?;
    Ok(value.unsigned_abs())
}

/// A page-multiple size in `min..=max` bytes, as a `u64`.
pub(crate) fn page_size(
    fields: &Fields,
    key: &'static str,
    min: u64,
    max: u64,
) -> Result<u64, Error> {
    let wide = |n: u64| i64::try_from(n).expect("manifest limits fit an i64");
    Ok(pages(fields, key, None, wide(min), wide(max))?.unsigned_abs())
}
