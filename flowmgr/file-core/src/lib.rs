//! What the file flow stage (`flowfile`) decides about byte ranges, apart
//! from the task that talks to the file server, so it is host-tested.
//!
//! - [`ReadCursor`]: the source's place in `[offset, offset + length)` of
//!   a file, cut to the file's size at START; how many bytes the next
//!   buffer takes, and the end once a read comes back short.
//! - [`WriteLimit`]: the sink's place in the file and what is left of its
//!   `length`; how much of a buffer it may write and how much is excess.
//! - [`figures`]: the two STATS words of each.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

mod cursor;
pub mod figures;
mod limit;

pub use cursor::{ReadCursor, SourceRefusal};
pub use limit::{Accepted, WriteLimit};
