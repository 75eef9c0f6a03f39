//! The buffers a flow holds between taking them from an edge and handing
//! them on: a first-in first-out list of at most [`BATCH`], each with
//! the lane it came from.
//!
//! One is enough for a stage that works buffer by buffer; a stage that
//! hands its device several at once ([`crate::FlowIo::transform_batch`])
//! holds as many, and when the device asks for a retry keeps the ones not
//! yet done, in order, for the next turn.

use conflux_flow_protocol::Buf;

/// The most buffers one flow holds on each side.
pub const BATCH: usize = 16;

/// Held buffers, oldest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    bufs: [(Buf, usize); BATCH],
    start: usize,
    len: usize,
}

impl Default for Held {
    fn default() -> Self {
        let none = Buf {
            index: 0,
            offset: 0,
            len: 0,
            seq: 0,
        };
        Self {
            bufs: [(none, 0); BATCH],
            start: 0,
            len: 0,
        }
    }
}

impl Held {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == BATCH
    }

    /// The `i`th oldest.
    pub(crate) fn get(&self, i: usize) -> Option<(Buf, usize)> {
        (i < self.len).then(|| self.bufs[(self.start + i) % BATCH])
    }

    pub(crate) fn front(&self) -> Option<(Buf, usize)> {
        self.get(0)
    }

    /// Adds `b` from lane `lane` as the newest; `false` if full.
    pub(crate) fn push(&mut self, b: Buf, lane: usize) -> bool {
        if self.is_full() {
            return false;
        }
        self.bufs[(self.start + self.len) % BATCH] = (b, lane);
        self.len += 1;
        true
    }

    pub(crate) fn pop(&mut self) -> Option<(Buf, usize)> {
        let first = self.front()?;
        self.start = (self.start + 1) % BATCH;
        self.len -= 1;
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(seq: u32) -> Buf {
        Buf {
            index: seq,
            offset: u64::from(seq) * 64,
            len: 64,
            seq,
        }
    }

    #[test]
    fn first_in_first_out_across_the_wrap() {
        let mut h = Held::default();
        for round in 0..3u32 {
            for i in 0..BATCH as u32 {
                assert!(h.push(buf(round * 100 + i), i as usize % 2));
            }
            assert!(h.is_full());
            assert!(!h.push(buf(999), 0), "a full list refuses");
            for i in 0..BATCH as u32 - 1 {
                assert_eq!(h.pop(), Some((buf(round * 100 + i), i as usize % 2)));
            }
            // One left: the next round starts off the array's start.
            assert_eq!(h.len(), 1);
            assert_eq!(
                h.pop().map(|(b, _)| b.seq),
                Some(round * 100 + BATCH as u32 - 1)
            );
            assert!(h.is_empty() && h.pop().is_none() && h.get(0).is_none());
            assert!(h.push(buf(1), 0) && h.pop().is_some());
        }
    }
}
