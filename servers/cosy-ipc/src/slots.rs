//! A pool of capability slots that a server hands out as they are needed
//! and takes back when they are freed: the file server's data-region
//! slots, shared by all sessions (`regions::Regions::attach_pooled`), and
//! the reply slots of calls answered late (`replies`).
//!
//! It is plain bookkeeping over a range of slot numbers (one bit each),
//! so it runs on the host. It never names a slot outside its range, and
//! giving back a slot it did not hand out (outside the range, or free
//! already) changes nothing, so a bug elsewhere cannot make it hand the
//! same slot to two holders.

/// The most slots a pool keeps: a task's whole capability table
/// (`conflux_abi::cap::CAP_SLOTS`) is 64.
pub const MAX_POOL: usize = 64;

/// Slots `base..base + count`, each free or taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotPool {
    base: usize,
    count: usize,
    taken: u64,
}

impl SlotPool {
    /// Slots `base..base + count` (at most [`MAX_POOL`] of them), all free.
    pub const fn new(base: usize, count: usize) -> SlotPool {
        SlotPool {
            base,
            count: if count < MAX_POOL { count } else { MAX_POOL },
            taken: 0,
        }
    }

    /// The lowest free slot, now taken; `None` when every slot is taken
    /// (the caller turns that into its own "table full" error).
    pub fn take(&mut self) -> Option<usize> {
        let free = (!self.taken).trailing_zeros() as usize;
        if free >= self.count {
            return None;
        }
        self.taken |= 1 << free;
        Some(self.base + free)
    }

    /// Gives `slot` back. False (and nothing changes) if it is not one of
    /// this pool's slots or is free already.
    pub fn give(&mut self, slot: usize) -> bool {
        let Some(i) = self.index(slot) else {
            return false;
        };
        let was = self.taken & 1 << i != 0;
        self.taken &= !(1 << i);
        was
    }

    /// Slots free now.
    pub fn free(&self) -> usize {
        self.count - self.taken.count_ones() as usize
    }

    /// Slots in the pool.
    pub fn capacity(&self) -> usize {
        self.count
    }

    fn index(&self, slot: usize) -> Option<usize> {
        slot.checked_sub(self.base).filter(|i| *i < self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_every_slot_once_then_refuses() {
        let mut pool = SlotPool::new(20, 3);
        assert_eq!(pool.capacity(), 3);
        assert_eq!(pool.take(), Some(20));
        assert_eq!(pool.take(), Some(21));
        assert_eq!(pool.take(), Some(22));
        assert_eq!(pool.free(), 0);
        assert_eq!(pool.take(), None);
        assert_eq!(pool.take(), None, "still empty: nothing was given back");
    }

    #[test]
    fn a_slot_given_back_is_taken_again() {
        let mut pool = SlotPool::new(20, 3);
        let slots = [pool.take(), pool.take(), pool.take()];
        assert!(pool.give(21));
        assert_eq!(pool.free(), 1);
        assert_eq!(pool.take(), Some(21));
        assert_eq!(pool.take(), None);
        assert_eq!(slots, [Some(20), Some(21), Some(22)]);
    }

    #[test]
    fn a_holder_that_is_gone_frees_all_it_held() {
        // Two sessions share the pool; the first ends (CLIENT_GONE) and
        // gives back its slots, which the second can then take.
        let mut pool = SlotPool::new(40, 4);
        let first: Vec<_> = (0..3).filter_map(|_| pool.take()).collect();
        let second = pool.take();
        assert_eq!(second, Some(43));
        assert_eq!(pool.take(), None);
        for slot in &first {
            assert!(pool.give(*slot));
        }
        assert_eq!(pool.free(), 3);
        let again: Vec<_> = (0..4).map(|_| pool.take()).collect();
        assert_eq!(again, [Some(40), Some(41), Some(42), None]);
    }

    #[test]
    fn giving_back_a_foreign_or_free_slot_changes_nothing() {
        let mut pool = SlotPool::new(10, 2);
        assert!(!pool.give(10), "free already");
        assert!(!pool.give(9), "below the pool");
        assert!(!pool.give(12), "above the pool");
        assert!(!pool.give(usize::MAX));
        assert_eq!(pool.free(), 2);
        let a = pool.take();
        assert!(!pool.give(11), "the other slot was never taken");
        assert_eq!(pool.take(), Some(11));
        assert_eq!(a, Some(10));
    }

    #[test]
    fn an_empty_pool_hands_out_nothing() {
        let mut pool = SlotPool::new(63, 0);
        assert_eq!(pool.take(), None);
        assert_eq!(pool.free(), 0);
        assert!(!pool.give(63));
    }

    #[test]
    fn a_pool_of_64_uses_every_bit_and_no_more() {
        let mut pool = SlotPool::new(0, 100);
        assert_eq!(pool.capacity(), MAX_POOL);
        for want in 0..MAX_POOL {
            assert_eq!(pool.take(), Some(want));
        }
        assert_eq!(pool.take(), None);
        assert!(pool.give(63));
        assert_eq!(pool.take(), Some(63));
    }
}
