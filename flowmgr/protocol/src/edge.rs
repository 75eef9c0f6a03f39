//! One edge of a flow: the connection from one stage to the next.
//!
//! An edge is one page of its own ([`EDGE_BYTES`]; a region `flowmgr`
//! owns per flow slot and edge), shared by exactly the two stages it
//! joins:
//!
//! ```text
//! 0x000  full ring   (upstream → downstream: filled buffers), CAPACITY slots
//! 0x4c0  free ring   (downstream → upstream: emptied buffers)
//! 0x980  counters    upstream's four words, then downstream's (see Counters)
//! ```
//!
//! The buffers themselves are in the flow's pool, a separate region; a
//! descriptor's `offset` is a pool offset, its `id` the flow's sequence
//! number. `flowmgr` formats the rings and puts every buffer of the edge's
//! [`Span`] on the free ring ([`format`]); from then on the upstream stage
//! takes empty buffers ([`Output::take_empty`]), fills them and sends them
//! ([`Output::send`]), and the downstream stage takes them
//! ([`Input::take_full`]), uses the bytes, and gives them back
//! ([`Input::recycle`]). Either side sleeps with the queue crate's
//! *signal me* protocol and is woken through the doorbell `flowmgr` gave
//! its neighbour, so a busy pipeline makes no system calls.
//!
//! Neither side trusts the other: indices are checked by the rings, and
//! every descriptor popped is checked against the pool and then against
//! the edge's span ([`Span::check`]); one that fails is consumed, counted
//! in the taker's `refused` counter and reported, never used.

use crate::span::{Buf, Span, SpanError};
use conflux_queue::link::{Layout, LinkError, RingArea};
use conflux_queue::{DataRegion, Receiver, Sender};
use core::sync::atomic::{AtomicU64, Ordering};

// The module's only `unsafe`: rings and counters over mapped memory.
#[allow(unsafe_code)]
mod raw;

pub use raw::{attach_input, attach_output, format, observe};

/// Slots per ring: more buffers than an edge ever holds. 256 were
/// measured on 2026-11-29 (docs/flows.md, "Deeper edges") without a clear
/// gain, so an edge stays one page.
pub const CAPACITY: u32 = 64;
/// Bytes of each ring's area: its header and slots, to a cache line.
pub const RING_AREA: usize = match conflux_queue::ring_bytes(CAPACITY) {
    Some(b) => b.next_multiple_of(64),
    None => panic!("CAPACITY must be a power of two"),
};
/// Where the full ring starts.
pub const FULL_RING: usize = 0;
/// Where the free ring starts.
pub const FREE_RING: usize = RING_AREA;
/// Where the counters start (two blocks of 64 bytes).
pub const COUNTERS: usize = 2 * RING_AREA;
/// Bytes of an edge region: the rings and counters, in whole pages.
pub const EDGE_BYTES: usize = (COUNTERS + 128).next_multiple_of(4096);
const _: () = assert!(FREE_RING == 0x4c0 && COUNTERS == 0x980 && EDGE_BYTES == 4096);
/// The most buffers one edge may own: every buffer must fit the free ring.
pub const MAX_BUFFERS: u32 = CAPACITY;

/// The rings of an edge. The "data area" of the layout is empty: the data
/// is in the pool.
pub(crate) const LAYOUT: Layout<2> = Layout::new(
    [
        RingArea {
            offset: FULL_RING,
            size: RING_AREA,
            capacity: CAPACITY,
        },
        RingArea {
            offset: FREE_RING,
            size: RING_AREA,
            capacity: CAPACITY,
        },
    ],
    EDGE_BYTES,
    0,
);

/// What one side of an edge publishes about its work. Each side writes
/// only its own block; `flowmgr` reads both for a flow's statistics. The
/// values come from a stage, so they are reports, not facts `flowmgr`
/// relies on for anything but showing them.
#[repr(C)]
pub struct Counters {
    /// Buffers this side handed over (upstream: sent full; downstream:
    /// returned empty).
    pub buffers: AtomicU64,
    /// Bytes of data in them.
    pub bytes: AtomicU64,
    /// Data this side dropped (a source with no free buffer, a stage that
    /// gave up on a buffer after its retries).
    pub drops: AtomicU64,
    /// Descriptors from the other side that were refused (not a buffer of
    /// this edge, or the ring broke).
    pub refused: AtomicU64,
    /// The stage's clock (its TSC) when this side first and last handed a
    /// buffer over; 0 before the first. How long a flow took, measured by
    /// the stages themselves, whoever watches and however late.
    pub first: AtomicU64,
    pub last: AtomicU64,
}

impl Counters {
    fn add(c: &AtomicU64, n: u64) {
        // Only this side writes the word, so load + store is enough and
        // keeps the shared line free of locked instructions.
        c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
    }

    /// A snapshot: buffers, bytes, drops, refused, first, last.
    pub fn read(&self) -> [u64; 6] {
        [
            self.buffers.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
            self.drops.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
            self.first.load(Ordering::Relaxed),
            self.last.load(Ordering::Relaxed),
        ]
    }

    /// Counts one buffer of `bytes` handed over at time `now`.
    fn handed(&self, bytes: u64, now: u64) {
        Self::add(&self.buffers, 1);
        Self::add(&self.bytes, bytes);
        if self.first.load(Ordering::Relaxed) == 0 {
            self.first.store(now, Ordering::Relaxed);
        }
        self.last.store(now, Ordering::Relaxed);
    }

    /// Counts one dropped piece of data.
    pub fn drop_one(&self) {
        Self::add(&self.drops, 1);
    }
}

/// Why an edge cannot be used (any more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeError {
    /// The region is not an edge `flowmgr` formatted, or the neighbour
    /// broke its rings. Stop using the edge; `flowmgr` sees the stage stop.
    Link(LinkError),
    /// The span given at start does not fit the pool.
    BadSpan,
}

impl core::fmt::Display for EdgeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Link(e) => write!(f, "flow edge unusable: {e}"),
            Self::BadSpan => f.write_str(
                "the edge's buffer span does not lie inside the flow's pool: flowmgr sent a bad start message",
            ),
        }
    }
}

impl From<LinkError> for EdgeError {
    fn from(e: LinkError) -> Self {
        Self::Link(e)
    }
}

/// What popping a ring gave: nothing, a buffer of the edge, or a
/// descriptor that was refused (already consumed and counted).
pub type Taken = Option<Result<Buf, SpanError>>;

/// The downstream end: filled buffers come in, emptied ones go back.
pub struct Input {
    rx: Receiver<'static>,
    span: Span,
    mine: &'static Counters,
}

/// The upstream end: empty buffers come in, filled ones go out.
pub struct Output {
    tx: Sender<'static>,
    span: Span,
    mine: &'static Counters,
}

fn take(
    popped: Result<Option<conflux_queue::ValidDescriptor>, conflux_queue::PopError>,
    span: &Span,
    mine: &Counters,
) -> Result<Taken, EdgeError> {
    let refused = match popped {
        Ok(None) => return Ok(None),
        Ok(Some(d)) => match span.check(d) {
            Ok(b) => return Ok(Some(Ok(b))),
            Err(e) => e,
        },
        Err(conflux_queue::PopError::OutOfBounds(d)) => SpanError::NotABuffer { offset: d.offset },
        Err(conflux_queue::PopError::Corrupt(c)) => return Err(LinkError::from(c).into()),
    };
    Counters::add(&mine.refused, 1);
    Ok(Some(Err(refused)))
}

impl Input {
    /// The next filled buffer, if any.
    pub fn take_full(&mut self) -> Result<Taken, EdgeError> {
        take(self.rx.recv(), &self.span, self.mine)
    }

    /// Gives `b` back to the upstream stage, empty, having used `used`
    /// of its bytes, at time `now` (the stage's clock). Returns whether the
    /// upstream stage asked to be woken (ring its doorbell once if so).
    pub fn recycle(&mut self, b: &Buf, used: u32, now: u64) -> Result<bool, EdgeError> {
        self.rx
            .offer(b.filled(self.span.size, 0))
            .map_err(|e| EdgeError::Link(e.into()))?;
        self.mine.handed(u64::from(used), now);
        Ok(self.rx.needs_signal())
    }

    /// Before sleeping: `true` if still nothing to take (the upstream
    /// stage will ring on its next send), `false` to keep working.
    pub fn prepare_to_wait(&mut self) -> Result<bool, EdgeError> {
        self.rx
            .prepare_to_wait()
            .map_err(|c| EdgeError::Link(c.into()))
    }

    /// This side's counters.
    pub fn counters(&self) -> &Counters {
        self.mine
    }

    /// The edge's buffers.
    pub fn span(&self) -> Span {
        self.span
    }
}

impl Output {
    /// An empty buffer to fill, if any.
    pub fn take_empty(&mut self) -> Result<Taken, EdgeError> {
        take(self.tx.take_buffer(), &self.span, self.mine)
    }

    /// Hands `b` downstream holding `len` bytes (at most the buffer's
    /// size) with sequence number `seq`, at time `now` (the stage's clock).
    /// Returns whether the downstream stage asked to be woken.
    pub fn send(&mut self, b: &Buf, len: u32, seq: u32, now: u64) -> Result<bool, EdgeError> {
        let len = len.min(self.span.size);
        self.tx
            .active
            .push(b.filled(len, seq))
            .map_err(|e| EdgeError::Link(e.into()))?;
        self.mine.handed(u64::from(len), now);
        Ok(self.tx.needs_signal())
    }

    /// Before sleeping for lack of empty buffers: `true` if still none
    /// (the downstream stage will ring when it returns one).
    pub fn prepare_to_wait(&mut self) -> Result<bool, EdgeError> {
        self.tx
            .prepare_to_wait()
            .map_err(|c| EdgeError::Link(c.into()))
    }

    /// This side's counters.
    pub fn counters(&self) -> &Counters {
        self.mine
    }

    /// The edge's buffers.
    pub fn span(&self) -> Span {
        self.span
    }
}

/// What `flowmgr` reads of an edge for a flow's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeStats {
    /// Filled buffers waiting for the downstream stage (queue occupancy).
    pub queued: u32,
    /// The upstream side's counters: buffers, bytes, drops, refused,
    /// first and last hand-over times.
    pub upstream: [u64; 6],
    /// The downstream side's counters.
    pub downstream: [u64; 6],
}

fn pool(pool_len: u64, span: Span) -> Result<DataRegion, EdgeError> {
    if span.fits(pool_len) && span.count <= MAX_BUFFERS {
        Ok(DataRegion::new(pool_len as usize))
    } else {
        Err(EdgeError::BadSpan)
    }
}

#[cfg(test)]
#[allow(unsafe_code)]
mod tests;
