//! The file source's cursor: the byte range a flow reads, one output
//! buffer at a time, in order.
//!
//! The range is fixed at START from the spec and the file's size then
//! (`length` = `u64::MAX` reads to the end of the file): a file that
//! grows while the flow runs is read to its size at START, one that
//! shrinks ends the flow at the first short read.

use core::fmt;

/// Why a source cannot read the range it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceRefusal {
    /// `offset` lies past the end of the file.
    PastEnd { offset: u64, size: u64 },
}

impl fmt::Display for SourceRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PastEnd { offset, size } => {
                write!(
                    f,
                    "offset {offset} is past the end of the file ({size} bytes)"
                )
            }
        }
    }
}

/// Where the next read starts, and where the range ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadCursor {
    next: u64,
    end: u64,
}

impl ReadCursor {
    /// The range `[offset, offset + length)` of a file of `size` bytes,
    /// cut at the end of the file. An offset at the very end is an empty
    /// range (the flow finishes at once); past it, a refusal.
    pub fn new(offset: u64, length: u64, size: u64) -> Result<Self, SourceRefusal> {
        if offset > size {
            return Err(SourceRefusal::PastEnd { offset, size });
        }
        Ok(Self {
            next: offset,
            end: offset.saturating_add(length).min(size),
        })
    }

    /// Where the next read starts.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// Bytes the next read takes into a buffer of `room` bytes: 0 once the
    /// range is read.
    pub fn take(&self, room: usize) -> usize {
        let left = self.end.saturating_sub(self.next);
        usize::try_from(left).map_or(room, |left| left.min(room))
    }

    /// How one read fills several buffers of `rooms[i]` bytes: the bytes
    /// each takes into `wants`, for as many buffers as the range has
    /// bytes for and whose bytes together fit `cap` (the first always
    /// counts); returns how many (0 once the range is read).
    pub fn plan(&self, rooms: &[usize], cap: usize, wants: &mut [usize]) -> usize {
        let mut left = self.take(usize::MAX);
        let (mut total, mut n) = (0usize, 0);
        for (&room, want) in rooms.iter().zip(wants.iter_mut()) {
            let w = room.min(left);
            if w == 0 || (n > 0 && total.saturating_add(w) > cap) {
                break;
            }
            *want = w;
            total += w;
            left -= w;
            n += 1;
        }
        n
    }

    /// Whether the whole range has been read.
    pub fn finished(&self) -> bool {
        self.next >= self.end
    }

    /// A read of `wanted` bytes at [`position`](Self::position) returned
    /// `got`: the cursor moves on by `got`, and a short read means the
    /// file ends there (it was cut while the flow ran).
    pub fn advance(&mut self, wanted: usize, got: usize) {
        let got = got.min(wanted);
        self.next = self.next.saturating_add(got as u64);
        if got < wanted {
            self.end = self.next;
        }
    }

    /// The `len` bytes at the position could not be read (the disk
    /// failed): they are skipped, and the flow goes on after them.
    pub fn skip(&mut self, len: usize) {
        self.next = self.next.saturating_add(len as u64).min(self.end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_fills_buffers_up_to_the_cap_and_the_range() {
        let c = ReadCursor::new(0, u64::MAX, 2500).unwrap();
        let mut wants = [0; 8];
        assert_eq!(c.plan(&[1024; 8], 4096, &mut wants), 3);
        assert_eq!(wants[..3], [1024, 1024, 452]);
        assert_eq!(c.plan(&[1024; 8], 2048, &mut wants), 2);
        // A buffer larger than the cap still goes, alone.
        assert_eq!(c.plan(&[4096; 8], 1024, &mut wants), 1);
        assert_eq!(wants[0], 2500);
        let done = ReadCursor::new(2500, 10, 2500).unwrap();
        assert_eq!(done.plan(&[1024; 8], 4096, &mut wants), 0);
        assert_eq!(c.plan(&[], 4096, &mut wants), 0);
    }

    #[test]
    fn whole_file_in_buffers_then_a_short_tail() {
        let mut c = ReadCursor::new(0, u64::MAX, 2500).unwrap();
        let mut reads = Vec::new();
        while !c.finished() {
            let n = c.take(1024);
            reads.push((c.position(), n));
            c.advance(n, n);
        }
        assert_eq!(reads, [(0, 1024), (1024, 1024), (2048, 452)]);
        assert_eq!(c.take(1024), 0);
    }

    #[test]
    fn a_range_inside_the_file_and_one_cut_at_its_end() {
        let mut c = ReadCursor::new(100, 300, 10_000).unwrap();
        assert_eq!(c.take(256), 256);
        c.advance(256, 256);
        assert_eq!((c.position(), c.take(256)), (356, 44));
        c.advance(44, 44);
        assert!(c.finished());
        let c = ReadCursor::new(900, 300, 1000).unwrap();
        assert_eq!(c.take(4096), 100);
    }

    #[test]
    fn offset_at_the_end_is_empty_and_past_it_refused() {
        assert!(ReadCursor::new(1000, u64::MAX, 1000).unwrap().finished());
        assert!(ReadCursor::new(0, 0, 1000).unwrap().finished());
        assert_eq!(
            ReadCursor::new(1001, 1, 1000),
            Err(SourceRefusal::PastEnd {
                offset: 1001,
                size: 1000
            })
        );
        assert!(ReadCursor::new(0, u64::MAX, 0).unwrap().finished());
    }

    #[test]
    fn a_short_read_ends_the_range() {
        let mut c = ReadCursor::new(0, u64::MAX, 4096).unwrap();
        c.advance(1024, 1024);
        c.advance(1024, 10);
        assert!(c.finished());
        assert_eq!(c.position(), 1034);
        assert_eq!(c.take(1024), 0);
    }

    #[test]
    fn a_skipped_range_is_passed_over() {
        let mut c = ReadCursor::new(0, 3000, 3000).unwrap();
        c.skip(1024);
        assert_eq!((c.position(), c.take(1024)), (1024, 1024));
        c.skip(5000);
        assert!(c.finished());
    }
}
