//! A mapped region as this crate holds it, and the crate's only `unsafe`:
//! turning it into bytes and into edge ends.
//!
//! A [`Mapping`] is made only by an [`crate::Os`] for a mapping it just
//! made (or by the host tests for memory they leaked), and is given back
//! to the `Os` to be unmapped. Between the two, the bytes it names are
//! the region's; if `flowmgr` revokes the capability first, the kernel
//! unmaps them and the next access faults in this task, which touches no
//! other memory.

use conflux_flow_protocol::edge::{self, EdgeError, EdgeStats, Input, Output};
use conflux_flow_protocol::Span;

/// `len` bytes mapped at `base`, through the capability in `slot`.
#[derive(Debug, PartialEq, Eq)]
pub struct Mapping {
    base: *mut u8,
    len: usize,
    slot: usize,
}

impl Mapping {
    /// A mapping the caller made: `base..base + len` stays mapped,
    /// readable and writable until the `Mapping` is released.
    pub fn new(base: *mut u8, len: usize, slot: usize) -> Self {
        Self { base, len, slot }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn slot(&self) -> usize {
        self.slot
    }

    /// The region's bytes. Other stages of the flow share them: whatever
    /// is read is untrusted.
    pub fn bytes(&mut self) -> &mut [u8] {
        // Safety: `new`'s caller promised the range is mapped and writable
        // until the mapping is released, which consumes it; `&mut self`
        // makes this the only slice of it in this task. Bytes have no
        // invalid values.
        unsafe { core::slice::from_raw_parts_mut(self.base, self.len) }
    }

    /// This mapping, an edge page, as a downstream end over a pool of
    /// `pool` bytes.
    pub fn input(&self, pool: u64, span: Span) -> Result<Input, EdgeError> {
        // Safety: mapped and writable until released (see `new`); the
        // stage releases the mapping only after dropping the `Input`.
        unsafe { edge::attach_input(self.base, self.len, pool, span) }
    }

    /// This mapping as an upstream end.
    pub fn output(&self, pool: u64, span: Span) -> Result<Output, EdgeError> {
        // Safety: as for `input`.
        unsafe { edge::attach_output(self.base, self.len, pool, span) }
    }

    /// `flowmgr`: formats this mapping, an edge page no stage uses yet,
    /// empty with `span`'s buffers (of a pool of `pool` bytes) on its free
    /// ring.
    pub fn format_edge(&mut self, pool: u64, span: Span) -> Result<(), EdgeError> {
        // Safety: mapped and writable until released (see `new`);
        // `&mut self` keeps this task's other users of the page away, and
        // `flowmgr` formats an edge only before it hands it to stages.
        unsafe { edge::format(self.base, self.len, pool, span) }
    }

    /// `flowmgr`: what this mapping, an edge page, reports.
    pub fn observe_edge(&self) -> Result<EdgeStats, EdgeError> {
        // Safety: mapped and readable until released (see `new`).
        unsafe { edge::observe(self.base, self.len) }
    }
}
