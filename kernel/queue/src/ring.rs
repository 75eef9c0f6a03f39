//! One single-producer/single-consumer ring and its two handles.
//!
//! A [`Ring`] is the typed view of a ring's memory; a task turns it into
//! exactly one of [`Producer`] or [`Consumer`] (or, in one process, splits
//! it into both). Each handle keeps its own index (`tail` for the producer,
//! `head` for the consumer) in private memory and only *stores* it to the
//! shared header: what it reads back from shared memory is the other side's
//! index, which is untrusted and checked on every read.

use crate::descriptor::{DataRegion, Descriptor, ValidDescriptor};
use crate::layout::{ring_bytes, Header, LayoutError, Slot};
use crate::sync::{fence, Ordering::*};

/// The memory of one ring, checked but not yet given a role.
pub struct Ring<'a> {
    header: &'a Header,
    slots: &'a [Slot],
}

/// The other side's index is impossible: more than `capacity` slots apart
/// from ours. The peer is broken or hostile; the ring is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Corrupt {
    /// The consumer's index as seen by whoever noticed.
    pub head: u32,
    /// The producer's index as seen by whoever noticed.
    pub tail: u32,
}

/// Why [`Producer::push`] did not publish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushError {
    /// Every slot is in use; try again after the consumer has read some.
    Full,
    /// The consumer's index is impossible.
    Corrupt(Corrupt),
}

/// Why [`Consumer::pop`] returned no usable descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PopError {
    /// The producer's index is impossible; nothing was consumed.
    Corrupt(Corrupt),
    /// The next descriptor points outside the data region. It has been
    /// consumed (so the ring does not stall on it) and must not be used.
    OutOfBounds(Descriptor),
}

impl<'a> Ring<'a> {
    /// A ring over a header and slots in ordinary memory, which must have
    /// been formatted (by [`Header::new`]) for `slots.len()` slots.
    pub fn from_parts(header: &'a Header, slots: &'a [Slot]) -> Result<Self, LayoutError> {
        let capacity = capacity_of(slots)?;
        header.check(capacity)?;
        Ok(Self { header, slots })
    }

    /// Formats header and slots as an empty ring.
    #[cfg(not(loom))]
    pub(crate) fn format_parts(header: &'a Header, slots: &'a [Slot]) -> Result<Self, LayoutError> {
        let capacity = capacity_of(slots)?;
        for s in slots {
            s.store(Descriptor::default());
        }
        header.format(capacity);
        Self::from_parts(header, slots)
    }

    /// Number of slots.
    pub fn capacity(&self) -> u32 {
        // from_parts checked that the length is a power of two <= 2^31.
        self.slots.len() as u32
    }

    /// This task's role: it fills the ring.
    pub fn into_producer(self) -> Producer<'a> {
        let tail = self.header.tail.0.load(Relaxed);
        Producer { ring: self, tail }
    }

    /// This task's role: it drains the ring, and every descriptor it reads
    /// is checked against `data`.
    pub fn into_consumer(self, data: DataRegion) -> Consumer<'a> {
        let head = self.header.consumer.0.head.load(Relaxed);
        Consumer {
            ring: self,
            head,
            data,
        }
    }

    /// Both roles, for a ring whose two ends live in one process (tests,
    /// threads of one task).
    pub fn split(self, data: DataRegion) -> (Producer<'a>, Consumer<'a>) {
        let again = Ring {
            header: self.header,
            slots: self.slots,
        };
        (self.into_producer(), again.into_consumer(data))
    }

    /// Filled slots right now, as an onlooker holding neither role sees
    /// them (how flowmgr reports a queue's occupancy). Both indices come
    /// from shared memory, so the answer is only a report; `Corrupt` if
    /// they are impossible.
    pub fn occupancy(&self) -> Result<u32, Corrupt> {
        let tail = self.header.tail.0.load(Acquire);
        let head = self.header.consumer.0.head.load(Acquire);
        self.filled(head, tail)
    }

    /// Filled slots between `head` and `tail`, or `Corrupt` if more than
    /// the capacity (which also catches a `head` ahead of `tail`).
    fn filled(&self, head: u32, tail: u32) -> Result<u32, Corrupt> {
        let n = tail.wrapping_sub(head);
        if n <= self.capacity() {
            Ok(n)
        } else {
            Err(Corrupt { head, tail })
        }
    }

    fn slot(&self, index: u32) -> &Slot {
        &self.slots[(index & (self.capacity() - 1)) as usize]
    }
}

fn capacity_of(slots: &[Slot]) -> Result<u32, LayoutError> {
    let capacity = u32::try_from(slots.len()).unwrap_or(0);
    match ring_bytes(capacity) {
        Some(_) => Ok(capacity),
        None => Err(LayoutError::BadCapacity(capacity)),
    }
}

/// The filling end of a ring. Only one exists per ring.
pub struct Producer<'a> {
    ring: Ring<'a>,
    tail: u32,
}

impl Producer<'_> {
    /// Appends `d` and publishes it.
    ///
    /// Ordering: the Acquire load of `head` orders the consumer's read of
    /// the slot being reused before our overwrite of it; the Release store
    /// of `tail` makes the slot's contents visible before the new index.
    pub fn push(&mut self, d: impl Into<Descriptor>) -> Result<(), PushError> {
        let head = self.ring.header.consumer.0.head.load(Acquire);
        let used = self
            .ring
            .filled(head, self.tail)
            .map_err(PushError::Corrupt)?;
        if used == self.ring.capacity() {
            return Err(PushError::Full);
        }
        self.ring.slot(self.tail).store(d.into());
        self.tail = self.tail.wrapping_add(1);
        self.ring.header.tail.0.store(self.tail, Release);
        Ok(())
    }

    /// Slots free right now (more may free up at any time).
    pub fn free(&self) -> Result<u32, Corrupt> {
        let head = self.ring.header.consumer.0.head.load(Acquire);
        Ok(self.ring.capacity() - self.ring.filled(head, self.tail)?)
    }

    /// After publishing: whether the consumer asked to be notified. If so
    /// the request is taken (the flag cleared) and the caller must notify
    /// it once; otherwise no notification, no syscall.
    ///
    /// Ordering: the SeqCst fence pairs with the one in
    /// [`Consumer::prepare_to_wait`]; see the crate docs for why that
    /// rules out a lost wake-up.
    pub fn needs_signal(&mut self) -> bool {
        fence(SeqCst);
        let flag = &self.ring.header.consumer.0.signal_me;
        flag.load(Relaxed) != 0 && flag.swap(0, Relaxed) != 0
    }
}

/// The draining end of a ring. Only one exists per ring.
pub struct Consumer<'a> {
    ring: Ring<'a>,
    head: u32,
    data: DataRegion,
}

impl Consumer<'_> {
    /// Takes the next descriptor, checked against the data region, or
    /// `Ok(None)` if the ring is empty.
    ///
    /// Ordering: the Acquire load of `tail` makes the producer's slot
    /// writes visible; the descriptor is copied out once (the producer may
    /// rewrite the slot at any time) and the copy is what gets checked and
    /// returned; the Release store of `head` hands the slot back only
    /// after that copy.
    pub fn pop(&mut self) -> Result<Option<ValidDescriptor>, PopError> {
        let tail = self.ring.header.tail.0.load(Acquire);
        if self
            .ring
            .filled(self.head, tail)
            .map_err(PopError::Corrupt)?
            == 0
        {
            return Ok(None);
        }
        let d = self.ring.slot(self.head).load();
        self.head = self.head.wrapping_add(1);
        self.ring.header.consumer.0.head.store(self.head, Release);
        self.data.check(d).map(Some).map_err(PopError::OutOfBounds)
    }

    /// Descriptors waiting right now (more may arrive at any time).
    pub fn len(&self) -> Result<u32, Corrupt> {
        let tail = self.ring.header.tail.0.load(Acquire);
        self.ring.filled(self.head, tail)
    }

    /// Whether the ring is empty right now.
    pub fn is_empty(&self) -> Result<bool, Corrupt> {
        Ok(self.len()? == 0)
    }

    /// The data region descriptors are checked against.
    pub fn data(&self) -> DataRegion {
        self.data
    }

    /// Before sleeping: asks the producer for a notification, then looks
    /// at the ring once more. `Ok(true)`: still empty, and the producer's
    /// next [`Producer::needs_signal`] will say so; sleep now. `Ok(false)`:
    /// descriptors arrived meanwhile; the request is withdrawn, drain them
    /// instead of sleeping.
    ///
    /// Ordering: flag store, SeqCst fence, `tail` load (see crate docs).
    pub fn prepare_to_wait(&mut self) -> Result<bool, Corrupt> {
        let flag = &self.ring.header.consumer.0.signal_me;
        flag.store(1, Relaxed);
        fence(SeqCst);
        if self.is_empty()? {
            return Ok(true);
        }
        flag.store(0, Relaxed);
        Ok(false)
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
