//! One shared region carrying a client protocol: several rings at fixed
//! offsets and a data area from a fixed offset to the region's end.
//!
//! Every client protocol (block, network, crypto, ...) lays out the region
//! it shares with its driver the same way: rings of `conflux-queue` at
//! offsets of its choosing, whatever tables it needs between them, and the
//! buffers' data area last. This module is the part they share: the
//! [`Layout`] (checked when the protocol's constant is built), formatting
//! and attaching the rings ([`format`], [`attach`]), the one error type a
//! connection reports ([`LinkError`]), and the shape of a descriptor a
//! driver refuses ([`Refused`]) together with [`take`], which turns what a
//! consumer popped into a descriptor to serve or one to refuse.
//!
//! What stays with each protocol: the meaning of its rings, its tables
//! (status words, request entries) and the checks of its descriptors.

use crate::layout::{ring_bytes, LayoutError, RING_ALIGN};
use crate::ring::{Corrupt, PopError, PushError, Ring};
use crate::{DataRegion, Descriptor, ValidDescriptor};
use core::fmt;

// The module's only `unsafe`: rings over memory the caller mapped.
#[allow(unsafe_code)]
mod raw;

pub use raw::{attach, format, Table, TableEntry};

/// Why a shared region cannot be used (or no longer be used) as a
/// connection. A protocol's operations return it; the driver drops the one
/// client concerned and serves the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The region is shorter than the protocol's rings, tables and the
    /// smallest data area it accepts.
    TooSmall,
    /// The region does not start on a ring's alignment (64 bytes).
    Misaligned,
    /// A ring's indices are impossible: the peer wrote over them. The
    /// connection is unusable; other connections are not affected.
    Corrupt,
    /// A ring was never formatted, or formatted for another capacity: the
    /// client has not set the region up (yet).
    NotFormatted,
    /// A ring has no free slot: more descriptors were handed over than it
    /// holds.
    Full,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TooSmall => "the shared region is too small for the protocol's rings, tables and data area: give it more pages in the manifest",
            Self::Misaligned => "the shared region does not start on a 64-byte boundary: share a page-aligned region",
            Self::Corrupt => "a ring's indices in the shared region are impossible (the peer wrote over them): stop using this connection",
            Self::NotFormatted => "the shared region's rings are not formatted for this protocol: the client formats the region before ringing the driver",
            Self::Full => "a ring is full: take answers off the other ring before handing over more descriptors",
        })
    }
}

impl From<Corrupt> for LinkError {
    fn from(_: Corrupt) -> Self {
        Self::Corrupt
    }
}

impl From<PushError> for LinkError {
    fn from(e: PushError) -> Self {
        match e {
            PushError::Full => Self::Full,
            PushError::Corrupt(_) => Self::Corrupt,
        }
    }
}

impl LinkError {
    /// Attaching or formatting a ring failed.
    fn from_layout(e: LayoutError) -> Self {
        match e {
            LayoutError::Misaligned => Self::Misaligned,
            LayoutError::NotFormatted | LayoutError::CapacityMismatch { .. } => Self::NotFormatted,
            // The layout was checked when built, so only a short region
            // can leave a ring without room.
            LayoutError::TooSmall { .. } | LayoutError::BadCapacity(_) => Self::TooSmall,
        }
    }
}

/// The number of a client's new session on a region, given the one the
/// region held (0 if none) and a fresh `nonce` (the client's time stamp
/// counter): never 0 (which means "no session"), never the previous
/// number, so the driver always sees a change. The block and network
/// protocols both number their sessions this way.
pub fn next_session(previous: u64, nonce: u64) -> u64 {
    if nonce == 0 || nonce == previous {
        match previous.wrapping_add(1) {
            0 => 1,
            n => n,
        }
    } else {
        nonce
    }
}

/// Where one ring lies: `size` bytes at `offset` from the region's start,
/// holding `capacity` slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingArea {
    pub offset: usize,
    pub size: usize,
    pub capacity: u32,
}

/// A protocol's region: `N` rings, and the data area from byte `data` to
/// the region's end, at least `min_data` bytes long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout<const N: usize> {
    rings: [RingArea; N],
    data: usize,
    min_data: usize,
}

impl Layout<2> {
    /// The request/response shape (blk, crypto): a request ring at 0 and
    /// a response ring right after it, each `ring_area` bytes of
    /// `capacity` slots, and a data area of at least a page from `data`
    /// (the protocol's table goes between the rings and `data`).
    pub const fn request_response(capacity: u32, ring_area: usize, data: usize) -> Self {
        let request = RingArea {
            offset: 0,
            size: ring_area,
            capacity,
        };
        let response = RingArea {
            offset: ring_area,
            ..request
        };
        Self::new([request, response], data, 4096)
    }
}

impl<const N: usize> Layout<N> {
    /// A layout whose rings are aligned, fit their areas, do not overlap
    /// and lie before the data area. Anything else panics, which is a
    /// compile error where the layout is a `const` (as every protocol's is).
    pub const fn new(rings: [RingArea; N], data: usize, min_data: usize) -> Self {
        let mut i = 0;
        while i < N {
            let r = rings[i];
            assert!(
                r.offset.is_multiple_of(RING_ALIGN),
                "a ring area is not 64-byte aligned"
            );
            match ring_bytes(r.capacity) {
                Some(need) => assert!(need <= r.size, "a ring does not fit its area"),
                None => panic!("a ring's capacity is not a power of two"),
            }
            assert!(
                r.offset + r.size <= data,
                "a ring area runs into the data area"
            );
            let mut j = 0;
            while j < i {
                let o = rings[j];
                assert!(
                    r.offset + r.size <= o.offset || o.offset + o.size <= r.offset,
                    "two ring areas overlap"
                );
                j += 1;
            }
            i += 1;
        }
        Self {
            rings,
            data,
            min_data,
        }
    }

    /// Where the data area starts.
    pub const fn data(&self) -> usize {
        self.data
    }

    /// The data area of a region of `len` bytes, or `TooSmall`.
    pub fn check_len(&self, len: usize) -> Result<DataRegion, LinkError> {
        match len.checked_sub(self.data) {
            Some(data) if data >= self.min_data => Ok(DataRegion::new(data)),
            _ => Err(LinkError::TooSmall),
        }
    }
}

/// The rings of one region, in the layout's order, and its data area.
pub struct Rings<'a, const N: usize> {
    pub rings: [Ring<'a>; N],
    pub data: DataRegion,
}

/// A descriptor a driver refuses before it reaches the device: answered at
/// once with `status` (the protocol's status type), the descriptor echoed
/// so the client can match it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused<S> {
    pub descriptor: Descriptor,
    pub status: S,
}

/// What a consumer's [`pop`](crate::Consumer::pop) means to a protocol:
/// `Ok(None)` when the ring is empty, `Ok(Some(Ok(d)))` for a descriptor
/// inside the data area, `Ok(Some(Err(refused)))` for one outside it
/// (consumed already; answer it with `out_of_bounds`), and `Corrupt` when
/// the ring is unusable.
#[allow(clippy::type_complexity)]
pub fn take<S>(
    popped: Result<Option<ValidDescriptor>, PopError>,
    out_of_bounds: S,
) -> Result<Option<Result<Descriptor, Refused<S>>>, LinkError> {
    match popped {
        Ok(None) => Ok(None),
        Ok(Some(v)) => Ok(Some(Ok(v.get()))),
        Err(PopError::OutOfBounds(descriptor)) => Ok(Some(Err(Refused {
            descriptor,
            status: out_of_bounds,
        }))),
        Err(PopError::Corrupt(c)) => Err(c.into()),
    }
}

// Tests map leaked host memory as a region, which takes `unsafe`.
#[cfg(test)]
#[allow(unsafe_code)]
mod tests;
