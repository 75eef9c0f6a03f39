//! The messages of the rules on a manifest that extends another
//! (`system.extends`, `system.without`): one variant per rule.

use std::fmt;

/// Why `system.extends` or `system.without` was rejected.
#[derive(Debug)]
#[non_exhaustive]
pub enum ExtendsRule {
    /// `extends` or `without` in text parsed without a file
    /// ([`crate::parse`]): there is no folder to find the base in.
    NeedsFile,
    /// The base manifest could not be read.
    Unreadable { base: String, error: String },
    /// A manifest appears twice in its own chain of bases.
    Cycle { chain: String },
    /// `without` names a key the base does not have.
    NotInBase { base: String, key: String },
    /// A key is a table on one side and a value on the other.
    Shape { base: String, key: String },
    /// The extending manifest does not set `system.name`.
    NoName { base: String },
    /// The extending manifest keeps the base's name.
    SameName { base: String, name: String },
    /// `extends` or `without` has the wrong type.
    WrongType {
        key: &'static str,
        expected: &'static str,
    },
}

impl fmt::Display for ExtendsRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtendsRule::NeedsFile => f.write_str(
                "`system.extends` needs the manifest's file (its base is found relative to it): load it from a file",
            ),
            ExtendsRule::Unreadable { base, error } => write!(
                f,
                "`system.extends` names {base}, which cannot be used: {error}"
            ),
            ExtendsRule::Cycle { chain } => write!(
                f,
                "`system.extends` makes a cycle: {chain}; a manifest cannot be its own base: make one of them extend a manifest outside the cycle"
            ),
            ExtendsRule::NotInBase { base, key } => write!(
                f,
                "`system.without` removes `{key}`, which {base} does not have; remove it from the list"
            ),
            ExtendsRule::Shape { base, key } => write!(
                f,
                "`{key}` is a table in one of this manifest and {base} and a value in the other; tables merge only with tables: give it the base's shape, or drop it from the base with `system.without`"
            ),
            ExtendsRule::NoName { base } => write!(
                f,
                "a manifest that extends {base} needs its own `system.name`"
            ),
            ExtendsRule::SameName { base, name } => write!(
                f,
                "`system.name` is `{name}`, the name of {base} that it extends; give the system its own name"
            ),
            ExtendsRule::WrongType { key, expected } => {
                write!(f, "`system.{key}` must be {expected}")
            }
        }
    }
}
