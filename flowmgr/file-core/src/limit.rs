//! The file sink's limit: it writes the buffers' bytes in order from
//! `offset` and stops after `length` bytes; what comes after is excess,
//! counted as dropped.

/// What the sink does with one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// Write the buffer's first `len` bytes at file offset `at`.
    pub at: u64,
    pub len: usize,
    /// Bytes past the limit, not written (the buffer counts as a drop
    /// when there are any).
    pub excess: usize,
}

/// Where the next buffer goes, and where the sink stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteLimit {
    next: u64,
    end: u64,
}

impl WriteLimit {
    /// Writes from `offset`, at most `length` bytes (`u64::MAX`: no limit).
    pub fn new(offset: u64, length: u64) -> Self {
        Self {
            next: offset,
            end: offset.saturating_add(length),
        }
    }

    /// Where a buffer of `len` bytes goes and how much of it fits. The
    /// limit moves only once the write is done ([`WriteLimit::wrote`]),
    /// so a failed write is tried again at the same place.
    pub fn accept(&self, len: usize) -> Accepted {
        let left = self.end.saturating_sub(self.next);
        let fits = usize::try_from(left).map_or(len, |left| left.min(len));
        Accepted {
            at: self.next,
            len: fits,
            excess: len - fits,
        }
    }

    /// `len` bytes were written at the position.
    pub fn wrote(&mut self, len: usize) {
        self.next = self.next.saturating_add(len as u64).min(self.end);
    }

    /// Whether the limit is reached (every later byte is excess).
    pub fn full(&self) -> bool {
        self.next >= self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_writes_every_buffer_in_order() {
        let mut w = WriteLimit::new(0, u64::MAX);
        for i in 0..4u64 {
            let a = w.accept(1024);
            assert_eq!(
                a,
                Accepted {
                    at: i * 1024,
                    len: 1024,
                    excess: 0
                }
            );
            w.wrote(a.len);
        }
        assert!(!w.full());
        let far = WriteLimit::new(u64::MAX - 10, u64::MAX);
        assert_eq!(far.accept(100).len, 10);
    }

    #[test]
    fn the_limit_cuts_a_buffer_and_drops_the_rest() {
        let mut w = WriteLimit::new(512, 1500);
        let a = w.accept(1024);
        assert_eq!((a.at, a.len, a.excess), (512, 1024, 0));
        w.wrote(a.len);
        let b = w.accept(1024);
        assert_eq!((b.at, b.len, b.excess), (1536, 476, 548));
        w.wrote(b.len);
        assert!(w.full());
        let c = w.accept(1024);
        assert_eq!((c.len, c.excess), (0, 1024));
    }

    #[test]
    fn a_failed_write_is_retried_at_the_same_place() {
        let w = WriteLimit::new(4096, 100);
        assert_eq!(w.accept(64), w.accept(64));
        assert!(WriteLimit::new(7, 0).full());
    }
}
