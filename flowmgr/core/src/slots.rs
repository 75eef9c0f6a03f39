//! Flow slots and flow ids.
//!
//! The manifest gives `flowmgr` a fixed number of slots (a pool and its
//! edges each). A flow id is the slot's index and the slot's generation
//! when the flow was made; the generation moves on when the flow is
//! destroyed, so an id kept after that names nothing, even once the slot
//! holds another flow.

/// Slots `flowmgr` manages at most.
pub const MAX_SLOTS: usize = 8;

/// A flow's id as the API carries it: generation in the high bits, slot
/// index in the low 8. Never 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowId(u64);

impl FlowId {
    fn new(slot: usize, generation: u32) -> Self {
        Self(u64::from(generation) << 8 | slot as u64)
    }

    /// The slot it names (not yet checked against anything).
    pub fn slot(self) -> usize {
        (self.0 & 0xff) as usize
    }

    pub fn generation(self) -> u32 {
        (self.0 >> 8) as u32
    }

    pub fn word(self) -> u64 {
        self.0
    }

    /// An id received from a client (checked when looked up).
    pub fn from_word(w: u64) -> Self {
        Self(w)
    }
}

/// The slots, each free or holding a `T`.
pub struct Slots<T> {
    entries: [(u32, Option<T>); MAX_SLOTS],
    len: usize,
}

impl<T> Slots<T> {
    /// `count` free slots (at most [`MAX_SLOTS`]).
    pub fn new(count: usize) -> Self {
        Self {
            entries: core::array::from_fn(|_| (1, None)),
            len: count.min(MAX_SLOTS),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Starts every free slot's generations at `generation` (0 counts as
    /// 1), so that ids a previous `flowmgr` instance handed out, which a
    /// client may still hold, most likely name nothing here.
    pub fn start_at(&mut self, generation: u32) {
        for e in self.entries.iter_mut().filter(|e| e.1.is_none()) {
            e.0 = generation.max(1);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A free slot's index, if any.
    pub fn free(&self) -> Option<usize> {
        (0..self.len).find(|&i| self.entries[i].1.is_none())
    }

    /// Puts `value` in free slot `slot`; its id.
    pub fn fill(&mut self, slot: usize, value: T) -> Option<FlowId> {
        let e = self.entries[..self.len].get_mut(slot)?;
        if e.1.is_some() {
            return None;
        }
        e.1 = Some(value);
        Some(FlowId::new(slot, e.0))
    }

    /// The value `id` names, if it is still the one made with it.
    pub fn get(&mut self, id: FlowId) -> Option<&mut T> {
        let e = self.entries[..self.len].get_mut(id.slot())?;
        if e.0 != id.generation() || id.word() >> 40 != 0 {
            return None;
        }
        e.1.as_mut()
    }

    /// Empties the slot `id` names and moves its generation on.
    pub fn take(&mut self, id: FlowId) -> Option<T> {
        self.get(id)?;
        let e = &mut self.entries[id.slot()];
        // Generations wrap within 32 bits, skipping 0 so no id is 0.
        e.0 = e.0.checked_add(1).unwrap_or(1);
        e.1.take()
    }

    /// Every occupied slot: index, id, value.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (FlowId, &mut T)> {
        self.entries[..self.len]
            .iter_mut()
            .enumerate()
            .filter_map(|(i, (g, v))| Some((FlowId::new(i, *g), v.as_mut()?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_destroyed_flow_s_id_names_nothing_after_reuse() {
        let mut s = Slots::new(2);
        let a = s.fill(s.free().unwrap(), 'a').unwrap();
        let b = s.fill(s.free().unwrap(), 'b').unwrap();
        assert_eq!(s.free(), None);
        assert_eq!(s.take(a), Some('a'));
        let c = s.fill(s.free().unwrap(), 'c').unwrap();
        assert_eq!(c.slot(), a.slot());
        assert_ne!(c, a);
        assert_eq!(s.get(a), None);
        assert_eq!(s.take(a), None);
        assert_eq!(s.get(c), Some(&mut 'c'));
        assert_eq!(s.get(b), Some(&mut 'b'));
        assert_eq!(s.iter_mut().count(), 2);
        assert_ne!(a.word(), 0);
    }

    #[test]
    fn generations_can_start_anywhere() {
        let mut s = Slots::new(2);
        let old = s.fill(0, 'a').unwrap();
        let mut s = Slots::new(2);
        s.start_at(0x8000_0000);
        let new = s.fill(0, 'b').unwrap();
        assert_eq!(new.generation(), 0x8000_0000);
        assert_eq!(s.get(old), None);
        assert_eq!(s.take(new), Some('b'));
        s.start_at(0);
        assert_eq!(s.fill(0, 'c').unwrap().generation(), 1);
    }

    #[test]
    fn odd_ids_are_refused() {
        let mut s = Slots::new(1);
        let a = s.fill(0, 1).unwrap();
        assert_eq!(s.fill(0, 2), None, "occupied");
        assert_eq!(s.fill(1, 2), None, "past the end");
        for w in [0, 1, 0xff, a.word() | 1, a.word() | 1 << 50, u64::MAX] {
            assert_eq!(s.get(FlowId::from_word(w)), None, "{w:#x}");
        }
    }

    proptest! {
        /// Random creates and destroys: an id works exactly while its flow
        /// lives.
        #[test]
        fn ids_live_exactly_as_long_as_their_flow(ops in proptest::collection::vec(0u8..8, 0..200)) {
            let mut s = Slots::new(3);
            let mut live: Vec<FlowId> = Vec::new();
            let mut dead: Vec<FlowId> = Vec::new();
            for op in ops {
                if op < 4 {
                    if let Some(f) = s.free() {
                        live.push(s.fill(f, 0u8).unwrap());
                    } else {
                        prop_assert_eq!(live.len(), 3);
                    }
                } else if !live.is_empty() {
                    let id = live.remove(op as usize % live.len());
                    prop_assert!(s.take(id).is_some());
                    dead.push(id);
                }
                for id in &live {
                    prop_assert!(s.get(*id).is_some());
                }
                for id in &dead {
                    prop_assert!(s.get(*id).is_none());
                }
            }
        }
    }
}
