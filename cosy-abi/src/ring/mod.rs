//! Exception-less submission (FlexSC on Conflux): a submission ring and a
//! completion ring in one region a client shares with a server, so a
//! client posts operations and whole compounds and reads their answers
//! without an IPC per request. See `docs/rings.md`.
//!
//! # The region
//!
//! ```text
//! 0x000  submission ring  client → server, conflux-queue, DEPTH slots
//! 0x400  completion ring  server → client, conflux-queue, DEPTH slots
//! 0x800  data area        the entries, to the region's end (≥ 4 KiB)
//! ```
//!
//! A submission is a descriptor `{offset, len, tag}` naming an entry in
//! the data area ([`entry`]: one operation of the server's op table, or a
//! compound with its parameters). A completion is a slot `{value, status,
//! tag}` ([`Completion`]): io_uring's completion shape, carried in the
//! queue's 16-byte slot. A compound's full results are also written into
//! its results area inside the entry, as a compound run by IPC has them.
//!
//! # Principles
//!
//! - **The rings are `conflux-queue`'s**, with its ordering rules and
//!   its signal-me flag in both directions: the server asks to be
//!   notified on the submission ring before it sleeps, the client on the
//!   completion ring; a busy peer is never notified. This crate adds no
//!   `unsafe`: the queue crate holds it.
//! - **An entry is untrusted bytes** ([`entry::UntrustedEntry`]) until it
//!   is copied out and checked once into an [`entry::Entry`]; a compound
//!   entry is verified by [`crate::Program::verify`] exactly as a compound
//!   run by IPC is. A malformed entry completes with a specific code
//!   (`code::ENTRY_*`, or the verifier's) and the server goes on with the
//!   next one; only impossible ring indices end the connection
//!   ([`RingError::Corrupt`]).
//! - **Depth is a contract**: at most [`DEPTH`] entries in flight per
//!   client. The client library refuses the next one with
//!   [`RingError::Full`]; the server takes an entry only when the
//!   completion ring has room for its answer, so a client that does not
//!   reap stalls only itself.

mod client;
mod completion;
pub mod entry;
mod error;
mod poll;
mod server;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_defer;
#[cfg(test)]
mod tests_restart;

pub use client::{ClientState, Reaped, RingClient, Ticket};
pub use completion::Completion;
pub use error::RingError;
pub use poll::{Idle, Poller};
pub use server::{Defer, NoDefer, RingServer, Scratch, ServeTarget, Served};

use conflux_queue::link::Layout;
use conflux_queue::{LayoutError, Ring};

/// Entries in flight per client: both rings' capacity.
pub const DEPTH: u32 = 32;
/// Bytes of each ring's area.
pub const RING_AREA: usize = 0x400;
/// Where the submission ring starts.
pub const SUBMISSIONS: usize = 0;
/// Where the completion ring starts.
pub const COMPLETIONS: usize = RING_AREA;
/// Where the data area starts.
pub const DATA: usize = 2 * RING_AREA;
/// The smallest data area a ring region may have.
pub const MIN_DATA: usize = 4096;

/// The two rings and the data area; the checks of `Layout::new` (ring
/// fits its area, areas aligned and apart) run when this is compiled.
pub const LAYOUT: Layout<2> = Layout::request_response(DEPTH, RING_AREA, DATA);

/// A ring region cut into its parts: the two rings (not yet given
/// roles) and the data area.
pub struct Parts<'a> {
    /// Client → server.
    pub submissions: Ring<'a>,
    /// Server → client.
    pub completions: Ring<'a>,
    /// The entries.
    pub data: &'a mut [u8],
}

impl<'a> Parts<'a> {
    /// Formats `region` as an empty pair of rings (the client, once, before
    /// it hands the region to the server).
    pub fn format(region: &'a mut [u8]) -> Result<Self, RingError> {
        Self::cut(region, Ring::format)
    }

    /// Uses the rings a client formatted in `region` (the server).
    pub fn attach(region: &'a mut [u8]) -> Result<Self, RingError> {
        Self::cut(region, Ring::attach)
    }

    fn cut(
        region: &'a mut [u8],
        make: fn(&'a mut [u8], u32) -> Result<Ring<'a>, LayoutError>,
    ) -> Result<Self, RingError> {
        let have = region.len();
        if LAYOUT.check_len(have).is_err() {
            return Err(RingError::TooSmall {
                need: DATA + MIN_DATA,
                have,
            });
        }
        let (rings, data) = region.split_at_mut(DATA);
        let (submissions, completions) = rings.split_at_mut(COMPLETIONS);
        Ok(Parts {
            submissions: make(submissions, DEPTH).map_err(RingError::from_layout)?,
            completions: make(completions, DEPTH).map_err(RingError::from_layout)?,
            data,
        })
    }
}
