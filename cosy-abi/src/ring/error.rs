//! What can go wrong with a ring connection, for either end.

use core::fmt;

use conflux_queue::{Corrupt, LayoutError, PushError};

/// Why a ring operation failed. The server answers a malformed *entry*
/// with a completion, not with this; these are about the connection
/// itself or the client's own call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingError {
    /// The region cannot hold the rings and the smallest data area.
    TooSmall {
        /// Bytes it needs at least.
        need: usize,
        /// Bytes it has.
        have: usize,
    },
    /// The region does not start on a 64-byte boundary.
    Misaligned,
    /// The region's rings were never formatted (or for another depth).
    NotFormatted,
    /// A ring's indices are impossible: the peer wrote over them. The
    /// connection is unusable; the server drops it and serves the others.
    Corrupt,
    /// The client has [`super::DEPTH`] entries in flight: reap
    /// completions before submitting more.
    Full {
        /// The depth, the limit reached.
        depth: u32,
    },
    /// The entry does not fit in its slot of the data area.
    EntryTooLarge {
        /// Bytes the entry needs.
        len: usize,
        /// Bytes a slot has.
        max: usize,
    },
    /// More operand words or parameters than an entry of that kind takes.
    TooManyWords {
        /// Words given.
        count: usize,
        /// Words the kind takes at most.
        max: usize,
    },
    /// A completion names no entry in flight, or carries a status that
    /// is not a code: the server is broken. The completion was consumed.
    BadCompletion {
        /// Its tag.
        tag: u32,
        /// Its status word.
        status: u32,
    },
}

impl RingError {
    pub(crate) fn from_layout(e: LayoutError) -> Self {
        match e {
            LayoutError::Misaligned => Self::Misaligned,
            LayoutError::NotFormatted | LayoutError::CapacityMismatch { .. } => Self::NotFormatted,
            LayoutError::TooSmall { need, have } => Self::TooSmall { need, have },
            LayoutError::BadCapacity(_) => Self::NotFormatted,
        }
    }
}

impl From<Corrupt> for RingError {
    fn from(_: Corrupt) -> Self {
        Self::Corrupt
    }
}

impl From<PushError> for RingError {
    fn from(e: PushError) -> Self {
        match e {
            PushError::Corrupt(_) => Self::Corrupt,
            // Callers check the room first; a full ring here means the
            // peer moved an index it does not own.
            PushError::Full => Self::Corrupt,
        }
    }
}

impl fmt::Display for RingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooSmall { need, have } => write!(
                f,
                "the ring region has {have} bytes and needs at least {need}: give it more pages"
            ),
            Self::Misaligned => f.write_str(
                "the ring region does not start on a 64-byte boundary: share a page-aligned region",
            ),
            Self::NotFormatted => f.write_str(
                "the ring region is not formatted for this ring depth: the client formats it before handing it to the server",
            ),
            Self::Corrupt => f.write_str(
                "a ring's indices are impossible (the peer wrote over them): stop using this ring",
            ),
            Self::Full { depth } => write!(
                f,
                "{depth} entries are in flight, the ring's depth: reap completions before submitting more"
            ),
            Self::EntryTooLarge { len, max } => write!(
                f,
                "the entry needs {len} bytes and a ring slot holds {max}: send a smaller compound, or run it by IPC"
            ),
            Self::TooManyWords { count, max } => write!(
                f,
                "{count} words given where an entry of this kind takes at most {max}: an operation takes its operands, a compound up to 32 parameters"
            ),
            Self::BadCompletion { tag, status } => write!(
                f,
                "the server completed tag {tag:#x} with status {status:#x}, which names no entry in flight or no code: the server is broken"
            ),
        }
    }
}
