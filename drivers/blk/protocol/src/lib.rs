//! The block protocol between a block driver and one client.
//!
//! Client and driver share one region (the client's, mapped by the driver
//! with the DMA right, so the device reads and writes the client's buffers
//! in place — zero copy). Its layout:
//!
//! ```text
//! 0x0000  request ring   (client → driver, conflux-queue, CAPACITY slots)
//! 0x0400  response ring  (driver → client)
//! 0x0800  request table  CAPACITY × 16 bytes: op u32, status u32, block u64
//! 0x0f00  session        u64, written by the client (see below)
//! 0x0f08  attached       u64, written by the driver: the session it serves
//! 0x1000  data area      the rest; descriptors' offsets are relative to it
//! ```
//!
//! A request is a descriptor `{offset, len, id}` on the request ring, where
//! `id` names a request-table entry holding the operation and the first
//! block; the driver answers with the same descriptor on the response ring
//! after writing the entry's status. The client never reuses an id before
//! its response came back.
//!
//! The driver trusts nothing in the region: [`Server::next_request`] copies each
//! table entry once and checks the id, the operation, the length (whole
//! sectors, at most [`MAX_TRANSFER`]) and, through the queue crate, that the
//! data lies inside the data area, before it becomes a [`Request`]. Whether
//! the blocks exist is the driver's check (it knows the capacity).
//!
//! **Sessions** (see [`session`]): each time a client formats the region
//! (at its start, and again after it was restarted) it begins a new
//! session with a fresh number. The driver serves one session at a time:
//! it stops taking requests from a session whose number is gone, lets the
//! device finish that session's requests without answering them, and only
//! then attaches to the new one and writes its number into `attached`. So
//! a restarted client never receives an answer meant for its previous
//! instance, and a restarted driver, finding `attached` equal to the
//! session, knows the requests marked in flight are that session's.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

pub mod session;
mod shared;

use conflux_queue::link::Layout;

pub use shared::{Client, Server};

/// Requests that can be outstanding at once (ring capacity, table size).
pub const CAPACITY: u32 = 32;
/// Bytes per sector (block numbers count sectors).
pub const SECTOR: u32 = 512;
/// Largest single transfer.
pub const MAX_TRANSFER: u32 = 256 * 1024;
/// Offsets of the parts of the shared region.
pub const REQUEST_RING: usize = 0x0000;
pub const RESPONSE_RING: usize = 0x0400;
pub const TABLE: usize = 0x0800;
pub const SESSION: usize = 0x0f00;
pub const ATTACHED: usize = 0x0f08;
pub const DATA: usize = 0x1000;
/// Bytes of one ring's area.
pub const RING_AREA: usize = 0x400;

/// The rings (request, response) and the data area, of at least a page.
pub const LAYOUT: Layout<2> = Layout::request_response(CAPACITY, RING_AREA, DATA);

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Op {
    Read = 1,
    Write = 2,
    Flush = 3,
    /// The client is done with the device: the driver answers, then stops
    /// serving it (and ends once every client has detached).
    Detach = 4,
}

impl Op {
    pub fn from_raw(raw: u32) -> Option<Self> {
        Some(match raw {
            1 => Self::Read,
            2 => Self::Write,
            3 => Self::Flush,
            4 => Self::Detach,
            _ => return None,
        })
    }
}

/// How a request ended, in its table entry's `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Status {
    Ok = 0,
    /// The op is not one of [`Op`].
    BadOp = 1,
    /// The blocks are not all on the device.
    OutOfRange = 2,
    /// The length is not whole sectors, or is larger than [`MAX_TRANSFER`].
    BadLength = 3,
    /// The descriptor's data is not inside the data area, or its id names
    /// no table entry.
    BadDescriptor = 4,
    /// The device reported an error.
    DeviceError = 5,
    /// The driver restarted while the request was in flight; it may or may
    /// not have reached the device. Send it again.
    Restarted = 6,
    /// Taken by the driver and not answered yet (the driver writes it when
    /// it takes the request, so a restarted driver knows what was lost).
    InFlight = 7,
    /// Not answered yet (the value a client writes before submitting).
    Pending = 0xffff_ffff,
}

impl Status {
    pub fn from_raw(raw: u32) -> Self {
        match raw {
            0 => Self::Ok,
            1 => Self::BadOp,
            2 => Self::OutOfRange,
            3 => Self::BadLength,
            4 => Self::BadDescriptor,
            5 => Self::DeviceError,
            6 => Self::Restarted,
            7 => Self::InFlight,
            _ => Self::Pending,
        }
    }
}

/// A request the driver may act on: every field checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub id: u32,
    pub op: Op,
    /// First sector.
    pub block: u64,
    /// Byte range inside the data area.
    pub offset: u64,
    pub len: u32,
}

/// A request refused before it reached the device: answer it with this
/// status (the id and descriptor are echoed back so the client can match it).
pub type Refused = conflux_queue::link::Refused<Status>;

/// Why the shared region is not (or no longer) usable as a block
/// connection; the same error every client protocol reports.
pub use conflux_queue::link::LinkError;
