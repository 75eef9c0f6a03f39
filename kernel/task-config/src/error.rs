//! What can be wrong with a configuration section, for the writer (the
//! runner) and the reader (the task at start).

use core::fmt;

/// A configuration section that cannot be written or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The section is all zeros where the magic should be: the image was
    /// not made by the runner, or the runner skipped this task.
    Empty,
    /// The first four bytes are neither zero nor the magic.
    BadMagic,
    /// The section was written in another format version.
    Version { found: u16, expected: u16 },
    /// The section's size disagrees with the size this side knows.
    Size { found: usize, expected: usize },
    /// The header's used-byte count is below the header or past the section.
    Used { used: usize, size: usize },
    /// A task name longer than [`crate::MAX_NAME`] or not UTF-8.
    Name { len: usize },
    /// An entry's key is empty, too long or not UTF-8.
    Key { entry: usize },
    /// Entry `entry` runs past the used bytes.
    Truncated { entry: usize },
    /// The entries do not fit the section.
    Full { needed: usize, size: usize },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Empty => write!(f, "the configuration section is empty: this image was not made by the conflux runner, which fills each task's section at image time; boot images built with `cargo make run`"),
            Self::BadMagic => write!(f, "the configuration section does not start with `CFXT`: the image is damaged or was made by another tool; rebuild it with `cargo make run`"),
            Self::Version { found, expected } => write!(f, "the configuration section is version {found}, this task reads version {expected}: the runner and the task come from different trees; rebuild both from one checkout"),
            Self::Size { found, expected } => write!(f, "the configuration section is {found} bytes where {expected} were expected: the runner and the task come from different trees; rebuild both from one checkout"),
            Self::Used { used, size } => write!(f, "the configuration section says {used} bytes are used, outside 64..={size}: the image is damaged; rebuild it"),
            Self::Name { len } => write!(f, "the task name in the configuration section is {len} bytes or not UTF-8 (at most 31 bytes of UTF-8): the image is damaged; rebuild it"),
            Self::Key { entry } => write!(f, "entry {entry} of the configuration section has an empty, over-long or non-UTF-8 key: the image is damaged; rebuild it"),
            Self::Truncated { entry } => write!(f, "entry {entry} of the configuration section runs past its used bytes: the image is damaged; rebuild it"),
            Self::Full { needed, size } => write!(f, "the task's configuration needs {needed} bytes but its section holds {size}: raise conflux-task-config's SIZE"),
        }
    }
}
