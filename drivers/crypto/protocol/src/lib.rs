//! The cipher protocol between a crypto driver and one client.
//!
//! Client and driver share one region (the client's, mapped by the driver
//! with the DMA right, so the device reads the source and writes the
//! destination in the client's memory — zero copy). Its layout:
//!
//! ```text
//! 0x0000  request ring   (client → driver, conflux-queue, CAPACITY slots)
//! 0x0300  response ring  (driver → client)
//! 0x0700  session        u64, written by the client: its session number
//! 0x0708  attached       u64, written by the driver: the session it serves
//! 0x0800  request table  CAPACITY × 64 bytes (see below)
//! 0x1000  data area      the rest; every offset is relative to it
//! ```
//!
//! A request is a descriptor `{offset, len, id}` on the request ring: `id`
//! names a request-table entry, `offset`/`len` the request's input in the
//! data area (the key of a new session, or the source of a cipher
//! request). The entry holds the rest:
//!
//! ```text
//! +0   op u32        an [`Op`]
//! +4   status u32    written by the driver: Pending → InFlight → a result
//! +8   session u64   the session a request uses; the new one's handle
//!                    after CreateSession (written by the driver)
//! +16  iv [u8; 16]   the IV (CBC) or initial counter block (CTR)
//! +32  dst u64       where in the data area the output goes (len bytes)
//! +40  param u32     CreateSession: algorithm | direction << 8
//! +48  detail u64    written by the driver with an error: a number that
//!                    says more (the device's status, a limit)
//! ```
//!
//! The driver answers with the same descriptor on the response ring after
//! writing the entry's status. The client never reuses an id before its
//! answer came back.
//!
//! Sessions belong to the client that made them: a session value is a
//! handle into that client's own table in the driver, so naming another
//! client's session (guessed or observed) is `UnknownSession`. A handle
//! also carries the driver's generation: after a driver restart or a
//! device reset the device's sessions are gone, and a request on an older
//! handle gets `SessionLost` — create the session again.
//!
//! Client sessions, as in the block protocol: every [`Client::format`]
//! stores `session = 0`, formats the rings, clears the table and then
//! publishes a fresh number ([`next_session`]); the client submits only
//! once `attached` shows it. The driver serves one session per region: a
//! changed number (the client was restarted) ends the old session — its
//! sessions destroyed on the device, as a detach would — before the
//! driver attaches to the new rings. A session the driver ended (detach,
//! damaged rings, or the supervisor saying the client is gone) is never
//! served again; the client's next session is.
//!
//! The driver trusts nothing in the region: [`Server::next_request`]
//! copies each table entry once and checks the id, the op, the lengths and,
//! through the queue crate, that source and destination lie inside the
//! data area, before it becomes a [`Request`].
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

extern crate alloc;

use conflux_queue::link::Layout;

mod gone;
mod request;
mod sessions;
mod shared;
mod status;

pub use conflux_queue::link::{next_session, LinkError};
pub use gone::gone_ends_session;
pub use request::{Algorithm, Direction, Op, Refused, Request, Span};
pub use sessions::{Open, Sessions};
pub use shared::{Client, Completion, Server, Submission};
pub use status::Status;

/// Requests that can be outstanding at once (ring capacity, table size).
pub const CAPACITY: u32 = 32;
/// The AES IV / initial counter block length.
pub const IV_LEN: usize = 16;
/// The AES block length: cipher requests are whole blocks.
pub const BLOCK: u32 = 16;
/// Largest source (and destination) of one cipher request.
pub const MAX_LEN: u32 = 256 * 1024;
/// Offsets of the parts of the shared region.
pub const REQUEST_RING: usize = 0x0000;
pub const RESPONSE_RING: usize = 0x0300;
pub const SESSION: usize = 0x0700;
pub const ATTACHED: usize = 0x0708;
pub const TABLE: usize = 0x0800;
pub const DATA: usize = 0x1000;
/// Bytes of one ring's area (a ring of CAPACITY slots takes 0x2c0).
pub const RING_AREA: usize = 0x300;

/// The rings (request, response) and the data area, of at least a page.
pub const LAYOUT: Layout<2> = Layout::request_response(CAPACITY, RING_AREA, DATA);
/// Bytes per request-table entry.
pub const ENTRY: usize = 64;
/// Sessions one client may have open at once.
pub const MAX_SESSIONS: usize = 16;
