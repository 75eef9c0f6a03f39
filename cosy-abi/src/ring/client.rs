//! The client's end: writes entries into its slots of the data area,
//! submits them, and reaps their completions.
//!
//! The data area is cut into [`DEPTH`] equal slots, one per entry in
//! flight; an entry's tag names its slot (low 5 bits) and that slot's
//! use count (the rest), so a completion for an entry no longer in
//! flight — a broken server's — is caught, not taken for a new one.

use core::ops::Range;

use conflux_queue::{Consumer, DataRegion, Descriptor, PopError, Producer, Ring};

use super::entry::{compound_body, write_compound, write_op};
use super::{Completion, RingError, DEPTH};

/// Bits of a tag that name the slot.
const SLOT_BITS: u32 = DEPTH.trailing_zeros();

/// A submitted entry, as its completion will name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket(u32);

impl Ticket {
    /// The tag on the ring.
    pub fn tag(&self) -> u32 {
        self.0
    }
}

/// A completion matched to the entry it answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reaped {
    /// Which submission.
    pub ticket: Ticket,
    /// How it ended.
    pub completion: Completion,
    /// A compound entry's bytes in the data area (its results area
    /// filled in); read them before the next submission reuses the slot.
    pub compound: Option<Range<usize>>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    tag: u32,
    in_flight: bool,
    /// A compound's parameter count (`None`: an operation).
    params: Option<usize>,
    len: usize,
}

/// What the client keeps between calls: its slots' tags and which are
/// in flight. A task that cannot keep the rings borrowed (its region is
/// a window it maps) keeps this, and [`RingClient::resume`]s over the
/// rings it attaches again for each call; the queue indices live in the
/// region, written only by this end.
#[derive(Clone, Debug)]
pub struct ClientState {
    slot_len: usize,
    slots: [Slot; DEPTH as usize],
    in_flight: u32,
}

impl ClientState {
    /// The state to resume over rings formatted afresh in the same
    /// region after the server that served them restarted: every entry
    /// that was in flight is forgotten (the new server never saw it and
    /// never answers it), its slot free again with its use count moved
    /// on, as if it had been reaped. So a ticket from before the restart
    /// can never be taken for an entry submitted after it, and a client
    /// still holding one sees no answer for it, never a stranger's.
    pub fn restarted(mut self) -> Self {
        for slot in self.slots.iter_mut().filter(|s| s.in_flight) {
            slot.in_flight = false;
            slot.tag = slot.tag.wrapping_add(1 << SLOT_BITS);
        }
        self.in_flight = 0;
        self
    }
}

/// The client's end of its rings.
pub struct RingClient<'a> {
    submissions: Producer<'a>,
    completions: Consumer<'a>,
    state: ClientState,
}

impl<'a> RingClient<'a> {
    /// The client's end over its two rings and a data area of `data_len`
    /// bytes (cut into [`DEPTH`] slots of 8-byte multiples).
    pub fn new(submissions: Ring<'a>, completions: Ring<'a>, data_len: usize) -> Self {
        let mut slots = [Slot::default(); DEPTH as usize];
        for (i, s) in slots.iter_mut().enumerate() {
            s.tag = i as u32;
        }
        let state = ClientState {
            slot_len: (data_len / DEPTH as usize) & !7,
            slots,
            in_flight: 0,
        };
        Self::resume(submissions, completions, state)
    }

    /// The client's end again, with the state [`RingClient::suspend`] gave.
    pub fn resume(submissions: Ring<'a>, completions: Ring<'a>, state: ClientState) -> Self {
        Self {
            submissions: submissions.into_producer(),
            // Completion slots carry words, not buffers; the check against
            // a region is not theirs (see `next_completion`).
            completions: completions.into_consumer(DataRegion::new(usize::MAX)),
            state,
        }
    }

    /// What to keep until the next [`RingClient::resume`].
    pub fn suspend(self) -> ClientState {
        self.state
    }

    /// Bytes one entry may take.
    pub fn slot_len(&self) -> usize {
        self.state.slot_len
    }

    /// Entries submitted and not reaped.
    pub fn in_flight(&self) -> u32 {
        self.state.in_flight
    }

    /// Submits operation `op` with its operand words.
    pub fn submit_op(
        &mut self,
        data: &mut [u8],
        op: u16,
        words: &[u64],
    ) -> Result<Ticket, RingError> {
        self.submit(data, None, |slot| write_op(slot, op, words))
    }

    /// Submits a compound (its bytes, copied into the slot) to run with
    /// `params` in r0...
    pub fn submit_compound(
        &mut self,
        data: &mut [u8],
        compound: &[u8],
        params: &[u64],
    ) -> Result<Ticket, RingError> {
        self.submit(data, Some(params.len()), |slot| {
            write_compound(slot, params, compound)
        })
    }

    fn submit(
        &mut self,
        data: &mut [u8],
        params: Option<usize>,
        write: impl FnOnce(&mut [u8]) -> Result<usize, RingError>,
    ) -> Result<Ticket, RingError> {
        let st = &mut self.state;
        let free = st.slots.iter().position(|s| !s.in_flight);
        let index = free.ok_or(RingError::Full { depth: DEPTH })?;
        let start = index * st.slot_len;
        let have = data.len();
        let area = data
            .get_mut(start..start + st.slot_len)
            .ok_or(RingError::TooSmall {
                need: start + st.slot_len,
                have,
            })?;
        let len = write(area)?;
        let slot = &mut st.slots[index];
        let descriptor = Descriptor {
            offset: start as u64,
            // At most `slot_len`, which came from a data area's length.
            len: len as u32,
            id: slot.tag,
        };
        // Never full: `in_flight` < DEPTH counts every slot the server
        // has not answered and we have not reaped.
        self.submissions.push(descriptor)?;
        *slot = Slot {
            in_flight: true,
            params,
            len,
            ..*slot
        };
        st.in_flight += 1;
        Ok(Ticket(slot.tag))
    }

    /// After a batch of submissions: whether the server asked to be
    /// notified (then notify it once). A polling server never asks.
    pub fn needs_signal(&mut self) -> bool {
        self.submissions.needs_signal()
    }

    /// The next completion, matched to its entry (whose slot is free
    /// again), or `None` if there is none yet.
    pub fn reap(&mut self) -> Result<Option<Reaped>, RingError> {
        let Some(raw) = self.next_completion()? else {
            return Ok(None);
        };
        let bad = RingError::BadCompletion {
            tag: raw.id,
            status: raw.len,
        };
        let completion = Completion::from_slot(raw).map_err(|_| bad)?;
        let index = (completion.tag & (DEPTH - 1)) as usize;
        let st = &mut self.state;
        let slot = &mut st.slots[index];
        if !slot.in_flight || slot.tag != completion.tag {
            return Err(bad);
        }
        let start = index * st.slot_len;
        let compound = slot
            .params
            .map(|p| compound_body(start..start + slot.len, p));
        slot.in_flight = false;
        slot.tag = slot.tag.wrapping_add(1 << SLOT_BITS);
        st.in_flight -= 1;
        Ok(Some(Reaped {
            ticket: Ticket(completion.tag),
            completion,
            compound,
        }))
    }

    /// The next completion slot as it is: the queue checks what it pops
    /// against a region, and a completion's value may be any number, so
    /// both of its answers carry the slot, consumed.
    fn next_completion(&mut self) -> Result<Option<Descriptor>, RingError> {
        match self.completions.pop() {
            Ok(v) => Ok(v.map(|v| v.get())),
            Err(PopError::OutOfBounds(d)) => Ok(Some(d)),
            Err(PopError::Corrupt(c)) => Err(c.into()),
        }
    }

    /// Before sleeping for completions: asks the server for a
    /// notification and looks once more. `Ok(true)`: none yet, sleep;
    /// `Ok(false)`: completions arrived, reap them.
    pub fn prepare_to_wait(&mut self) -> Result<bool, RingError> {
        Ok(self.completions.prepare_to_wait()?)
    }
}
