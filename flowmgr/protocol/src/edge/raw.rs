//! The edge module's only `unsafe`: an edge's rings and counters over a
//! page the caller mapped.
//!
//! What makes it sound: the caller promises that `base..base + len` is
//! mapped, readable and writable, and touched by everyone only atomically
//! (the queue crate's rings, the counters' atomics) for as long as the
//! returned value is used. A stage's mapping can be revoked under it by
//! `flowmgr`; then the next access faults in the stage (the kernel unmapped
//! the page), which is the intended end of a stage that outlived its flow,
//! and never touches other memory.

use super::{pool, Counters, EdgeError, EdgeStats, Input, Output, COUNTERS, LAYOUT};
use crate::span::Span;
use conflux_queue::link::{self, Rings};
use conflux_queue::{DataRegion, Queue};
use core::sync::atomic::Ordering;

/// The counters block of `side` (0 upstream, 1 downstream), each on its
/// own cache line.
///
/// # Safety
/// `base` passed `LAYOUT`'s length check (the page is at least
/// `EDGE_BYTES` long) and stays mapped while the reference is used.
unsafe fn counters(base: *mut u8, side: usize) -> &'static Counters {
    const _: () = assert!(COUNTERS + 128 <= super::EDGE_BYTES);
    // Safety: inside the page (asserted above), 64-byte aligned (the page
    // is page aligned and COUNTERS a multiple of 64), all atomics, so any
    // bytes the other side wrote are a valid value.
    unsafe { &*base.add(COUNTERS + 64 * side).cast::<Counters>() }
}

/// The edge's queue over the page at `base`, checked against `pool`.
///
/// # Safety
/// As for [`attach_input`].
unsafe fn queue(base: *mut u8, len: usize, data: DataRegion) -> Result<Queue<'static>, EdgeError> {
    // Safety: the caller's promise.
    let Rings { rings, .. } = unsafe { link::attach(base, len, &LAYOUT) }?;
    let [active, free] = rings;
    Ok(Queue { free, active, data })
}

/// `flowmgr`: formats the edge page at `base` (`len` bytes) empty, clears
/// both counter blocks and puts every buffer of `span` on the free ring,
/// so the upstream stage finds them there.
///
/// # Safety
/// `base..base + len` is mapped and writable for the duration of the call,
/// and no stage uses the edge yet.
pub unsafe fn format(
    base: *mut u8,
    len: usize,
    pool_len: u64,
    span: Span,
) -> Result<(), EdgeError> {
    let data = pool(pool_len, span)?;
    // Safety: the caller's promise.
    let Rings { rings, .. } = unsafe { link::format(base, len, &LAYOUT) }?;
    for side in 0..2 {
        // Safety: the length was checked by `link::format`.
        let c = unsafe { counters(base, side) };
        for w in [
            &c.buffers, &c.bytes, &c.drops, &c.refused, &c.first, &c.last,
        ] {
            w.store(0, Ordering::Relaxed);
        }
    }
    let [active, free] = rings;
    let mut rx = Queue { free, active, data }.into_receiver();
    for i in 0..span.count {
        if let Some(d) = span.buffer(i) {
            rx.offer(d).map_err(|e| EdgeError::Link(e.into()))?;
        }
    }
    Ok(())
}

/// A downstream stage's end of the edge at `base`, whose buffers are
/// `span` of a pool of `pool_len` bytes.
///
/// # Safety
/// `base..base + len` is mapped, readable and writable for as long as the
/// `Input` is used (or revoked, and then faults), and only touched through
/// this crate.
pub unsafe fn attach_input(
    base: *mut u8,
    len: usize,
    pool_len: u64,
    span: Span,
) -> Result<Input, EdgeError> {
    let data = pool(pool_len, span)?;
    // Safety: the caller's promise.
    let q = unsafe { queue(base, len, data) }?;
    Ok(Input {
        rx: q.into_receiver(),
        span,
        // Safety: `queue` checked the length.
        mine: unsafe { counters(base, 1) },
    })
}

/// An upstream stage's end of the edge at `base`.
///
/// # Safety
/// As for [`attach_input`].
pub unsafe fn attach_output(
    base: *mut u8,
    len: usize,
    pool_len: u64,
    span: Span,
) -> Result<Output, EdgeError> {
    let data = pool(pool_len, span)?;
    // Safety: the caller's promise.
    let q = unsafe { queue(base, len, data) }?;
    Ok(Output {
        tx: q.into_sender(),
        span,
        // Safety: `queue` checked the length.
        mine: unsafe { counters(base, 0) },
    })
}

/// `flowmgr`: what the edge at `base` reports, read without taking a role.
///
/// # Safety
/// `base..base + len` is mapped readable for the duration of the call.
pub unsafe fn observe(base: *mut u8, len: usize) -> Result<EdgeStats, EdgeError> {
    // Safety: the caller's promise; the pool is not touched.
    let q = unsafe { queue(base, len, DataRegion::new(0)) }?;
    let queued = q
        .active
        .occupancy()
        .map_err(|c| EdgeError::Link(c.into()))?;
    // Safety: `queue` checked the length.
    let (up, down) = unsafe { (counters(base, 0), counters(base, 1)) };
    Ok(EdgeStats {
        queued,
        upstream: up.read(),
        downstream: down.read(),
    })
}
