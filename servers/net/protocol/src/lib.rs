//! What the network server (`servers/net/server`) and its clients agree on,
//! written down once so neither side re-derives a number or a layout.
//!
//! - [`ops`]: the socket operations. One table serves both paths: an
//!   operation's number is the `sub` of a compound's `CALL` and, plus
//!   [`ops::VAN_BASE`], the label of a one-operation IPC.
//! - [`error`]: the error codes a failed operation reports (Linux errno
//!   numbers, so they read familiarly), with a message for each.
//! - [`record`]: socket addresses (as one operand word and as a fixed
//!   record), socket kinds, readiness bits and the `wait` entries.
//! - [`info`]: the `net_info` record (addresses, socket counts, traffic).
//!
//! Everything here is plain data with checked conversions: the server
//! treats every client word as untrusted and decodes it through these
//! types once.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

pub mod error;
pub mod info;
pub mod ops;
pub mod record;

pub use error::NetError;
pub use info::{NetInfo, SocketCounts, Traffic};
pub use record::{Events, PollEntry, SockAddr, SockKind};
