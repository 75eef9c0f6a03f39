//! One of the crate's two `unsafe` modules (the other is `link::raw`,
//! which places a protocol's rings through this one): viewing a byte
//! region as a ring's header and slots.
//!
//! What makes it sound: every field of [`Header`] and [`Slot`] is an
//! atomic integer (or compiler padding), so every bit pattern is a valid
//! value and concurrent writes by the other side are atomic accesses, not
//! data races. The checks before the casts establish alignment and size;
//! the caller of the raw constructors promises the memory stays mapped for
//! the lifetime and is touched by no one through non-atomic accesses.
//!
//! Not compiled under loom: loom's atomics are not plain integers in memory.

use crate::layout::{ring_bytes, Header, LayoutError, Slot, HEADER_BYTES, RING_ALIGN};
use crate::Ring;

/// Checks that `len` bytes at `ptr` can hold a ring of `capacity` slots.
fn check(ptr: *const u8, len: usize, capacity: u32) -> Result<(), LayoutError> {
    let need = ring_bytes(capacity).ok_or(LayoutError::BadCapacity(capacity))?;
    if ptr.is_null() || ptr.align_offset(RING_ALIGN) != 0 {
        return Err(LayoutError::Misaligned);
    }
    if len < need {
        return Err(LayoutError::TooSmall { need, have: len });
    }
    Ok(())
}

/// # Safety
///
/// `check(ptr, len, capacity)` passed, and the memory stays valid for
/// reads and writes, accessed only atomically by anyone, for `'a`.
unsafe fn parts<'a>(ptr: *mut u8, capacity: u32) -> (&'a Header, &'a [Slot]) {
    // Safety: aligned to RING_ALIGN (= align of Header) and at least
    // HEADER_BYTES long per `check`; every bit pattern is a valid Header
    // (atomics only); shared access only, per the caller's promise.
    let header = unsafe { &*ptr.cast::<Header>() };
    // Safety: `check` made room for `capacity` slots after the header;
    // HEADER_BYTES is a multiple of Slot's alignment (const-asserted in
    // `layout`); every bit pattern is a valid Slot.
    let slots = unsafe {
        core::slice::from_raw_parts(ptr.add(HEADER_BYTES).cast::<Slot>(), capacity as usize)
    };
    (header, slots)
}

/// The header and slots inside an exclusively borrowed region.
fn parts_mut(mem: &mut [u8], capacity: u32) -> Result<(&Header, &[Slot]), LayoutError> {
    check(mem.as_ptr(), mem.len(), capacity)?;
    // Safety: `check` passed; the exclusive borrow, downgraded to shared
    // atomics for the same lifetime, keeps the memory valid and lets no
    // one else access it non-atomically.
    Ok(unsafe { parts(mem.as_mut_ptr(), capacity) })
}

impl<'a> Ring<'a> {
    /// Formats `mem` as an empty ring of `capacity` slots.
    pub fn format(mem: &'a mut [u8], capacity: u32) -> Result<Self, LayoutError> {
        let (header, slots) = parts_mut(mem, capacity)?;
        Self::format_parts(header, slots)
    }

    /// Uses `mem`, formatted before for `capacity` slots, as a ring.
    pub fn attach(mem: &'a mut [u8], capacity: u32) -> Result<Self, LayoutError> {
        let (header, slots) = parts_mut(mem, capacity)?;
        Self::from_parts(header, slots)
    }

    /// [`Ring::format`] over shared memory the caller has mapped.
    ///
    /// # Safety
    ///
    /// `len` bytes at `ptr` are mapped readable and writable for `'a`, and
    /// every task or device that touches them does so only through this
    /// crate (atomic accesses).
    pub unsafe fn format_raw(ptr: *mut u8, len: usize, capacity: u32) -> Result<Self, LayoutError> {
        check(ptr, len, capacity)?;
        // Safety: checked just above; memory promised by the caller.
        let (header, slots) = unsafe { parts(ptr, capacity) };
        Self::format_parts(header, slots)
    }

    /// [`Ring::attach`] over shared memory the caller has mapped.
    ///
    /// # Safety
    ///
    /// As for [`Ring::format_raw`].
    pub unsafe fn attach_raw(ptr: *mut u8, len: usize, capacity: u32) -> Result<Self, LayoutError> {
        check(ptr, len, capacity)?;
        // Safety: checked just above; memory promised by the caller.
        let (header, slots) = unsafe { parts(ptr, capacity) };
        Self::from_parts(header, slots)
    }
}
