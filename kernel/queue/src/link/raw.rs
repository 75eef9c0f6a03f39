//! The link module's only `unsafe`: formatting and attaching a layout's
//! rings in a region the caller has mapped, and a protocol's table of
//! per-request entries in it ([`Table`]).
//!
//! What makes it sound: the caller promises that `base..base + len` is
//! mapped, readable and writable for `'a`, and touched by everyone only
//! through atomic accesses (this crate, the protocol's atomic tables).
//! [`Layout::check_len`] puts the data area, and so every ring area
//! ([`Layout::new`] keeps them before it), inside those `len` bytes; the
//! ring areas do not overlap, so each `Ring` has its own memory.

use super::{Layout, LinkError, Rings};
use crate::layout::LayoutError;
use crate::Ring;

/// How one ring is made over `len` bytes at a pointer: formatted or
/// attached (`Ring::format_raw` or `Ring::attach_raw`).
type MakeRing<'a> = unsafe fn(*mut u8, usize, u32) -> Result<Ring<'a>, LayoutError>;

/// # Safety
/// As for [`attach`]; with `Ring::format_raw`, as for [`format`].
unsafe fn rings<'a, const N: usize>(
    base: *mut u8,
    len: usize,
    layout: &Layout<N>,
    make: MakeRing<'a>,
) -> Result<Rings<'a, N>, LinkError> {
    let data = layout.check_len(len)?;
    let mut out: [Option<Ring<'a>>; N] = [const { None }; N];
    for (slot, a) in out.iter_mut().zip(layout.rings.iter()) {
        // Safety: the area lies inside the region (the length was checked
        // and the layout keeps areas before the data area) and belongs to
        // this ring alone; the memory is the caller's promise.
        let ring = unsafe { make(base.add(a.offset), a.size, a.capacity) };
        *slot = Some(ring.map_err(LinkError::from_layout)?);
    }
    let rings = out.map(|r| r.expect("the loop above made every ring"));
    Ok(Rings { rings, data })
}

/// Uses the rings a client formatted in the region at `base` (`len`
/// bytes) as `layout` places them.
///
/// # Safety
///
/// `base..base + len` is mapped readable and writable for `'a`, and every
/// task or device touches the ring areas only through this crate.
pub unsafe fn attach<'a, const N: usize>(
    base: *mut u8,
    len: usize,
    layout: &Layout<N>,
) -> Result<Rings<'a, N>, LinkError> {
    // Safety: the caller's promise.
    unsafe { rings(base, len, layout, Ring::attach_raw) }
}

/// Formats the rings of the region at `base` (`len` bytes) as `layout`
/// places them, empty, and returns them.
///
/// # Safety
///
/// As for [`attach`], and no peer uses the rings yet.
pub unsafe fn format<'a, const N: usize>(
    base: *mut u8,
    len: usize,
    layout: &Layout<N>,
) -> Result<Rings<'a, N>, LinkError> {
    // Safety: the caller's promise.
    unsafe { rings(base, len, layout, Ring::format_raw) }
}

/// An entry of a protocol's per-request table in the shared region
/// (blk's `{op, status, block}`, crypto's 64-byte entry).
///
/// # Safety
///
/// The implementor is `#[repr(C)]`, made of atomics only (so any bytes the
/// peer writes are a valid value and every access is atomic), and aligned
/// to at most 64 bytes.
pub unsafe trait TableEntry {
    /// The entry's status word, which the driver sets to the protocol's
    /// "in flight" value when it takes a request (see [`Table::has_status`]).
    fn status(&self) -> &core::sync::atomic::AtomicU32;
}

/// A protocol's table of `capacity` entries in a shared region, indexed
/// by request id. An id from the peer is checked against the capacity
/// before it names an entry.
pub struct Table<E: 'static> {
    first: *const E,
    capacity: u32,
}

impl<E: TableEntry> Table<E> {
    /// The table at byte `offset` of the region at `base`.
    ///
    /// # Safety
    ///
    /// `base + offset .. + capacity * size_of::<E>()` lies inside a region
    /// that is mapped, aligned for `E` and stays mapped for as long as the
    /// table is used, and every task or device touches it only atomically.
    pub unsafe fn at(base: *mut u8, offset: usize, capacity: u32) -> Self {
        Self {
            // Safety: inside the region (the caller's promise).
            first: unsafe { base.add(offset) }.cast(),
            capacity,
        }
    }

    /// Entry `id`, if the table has one.
    pub fn entry(&self, id: u32) -> Option<&E> {
        // Safety: `id < capacity` keeps the entry inside the table, which
        // `at`'s caller promised is mapped, aligned and atomic-only for as
        // long as `self` lives; `TableEntry` makes every byte pattern valid.
        (id < self.capacity).then(|| unsafe { &*self.first.add(id as usize) })
    }

    /// Whether entry `id` exists and its status word reads `status` (how a
    /// restarted driver finds what its previous instance took).
    pub fn has_status(&self, id: u32, status: u32) -> bool {
        self.entry(id)
            .is_some_and(|e| e.status().load(core::sync::atomic::Ordering::Acquire) == status)
    }
}
