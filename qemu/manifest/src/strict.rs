//! Strict, typed access to one TOML table of an untrusted manifest.
//!
//! A [`Fields`] is made only after every key of its table has been checked
//! against the keys the schema allows there, so a misspelt key is reported
//! (with a suggestion) before it can be mistaken for a missing one. Values
//! are then taken out one key at a time, with the expected TOML type; a
//! mismatch names the full key path and both types. This module knows TOML,
//! not the Conflux schema: new tables and value types are added by the
//! schema without touching it.

use toml::{Table, Value};

use crate::error::Error;
use crate::suggest::{Suggestion, Words};

/// How a table is described in messages; [`Error::MissingKey`] uses it to
/// tell a missing table from a missing value.
pub(crate) const TABLE: &str = "a table";

/// One table whose keys are all known to the schema.
pub(crate) struct Fields<'a> {
    origin: &'a str,
    /// The table's path from the top level ("" for the top level itself).
    path: String,
    table: &'a Table,
}

/// A Rust type that a TOML value can be read as.
pub(crate) trait FromToml<'a>: Sized {
    /// The expected type, as said in messages ("an integer").
    const EXPECTED: &'static str;

    fn from_toml(value: &'a Value) -> Option<Self>;
}

impl<'a> Fields<'a> {
    /// Checks that every key of `table` is in `allowed`.
    pub(crate) fn new(
        origin: &'a str,
        path: String,
        table: &'a Table,
        allowed: &'static [&'static str],
    ) -> Result<Self, Error> {
        let unknown = table.keys().find(|key| !allowed.contains(&key.as_str()));
        if let Some(key) = unknown {
            return Err(Error::UnknownKey {
                origin: origin.to_owned(),
                table: path,
                key: key.clone(),
                suggestion: Box::new(Suggestion::new(key, allowed, Words::Keys)),
            });
        }
        Ok(Fields {
            origin,
            path,
            table,
        })
    }

    pub(crate) fn origin(&self) -> &'a str {
        self.origin
    }

    /// This table's path from the top level ("" for the top level).
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The full path of `key` in this table, as written in messages.
    pub(crate) fn path_of(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The value of `key`, if present.
    pub(crate) fn optional<T: FromToml<'a>>(&self, key: &str) -> Result<Option<T>, Error> {
        self.table
            .get(key)
            .map(|value| self.convert(&self.path_of(key), value))
            .transpose()
    }

    /// Whether the table has `key`.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// The value of `key`, which must be present.
    pub(crate) fn required<T: FromToml<'a>>(&self, key: &'static str) -> Result<T, Error> {
        self.optional(key)?.ok_or_else(|| Error::MissingKey {
            origin: self.origin.to_owned(),
            table: self.path.clone(),
            key,
            expected: T::EXPECTED,
        })
    }

    /// The sub-table at `key`, if present, with its keys checked.
    pub(crate) fn optional_table(
        &self,
        key: &str,
        allowed: &'static [&'static str],
    ) -> Result<Option<Fields<'a>>, Error> {
        self.optional::<&Table>(key)?
            .map(|table| Fields::new(self.origin, self.path_of(key), table, allowed))
            .transpose()
    }

    /// The sub-table at `key`, which must be present, with its keys checked.
    pub(crate) fn required_table(
        &self,
        key: &'static str,
        allowed: &'static [&'static str],
    ) -> Result<Fields<'a>, Error> {
        let table = self.required::<&Table>(key)?;
        Fields::new(self.origin, self.path_of(key), table, allowed)
    }

    /// The entries of the table at `key`, whose keys are names chosen by the
    /// user (such as the task names in `[tasks]`); each entry must be a
    /// table with `allowed` keys. An absent table has no entries.
    pub(crate) fn named_tables(
        &self,
        key: &str,
        allowed: &'static [&'static str],
    ) -> Result<Vec<(&'a str, Fields<'a>)>, Error> {
        let Some(table) = self.optional::<&Table>(key)? else {
            return Ok(Vec::new());
        };
        let path = self.path_of(key);
        table
            .iter()
            .map(|(name, value)| {
                let entry_path = join(&path, name);
                let entry = self.convert::<&Table>(&entry_path, value)?;
                Ok((
                    name.as_str(),
                    Fields::new(self.origin, entry_path, entry, allowed)?,
                ))
            })
            .collect()
    }

    fn convert<T: FromToml<'a>>(&self, path: &str, value: &'a Value) -> Result<T, Error> {
        T::from_toml(value).ok_or_else(|| Error::WrongType {
            origin: self.origin.to_owned(),
            path: path.to_owned(),
            expected: T::EXPECTED,
            found: describe(value),
        })
    }
}

/// `table.key`, quoting `key` when TOML would need quotes for it.
pub(crate) fn join(table: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare {
        key.to_owned()
    } else {
        format!("{key:?}")
    };
    if table.is_empty() {
        key
    } else {
        format!("{table}.{key}")
    }
}

/// The TOML type of `value`, as said in messages.
fn describe(value: &Value) -> String {
    match value {
        Value::String(_) => "a string".to_owned(),
        Value::Integer(_) => "an integer".to_owned(),
        Value::Float(_) => "a float".to_owned(),
        Value::Boolean(_) => "a boolean".to_owned(),
        Value::Datetime(_) => "a date-time".to_owned(),
        Value::Table(_) => TABLE.to_owned(),
        Value::Array(items) => match items.iter().find(|item| !item.is_str()) {
            Some(item) => format!("an array holding {}", describe(item)),
            None if items.is_empty() => "an array".to_owned(),
            None => "an array of strings".to_owned(),
        },
    }
}

impl<'a> FromToml<'a> for &'a str {
    const EXPECTED: &'static str = "a string";

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_str()
    }
}

impl<'a> FromToml<'a> for bool {
    const EXPECTED: &'static str = "a boolean";

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_bool()
    }
}

impl<'a> FromToml<'a> for i64 {
    const EXPECTED: &'static str = "an integer";

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_integer()
    }
}

impl<'a> FromToml<'a> for Vec<&'a str> {
    const EXPECTED: &'static str = "an array of strings";

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_array()?.iter().map(Value::as_str).collect()
    }
}

impl<'a> FromToml<'a> for Vec<i64> {
    const EXPECTED: &'static str = "an array of integers";

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_array()?.iter().map(Value::as_integer).collect()
    }
}

impl<'a> FromToml<'a> for &'a Table {
    const EXPECTED: &'static str = TABLE;

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_table()
    }
}

impl<'a> FromToml<'a> for Vec<&'a Table> {
    const EXPECTED: &'static str = "an array of tables";

    fn from_toml(value: &'a Value) -> Option<Self> {
        value.as_array()?.iter().map(Value::as_table).collect()
    }
}
