//! One manifest built on another: `system.extends` names a base manifest
//! (a path relative to the extending manifest's folder) and the two TOML
//! documents are merged before anything else reads them, so a test
//! system states only how it differs from the system it tests.
//!
//! The rules (also in the crate's schema):
//!
//! 1. The base is read and parsed as TOML and resolved by these same
//!    rules first when it extends another manifest itself, so a test can
//!    extend a test system that extends the system it tests. A manifest
//!    that appears twice in its own chain is a cycle, refused with the
//!    whole chain in the message.
//! 2. `system.without` (optional, a list of dotted keys such as
//!    `"tasks.shell"` or `"regions.shell_control"`) removes those keys
//!    from the base first; each must exist in the base.
//! 3. Then every key of the extending manifest is merged into the base:
//!    where both hold a table (`[tasks.x]`, inline tables too) the tables
//!    merge key by key by these same rules; any other value (a number, a
//!    string, an array) replaces the base's whole, so `forwards` or
//!    `expect` are never appended to. A key that is a table on one side
//!    and a value on the other is an error. Keys keep the base's order,
//!    new ones follow.
//! 4. `extends` and `without` are removed; every extending manifest in a
//!    chain must set `system.name`, different from its base's.
//! 5. File paths in the result (`folder`, `image`) are read relative to
//!    the folder of the manifest that was loaded (the chain's first), so a
//!    base in `qemu/systems/` and a test in `qemu/tests/` share `../disk`.
//!
//! An error about a rule names the file that broke it: the loaded
//! manifest's origin as given, or a base's path in the chain.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::error::{Error, ExtendsRule};

const EXTENDS: &str = "extends";
const WITHOUT: &str = "without";

/// Fails if `document` (parsed without a file) extends another manifest.
pub(crate) fn refuse(origin: &str, document: &Table) -> Result<(), Error> {
    let system = document.get("system").and_then(Value::as_table);
    if system.is_some_and(|s| s.contains_key(EXTENDS) || s.contains_key(WITHOUT)) {
        return Err(fail(origin, ExtendsRule::NeedsFile));
    }
    Ok(())
}

/// The document of the manifest at `path`, its bases merged in when it
/// extends one, and the files it was made from (`path` first, then each
/// base down the chain).
pub(crate) fn resolve(
    origin: &str,
    path: &Path,
    document: Table,
) -> Result<(Table, Vec<PathBuf>), Error> {
    let mut chain = vec![path.to_path_buf()];
    let merged = resolve_level(origin, path, document, &mut chain)?;
    Ok((merged, chain))
}

/// `document` (read from `path`, named `origin` in errors) with its base
/// chain resolved and merged in; `chain` holds the files read so far and
/// gains each base.
fn resolve_level(
    origin: &str,
    path: &Path,
    mut document: Table,
    chain: &mut Vec<PathBuf>,
) -> Result<Table, Error> {
    let Some(system) = document.get_mut("system").and_then(Value::as_table_mut) else {
        return Ok(document);
    };
    let without = system.remove(WITHOUT);
    let base_path = match system.remove(EXTENDS) {
        None if without.is_some() => {
            return Err(wrong_type(
                origin,
                WITHOUT,
                "used only beside `system.extends`",
            ))
        }
        None => return Ok(document),
        Some(Value::String(relative)) => path.parent().unwrap_or(Path::new(".")).join(relative),
        Some(_) => {
            return Err(wrong_type(
                origin,
                EXTENDS,
                "a string: the base manifest's path, relative to this manifest's folder",
            ))
        }
    };
    let base = base_path.display().to_string();
    if chain.iter().any(|seen| same_file(seen, &base_path)) {
        let mut names: Vec<String> = chain.iter().map(|p| p.display().to_string()).collect();
        names.push(base);
        return Err(fail(
            origin,
            ExtendsRule::Cycle {
                chain: names.join(" -> "),
            },
        ));
    }
    chain.push(base_path.clone());
    let base_document = read_base(origin, &base_path, &base)?;
    let mut merged = resolve_level(&base, &base_path, base_document, chain)?;
    for key in keys(origin, without)? {
        if !remove(&mut merged, &key) {
            return Err(fail(origin, ExtendsRule::NotInBase { base, key }));
        }
    }
    check_name(origin, &base, &merged, &document)?;
    merge(&mut merged, document, "")
        .map_err(|key| fail(origin, ExtendsRule::Shape { base, key }))?;
    Ok(merged)
}

/// Whether `a` and `b` name the same file (compared as canonical paths
/// where both exist, so `tests/../tests/x.toml` is `tests/x.toml`).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The base's document, parsed.
fn read_base(origin: &str, path: &Path, base: &str) -> Result<Table, Error> {
    let unreadable = |error: String| {
        fail(
            origin,
            ExtendsRule::Unreadable {
                base: base.to_owned(),
                error,
            },
        )
    };
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(e.to_string()))?;
    text.parse().map_err(|e: toml::de::Error| {
        unreadable(format!("invalid TOML: {}", e.message().trim_end()))
    })
}

/// `system.without` as dotted keys.
fn keys(origin: &str, without: Option<Value>) -> Result<Vec<String>, Error> {
    let expected = "a list of dotted keys of the base, e.g. [\"tasks.shell\"]";
    match without {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(key) => Ok(key),
                _ => Err(wrong_type(origin, WITHOUT, expected)),
            })
            .collect(),
        Some(_) => Err(wrong_type(origin, WITHOUT, expected)),
    }
}

/// Removes the dotted `key` from `table`; whether it was there.
fn remove(table: &mut Table, key: &str) -> bool {
    match key.split_once('.') {
        None => table.remove(key).is_some(),
        Some((head, rest)) => table
            .get_mut(head)
            .and_then(Value::as_table_mut)
            .is_some_and(|inner| remove(inner, rest)),
    }
}

/// The extending manifest names its own system.
fn check_name(origin: &str, base: &str, merged: &Table, child: &Table) -> Result<(), Error> {
    let name = |t: &Table| {
        t.get("system")
            .and_then(Value::as_table)
            .and_then(|s| s.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let base = base.to_owned();
    match (name(child), name(merged)) {
        (None, _) => Err(fail(origin, ExtendsRule::NoName { base })),
        (Some(own), Some(theirs)) if own == theirs => {
            Err(fail(origin, ExtendsRule::SameName { base, name: own }))
        }
        _ => Ok(()),
    }
}

/// Merges `from` into `into` (rule 3); the dotted key where a table meets
/// a value.
fn merge(into: &mut Table, from: Table, prefix: &str) -> Result<(), String> {
    for (key, value) in from {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (into.get_mut(&key), value) {
            (Some(Value::Table(base)), Value::Table(own)) => merge(base, own, &path)?,
            (Some(Value::Table(_)), _) | (Some(_), Value::Table(_)) => return Err(path),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
    Ok(())
}

fn wrong_type(origin: &str, key: &'static str, expected: &'static str) -> Error {
    fail(origin, ExtendsRule::WrongType { key, expected })
}

fn fail(origin: &str, rule: ExtendsRule) -> Error {
    Error::Extends {
        origin: origin.to_owned(),
        rule,
    }
}
