//! Buffer descriptors: what a ring carries, and the check that turns one
//! read from the other side into something safe to use.
//!
//! A [`Descriptor`] names a byte range of the shared data region. The side
//! that wrote it may be hostile, so a consumer never hands one out as is:
//! [`DataRegion::check`] is the only way to get a [`ValidDescriptor`], whose
//! range is guaranteed to lie inside the region (no overflow, no wrap).

use core::ops::Range;

/// One buffer of the data region as it travels through a ring: `len` bytes
/// at byte `offset` of the data region, and an `id` the queue does not
/// interpret (a request number, a buffer index, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Descriptor {
    /// Byte offset from the start of the data region.
    pub offset: u64,
    /// Length in bytes; zero is a valid, empty buffer.
    pub len: u32,
    /// Opaque to the queue; carried unchanged.
    pub id: u32,
}

/// A descriptor whose range `offset..offset + len` lies inside the data
/// region it was checked against. Only [`DataRegion::check`] makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValidDescriptor(Descriptor);

/// The shared data region the descriptors of one queue point into, known
/// to the consumer by its length alone (the consumer maps it itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataRegion {
    len: u64,
}

impl DataRegion {
    /// A data region of `len` bytes.
    pub const fn new(len: usize) -> Self {
        // usize is at most 64 bits on every target Conflux builds for.
        Self { len: len as u64 }
    }

    /// Its length in bytes.
    pub const fn len(&self) -> u64 {
        self.len
    }

    /// Whether it has no bytes (then only empty buffers at offset 0 pass).
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `d` if its whole range is inside the region, else `d` back as the
    /// error. `offset + len` is computed without overflow, so an offset
    /// near `u64::MAX` cannot wrap around into the region.
    pub fn check(&self, d: Descriptor) -> Result<ValidDescriptor, Descriptor> {
        match d.offset.checked_add(u64::from(d.len)) {
            Some(end) if end <= self.len => Ok(ValidDescriptor(d)),
            _ => Err(d),
        }
    }
}

impl ValidDescriptor {
    /// The descriptor itself.
    pub const fn get(&self) -> Descriptor {
        self.0
    }

    /// Byte offset in the data region.
    pub const fn offset(&self) -> u64 {
        self.0.offset
    }

    /// Length in bytes.
    pub const fn len(&self) -> u32 {
        self.0.len
    }

    /// Whether the buffer is empty.
    pub const fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// The caller's id, unchanged.
    pub const fn id(&self) -> u32 {
        self.0.id
    }

    /// The byte range in the data region; indexing a slice of the region's
    /// full length with it cannot panic.
    pub fn range(&self) -> Range<usize> {
        // Both ends are at most the region's length, which came from a
        // usize, so the casts are lossless.
        let start = self.0.offset as usize;
        start..start + self.0.len as usize
    }

    /// The same buffer cut to its first `len` bytes (how a filled buffer
    /// reports what it holds), or `None` if `len` is longer than the buffer.
    pub fn truncate(self, len: u32) -> Option<Self> {
        (len <= self.0.len).then_some(Self(Descriptor { len, ..self.0 }))
    }
}

impl From<ValidDescriptor> for Descriptor {
    fn from(v: ValidDescriptor) -> Self {
        v.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(offset: u64, len: u32) -> Descriptor {
        Descriptor { offset, len, id: 7 }
    }

    #[test]
    fn inside_and_edges_pass() {
        let r = DataRegion::new(4096);
        assert_eq!(r.check(d(0, 4096)).unwrap().range(), 0..4096);
        assert_eq!(r.check(d(4000, 96)).unwrap().range(), 4000..4096);
        // Empty buffers are fine anywhere up to the end.
        assert!(r.check(d(4096, 0)).unwrap().is_empty());
        assert_eq!(r.check(d(10, 5)).unwrap().id(), 7);
    }

    #[test]
    fn outside_and_wrapping_fail() {
        let r = DataRegion::new(4096);
        for bad in [
            d(0, 4097),
            d(4096, 1),
            d(4097, 0),
            d(u64::MAX, 1),
            d(u64::MAX - 10, u32::MAX),
            d(u64::MAX, 0),
            d(0, u32::MAX),
        ] {
            assert_eq!(r.check(bad), Err(bad), "{bad:?}");
        }
        assert_eq!(DataRegion::new(0).check(d(0, 1)), Err(d(0, 1)));
        assert!(DataRegion::new(0).check(d(0, 0)).is_ok());
    }

    #[test]
    fn truncate_only_shrinks() {
        let v = DataRegion::new(100).check(d(10, 50)).unwrap();
        assert_eq!(v.truncate(20).unwrap().range(), 10..30);
        assert_eq!(v.truncate(50), Some(v));
        assert_eq!(v.truncate(51), None);
    }
}
