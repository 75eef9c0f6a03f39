//! The bytes of one ring in shared memory.
//!
//! ```text
//! offset  size  field            written by
//!      0     4  magic "CfxQ"     formatter, once
//!      4     4  capacity         formatter, once
//!     64     4  tail             producer (next slot it will fill)
//!    128     4  head             consumer (next slot it will read)
//!    132     4  signal_me        consumer sets, producer clears
//!    192  16*N  slots            producer; each {offset u64, len u32, id u32}
//! ```
//!
//! All integers are little-endian (x86_64). `tail`, `head` and the flag sit
//! on their own 64-byte cache lines so the two sides do not false-share.
//! `head` and `tail` run freely (they wrap at 2^32, not at the capacity);
//! slot `i` is `i & (capacity - 1)`, and `tail - head` (wrapping) is the
//! number of filled slots, which is why the capacity is a power of two of at
//! most 2^31.
//!
//! Every field is an atomic, including the slots and the read-once header:
//! the other side may write any byte at any time, and an atomic is the only
//! Rust type for which that is not a data race.

use crate::sync::{AtomicU32, AtomicU64, Ordering::Relaxed};
use crate::Descriptor;

/// Identifies a formatted ring ("CfxQ").
pub const MAGIC: u32 = u32::from_le_bytes(*b"CfxQ");
/// Bytes before the first slot.
pub const HEADER_BYTES: usize = 192;
/// Bytes per slot.
pub const SLOT_BYTES: usize = 16;
/// Alignment a ring's memory must have.
pub const RING_ALIGN: usize = 64;
/// The largest capacity: free-running u32 indices must tell full from empty.
pub const MAX_CAPACITY: u32 = 1 << 31;

/// Bytes a ring of `capacity` slots needs, or `None` if `capacity` is not
/// a power of two in `1..=MAX_CAPACITY`.
pub const fn ring_bytes(capacity: u32) -> Option<usize> {
    if capacity.is_power_of_two() && capacity <= MAX_CAPACITY {
        Some(HEADER_BYTES + capacity as usize * SLOT_BYTES)
    } else {
        None
    }
}

/// Why a byte region cannot be used as a ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The capacity is not a power of two in `1..=MAX_CAPACITY`.
    BadCapacity(u32),
    /// The region does not start on a `RING_ALIGN` boundary.
    Misaligned,
    /// The region is shorter than the ring needs.
    TooSmall { need: usize, have: usize },
    /// Attaching: the region was never formatted as a ring (wrong magic).
    NotFormatted,
    /// Attaching: formatted with another capacity than the one expected.
    CapacityMismatch { expected: u32, found: u32 },
}

/// A value alone on its cache line.
#[repr(C, align(64))]
pub(crate) struct Line<T>(pub(crate) T);

#[repr(C)]
pub(crate) struct Meta {
    pub(crate) magic: AtomicU32,
    pub(crate) capacity: AtomicU32,
}

#[repr(C)]
pub(crate) struct ConsumerLine {
    pub(crate) head: AtomicU32,
    pub(crate) signal_me: AtomicU32,
}

/// A ring's header (see the module docs for the layout).
#[repr(C)]
pub struct Header {
    pub(crate) meta: Line<Meta>,
    pub(crate) tail: Line<AtomicU32>,
    pub(crate) consumer: Line<ConsumerLine>,
}

/// One descriptor slot.
#[repr(C)]
pub struct Slot {
    offset: AtomicU64,
    len: AtomicU32,
    id: AtomicU32,
}

#[cfg(not(loom))]
const _: () = {
    assert!(core::mem::size_of::<Header>() == HEADER_BYTES);
    assert!(core::mem::align_of::<Header>() == RING_ALIGN);
    assert!(core::mem::size_of::<Slot>() == SLOT_BYTES);
    assert!(HEADER_BYTES.is_multiple_of(core::mem::align_of::<Slot>()));
};

impl Header {
    /// A formatted header in ordinary memory (tests and in-process rings;
    /// shared memory is formatted in place by `Ring::format`).
    pub fn new(capacity: u32) -> Self {
        let h = Self {
            meta: Line(Meta {
                magic: AtomicU32::new(0),
                capacity: AtomicU32::new(0),
            }),
            tail: Line(AtomicU32::new(0)),
            consumer: Line(ConsumerLine {
                head: AtomicU32::new(0),
                signal_me: AtomicU32::new(0),
            }),
        };
        h.format(capacity);
        h
    }

    /// Writes an empty ring of `capacity` slots. Before the two sides start;
    /// the mapping that hands the region over orders these stores.
    pub(crate) fn format(&self, capacity: u32) {
        self.tail.0.store(0, Relaxed);
        self.consumer.0.head.store(0, Relaxed);
        self.consumer.0.signal_me.store(0, Relaxed);
        self.meta.0.capacity.store(capacity, Relaxed);
        self.meta.0.magic.store(MAGIC, Relaxed);
    }

    /// Whether this header was formatted for `capacity` slots. Read once,
    /// when attaching; after that each side uses its own copy.
    pub(crate) fn check(&self, capacity: u32) -> Result<(), LayoutError> {
        if self.meta.0.magic.load(Relaxed) != MAGIC {
            return Err(LayoutError::NotFormatted);
        }
        match self.meta.0.capacity.load(Relaxed) {
            found if found == capacity => Ok(()),
            found => Err(LayoutError::CapacityMismatch {
                expected: capacity,
                found,
            }),
        }
    }
}

impl Slot {
    /// An empty slot (for in-process rings).
    pub fn new() -> Self {
        Self {
            offset: AtomicU64::new(0),
            len: AtomicU32::new(0),
            id: AtomicU32::new(0),
        }
    }

    /// Copies the descriptor out. Relaxed: the tail load (Acquire) that
    /// made this slot visible orders it after the producer's writes.
    pub(crate) fn load(&self) -> Descriptor {
        Descriptor {
            offset: self.offset.load(Relaxed),
            len: self.len.load(Relaxed),
            id: self.id.load(Relaxed),
        }
    }

    /// Writes a descriptor. Relaxed: the tail store (Release) after it
    /// publishes it.
    pub(crate) fn store(&self, d: Descriptor) {
        self.offset.store(d.offset, Relaxed);
        self.len.store(d.len, Relaxed);
        self.id.store(d.id, Relaxed);
    }
}

impl Default for Slot {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use core::mem::offset_of;

    #[test]
    fn offsets_match_the_documented_layout() {
        assert_eq!(offset_of!(Header, meta), 0);
        assert_eq!(offset_of!(Header, tail), 64);
        assert_eq!(offset_of!(Header, consumer), 128);
        assert_eq!(offset_of!(ConsumerLine, signal_me), 4);
        assert_eq!(offset_of!(Meta, capacity), 4);
        assert_eq!(offset_of!(Slot, len), 8);
        assert_eq!(offset_of!(Slot, id), 12);
        assert_eq!(MAGIC.to_le_bytes(), *b"CfxQ");
    }

    #[test]
    fn ring_bytes_accepts_only_powers_of_two() {
        assert_eq!(ring_bytes(1), Some(208));
        assert_eq!(ring_bytes(256), Some(192 + 4096));
        assert_eq!(ring_bytes(MAX_CAPACITY), Some(192 + (16 << 31)));
        for bad in [0, 3, 100, u32::MAX] {
            assert_eq!(ring_bytes(bad), None, "{bad}");
        }
    }
}
