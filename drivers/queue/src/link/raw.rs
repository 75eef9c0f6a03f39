//! The link module's only `unsafe`: formatting and attaching a layout's
//! rings in a region the caller has mapped.
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
