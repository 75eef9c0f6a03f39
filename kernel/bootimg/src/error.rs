//! Why a boot image was rejected.
//!
//! The runner builds images, so a rejection in the kernel means a runner
//! and kernel from different versions, or a corrupted file: each variant
//! says which field was wrong so the mismatch can be found quickly.

use core::fmt;

/// A malformed boot image, or task data the encoder cannot represent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// The image is shorter than its header or than the length it claims.
    Truncated { need: u64, have: u64 },
    /// The first eight bytes are not `CFLXBOOT`.
    BadMagic,
    /// The image was written for another format version.
    BadVersion { found: u32 },
    /// The task count is zero or above [`crate::MAX_TASKS`].
    BadTaskCount { count: u32 },
    /// A name is empty, too long, not NUL-padded or not UTF-8
    /// (`task` is `None` for the system name).
    BadName { task: Option<u32> },
    /// A task's ELF file lies outside the image or is misaligned.
    BadElfRange { task: u32 },
    /// A task's stack or heap size is not a whole number of pages, or its
    /// stack is empty.
    BadSize { task: u32 },
    /// A reserved field is not zero.
    ReservedNotZero { task: Option<u32> },
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { need, have } => write!(
                f,
                "boot image truncated: needs {need} bytes, has {have}; rebuild it with the runner"
            ),
            Self::BadMagic => f.write_str("boot image has no CFLXBOOT magic: the initrd is not a Conflux boot image"),
            Self::BadVersion { found } => write!(
                f,
                "boot image format version {found}, this kernel reads {}; rebuild kernel and image together",
                crate::VERSION
            ),
            Self::BadTaskCount { count } => {
                write!(f, "boot image lists {count} tasks; 1..={} are allowed", crate::MAX_TASKS)
            }
            Self::BadName { task: None } => f.write_str("boot image system name is empty, too long or not UTF-8"),
            Self::BadName { task: Some(i) } => {
                write!(f, "boot image task record {i}: name is empty, too long or not UTF-8")
            }
            Self::BadElfRange { task } => {
                write!(f, "boot image task record {task}: ELF file lies outside the image or is misaligned")
            }
            Self::BadSize { task } => {
                write!(f, "boot image task record {task}: stack/heap size is not a whole number of pages (or the stack is empty)")
            }
            Self::ReservedNotZero { task: None } => f.write_str("boot image header: reserved field is not zero"),
            Self::ReservedNotZero { task: Some(i) } => {
                write!(f, "boot image task record {i}: reserved field is not zero")
            }
        }
    }
}
