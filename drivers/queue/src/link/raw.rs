//! The link module's only `unsafe`: formatting and attaching a layout's
//! rings in a region the caller has mapped.
//!
//! What makes it sound: the caller promises that `base..base + len` is
//! mapped, readable and writable for `'a`, and touched by everyone only
//! through atomic accesses (this crate, the protocol's atomic tables).
//! [`Layout::check_len`] puts the data area, and so every ring area
//! ([`Layout::new`] keeps them before it), inside those `len` bytes; the
//! ring areas do not overlap, so each `Ring` has its own memory.

use super::{Layout, LinkError, RingArea, Rings};
use crate::Ring;

/// Builds the `N` rings with `make`, in the layout's order.
fn rings<'a, const N: usize>(
    layout: &Layout<N>,
    mut make: impl FnMut(RingArea) -> Result<Ring<'a>, LinkError>,
) -> Result<[Ring<'a>; N], LinkError> {
    let mut out: [Option<Ring<'a>>; N] = [const { None }; N];
    for (slot, &area) in out.iter_mut().zip(layout.rings.iter()) {
        *slot = Some(make(area)?);
    }
    Ok(out.map(|r| r.expect("the loop above filled every ring")))
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
    let data = layout.check_len(len)?;
    let rings = rings(layout, |a| {
        // Safety: the area lies inside the region (the length was checked
        // and the layout keeps areas before the data area) and belongs to
        // this ring alone; the memory is the caller's promise.
        unsafe { Ring::attach_raw(base.add(a.offset), a.size, a.capacity) }
            .map_err(LinkError::from_layout)
    })?;
    Ok(Rings { rings, data })
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
    let data = layout.check_len(len)?;
    let rings = rings(layout, |a| {
        // Safety: as in `attach`.
        unsafe { Ring::format_raw(base.add(a.offset), a.size, a.capacity) }
            .map_err(LinkError::from_layout)
    })?;
    Ok(Rings { rings, data })
}
