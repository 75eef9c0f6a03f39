//! What the file server (`servers/fs/server`) and its clients agree on, written
//! down once so neither side re-derives a number or a layout.
//!
//! - [`ops`]: the file operations. One table serves both paths: an
//!   operation's number is the `sub` of a compound's `CALL` and, plus
//!   [`ipc::VAN_BASE`], the label of a one-operation IPC.
//! - [`error`]: the error codes a failed operation reports (errno
//!   numbers, so they read familiarly), with a message for each.
//! - [`record`]: the fixed little-endian records the server writes into
//!   client buffers (`stat`, directory entries, file-system totals).
//! - [`ipc`]: connection labels, how a buffer operand travels in a
//!   message word, and the reply words of a compound run.
//!
//! - [`recipes`] (feature `builder`): compounds for common jobs, such as
//!   `ls -l` of a directory as one compound.
//!
//! Everything here is plain data with checked conversions: the server
//! treats every client word as untrusted and decodes it through these
//! types once.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "builder")]
extern crate alloc;

pub mod error;
pub mod ipc;
pub mod ops;
#[cfg(feature = "builder")]
pub mod recipes;
pub mod record;

pub use error::FsError;
