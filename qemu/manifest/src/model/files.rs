//! File rights: what a client of a file server may do to the file tree,
//! written on its endpoint capability (`root`, `access`) and handed to
//! the server as generated constants aligned with its client badges.

use std::fmt;
use std::str::FromStr;

use super::{variant, UnknownVariant};

/// A client's root directory and its access below it. A capability that
/// says nothing gets [`FileRights::default`]: the whole tree, read-write.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileRights {
    /// Absolute and normalised (no `.`, `..`, empty name or trailing `/`).
    pub root: String,
    pub access: Access,
}

/// Whether a client may change files below its root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Access {
    ReadOnly,
    #[default]
    ReadWrite,
}

impl Default for FileRights {
    fn default() -> Self {
        FileRights {
            root: "/".to_owned(),
            access: Access::default(),
        }
    }
}

impl Access {
    pub const ALL: [Access; 2] = [Access::ReadOnly, Access::ReadWrite];
    pub const NAMES: &'static [&'static str] = &["read-only", "read-write"];

    pub fn as_str(self) -> &'static str {
        match self {
            Access::ReadOnly => "read-only",
            Access::ReadWrite => "read-write",
        }
    }
}

impl FromStr for Access {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        variant(&Access::ALL, Access::NAMES, "access", text)
    }
}

impl fmt::Display for FileRights {
    /// `root "/www", read-only`, as messages say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "root {:?}, {}", self.root, self.access.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_names_follow_variants() {
        let names: Vec<&str> = Access::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(names, Access::NAMES);
        assert_eq!("read-only".parse::<Access>().unwrap(), Access::ReadOnly);
    }

    #[test]
    fn the_default_is_the_whole_tree_read_write() {
        let d = FileRights::default();
        assert_eq!(d.to_string(), "root \"/\", read-write");
    }
}
