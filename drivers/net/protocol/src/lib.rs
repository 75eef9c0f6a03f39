//! The network protocol between an Ethernet driver and one client.
//!
//! Client and driver share one region (the client's, mapped by the driver
//! with the DMA right, so the device reads frames to send and writes
//! received frames in the client's buffers in place — zero copy). Its
//! layout:
//!
//! ```text
//! 0x0000  header          mac u64 (driver), link u32 (driver),
//!                         detach u32 (client), detached u32 (driver),
//!                         (pad u32), session u64 (client), attached u64 (driver)
//! 0x0100  tx status       CAPACITY × u32, by descriptor id (driver writes)
//! 0x0200  rx status       CAPACITY × u32, by descriptor id (driver writes)
//! 0x0400  tx ring         client → driver: frames to send
//! 0x0800  tx-done ring    driver → client: sent (or refused) frames' buffers
//! 0x0c00  rx-free ring    client → driver: empty buffers to receive into
//! 0x1000  rx ring         driver → client: received frames (or refused buffers)
//! 0x2000  data area       the rest; descriptors' offsets are relative to it
//! ```
//!
//! A descriptor `{offset, len, id}` names a frame: `offset` is where the
//! Ethernet frame starts in the data area, `len` its length (tx) or the
//! room for it (rx-free). The [`HEADROOM`] bytes just before `offset`
//! belong to the driver while the descriptor is with it: the device's
//! per-frame header (virtio-net's `virtio_net_hdr`, 12 bytes) goes there, so
//! neither direction copies the frame. The driver answers every descriptor
//! it takes exactly once, on tx-done (for tx) or rx (for rx-free), with the
//! same `offset` and `id` and the status in the table entry of that `id`
//! (`id < CAPACITY`; a larger id is answered without a status, which the
//! client reads as [`Status::BadDescriptor`]). A received frame comes back
//! with `len` = the frame's length.
//!
//! The driver trusts nothing in the region: each descriptor is copied once
//! and checked — inside the data area with its headroom, a tx frame of
//! [`MIN_FRAME`]`..=`[`MAX_FRAME`] bytes, an rx buffer of at least
//! [`MAX_FRAME`] bytes — and a refused one comes straight back with its
//! error. The driver takes a descriptor only when it has room on the ring
//! it will answer on, so a client that never drains its answers stalls only
//! itself.
//!
//! The driver writes [`Status::InFlight`] into a descriptor's entry when
//! it takes it. A driver restarted after a fault attaches to the region
//! again (the rings' indices live in it) and, before anything else,
//! answers every entry still `InFlight` with [`Status::Restarted`]
//! ([`Server::start`]): a tx frame may or may not have gone out, an rx
//! buffer comes back unused. For that to answer each buffer, a client
//! never has two descriptors with the same id with the driver at once.
//!
//! **Sessions**, as in the block protocol: each time the client formats
//! the region (at its start, and again after it was restarted) it begins a
//! session with a fresh number (`Client::format`: `session` = 0, rings,
//! header and status tables formatted, then the new number). The driver
//! serves one session of a region at a time: it re-checks the number after
//! every descriptor it pops, and when it changed it stops serving that
//! session, gets rid of the buffers the device still holds for it (the
//! virtio-net driver resets the device: received frames would otherwise
//! land in buffers the new session has not offered), attaches to the new
//! rings ([`Server::start`]) and writes the number into `attached`. So a
//! restarted client never gets an answer meant for its previous instance,
//! and its buffers are never written by the device on the old one's
//! behalf. A restarted driver finds `attached` equal to `session` and
//! knows the entries still `InFlight` are this session's.
//!
//! The client formats the region and rings the driver's doorbell; the
//! driver attaches, writes the MAC and the link state ([`Link`]) into the
//! header, then `attached`, and signals. To leave, the client sets `detach` and rings; the
//! driver stops taking its descriptors, sets `detached` and signals. Buffers
//! still posted to the device at that moment may yet be written by it: the
//! client must not reuse its region for anything else.
//!
//! [`steer`] classifies received frames for the driver's UDP flow source.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

mod shared;
pub mod steer;

use conflux_queue::link::{Layout, RingArea};
pub use shared::{Client, Server};

/// Descriptors per ring (and status-table entries per direction).
pub const CAPACITY: u32 = 32;
/// Bytes reserved before each frame for the device's header.
pub const HEADROOM: u64 = 12;
/// Shortest frame: an Ethernet header.
pub const MIN_FRAME: u32 = 14;
/// Longest frame: a 1500-byte payload and the Ethernet header (no FCS).
pub const MAX_FRAME: u32 = 1514;
/// Offsets of the parts of the shared region.
pub const HEADER: usize = 0x0000;
pub const TX_STATUS: usize = 0x0100;
pub const RX_STATUS: usize = 0x0200;
pub const TX_RING: usize = 0x0400;
pub const TX_DONE_RING: usize = 0x0800;
pub const RX_FREE_RING: usize = 0x0c00;
pub const RX_RING: usize = 0x1000;
pub const DATA: usize = 0x2000;
/// Bytes of one ring's area.
pub const RING_AREA: usize = 0x400;

const fn ring(offset: usize) -> RingArea {
    RingArea {
        offset,
        size: RING_AREA,
        capacity: CAPACITY,
    }
}

/// The rings (tx, tx-done, rx-free, rx) and the data area, of at least a
/// page.
pub const LAYOUT: Layout<4> = Layout::new(
    [
        ring(TX_RING),
        ring(TX_DONE_RING),
        ring(RX_FREE_RING),
        ring(RX_RING),
    ],
    DATA,
    4096,
);

/// The link as the driver reports it in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Link {
    /// No driver has attached yet.
    Unattached = 0,
    Up = 1,
    Down = 2,
}

impl Link {
    pub fn from_raw(raw: u32) -> Self {
        match raw {
            1 => Self::Up,
            2 => Self::Down,
            _ => Self::Unattached,
        }
    }
}

/// How a descriptor was answered, in its status-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Status {
    /// Sent (tx), or a frame received into the buffer (rx).
    Ok = 0,
    /// The buffer (with its headroom) is not inside the data area, or the
    /// id names no status entry.
    BadDescriptor = 1,
    /// A tx frame shorter than [`MIN_FRAME`] or longer than [`MAX_FRAME`].
    BadLength = 2,
    /// An rx buffer with room for less than [`MAX_FRAME`] bytes.
    TooSmall = 3,
    /// The device refused or failed the transfer.
    DeviceError = 4,
    /// The client detached before the device used the buffer.
    Detached = 5,
    /// The driver restarted while this buffer was with it: a tx frame may
    /// or may not have been sent (send it again if needed); an rx buffer
    /// comes back unused (post it again). Only the id is meaningful: the
    /// answer's `offset` and `len` are 0.
    Restarted = 6,
    /// Taken by the driver and not answered yet. The driver writes it when
    /// it takes a descriptor, so a restarted driver knows what the previous
    /// instance held ([`Server::start`]).
    InFlight = 7,
    /// Not answered yet (what a client writes before handing a buffer over).
    Pending = 0xffff_ffff,
}

impl Status {
    pub fn from_raw(raw: u32) -> Self {
        match raw {
            0 => Self::Ok,
            1 => Self::BadDescriptor,
            2 => Self::BadLength,
            3 => Self::TooSmall,
            4 => Self::DeviceError,
            5 => Self::Detached,
            6 => Self::Restarted,
            7 => Self::InFlight,
            _ => Self::Pending,
        }
    }
}

/// A buffer the driver may hand to the device: every field checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The descriptor as the client sent it (echoed in the answer).
    pub descriptor: conflux_queue::Descriptor,
    /// The bytes the device gets, relative to the data area: the headroom
    /// and the frame (tx), or the headroom and [`MAX_FRAME`] bytes of room
    /// (rx; a larger buffer is used only that far).
    pub start: u64,
    pub len: u32,
}

/// A descriptor refused before it reached the device: answer it with this
/// status.
pub type Refused = conflux_queue::link::Refused<Status>;

/// Why the shared region is not (or no longer) usable as a network
/// connection; the same error every client protocol reports.
pub use conflux_queue::link::LinkError;

/// What [`Server::start`] answered `Restarted` after a driver restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Frames to send a previous instance took and never answered.
    pub tx: u32,
    /// Empty buffers a previous instance took and never answered.
    pub rx: u32,
}

/// A MAC address as the header stores it (byte 0 in bits 0..8).
pub fn mac_to_u64(mac: [u8; 6]) -> u64 {
    let mut b = [0u8; 8];
    b[..6].copy_from_slice(&mac);
    u64::from_le_bytes(b)
}

/// The inverse of [`mac_to_u64`].
pub fn mac_from_u64(v: u64) -> [u8; 6] {
    let b = v.to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4], b[5]]
}
