//! IPC messages: the info word and the IPC buffer.
//!
//! A message is a label, up to [`MAX_WORDS`] data words and optionally one
//! capability. The first [`REG_WORDS`] words travel in registers (the
//! fastpath: no memory is touched); longer messages put words
//! `REG_WORDS..len` in the sender's IPC buffer page ([`crate::layout::IPC_BUFFER`]),
//! at byte offset `8 * index`, and the kernel copies them to the
//! receiver's buffer at the same offsets.
//!
//! Info word: bits 0..32 label, bits 32..40 length in words, bit 40 "a
//! capability is attached" (send: transfer the capability in bits 48..56's
//! slot; receive: a capability was placed in the receive slot), bit 41 on
//! receive: "a capability was offered but there was no free receive slot".

/// Words carried in registers.
pub const REG_WORDS: usize = 4;
/// Longest message, in words (the rest of the IPC buffer is unused).
pub const MAX_WORDS: usize = 64;
/// Label of the messages the kernel sends a supervisor when a task faults:
/// words are task index, vector | error code << 32, fault address, rip.
pub const FAULT_LABEL: u32 = 0xfa17;

const CAP_FLAG: u64 = 1 << 40;
const CAP_DROPPED: u64 = 1 << 41;

/// The decoded info word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Info {
    pub label: u32,
    pub len: usize,
    /// Send: slot of a capability to transfer. Receive: `Some(0)` when a
    /// capability arrived in the receive slot.
    pub cap: Option<usize>,
    /// Receive only: a capability was offered but could not be placed.
    pub cap_dropped: bool,
}

impl Info {
    pub fn new(label: u32, len: usize) -> Self {
        Self {
            label,
            len,
            cap: None,
            cap_dropped: false,
        }
    }

    pub fn with_cap(self, slot: usize) -> Self {
        Self {
            cap: Some(slot),
            ..self
        }
    }

    pub fn encode(&self) -> u64 {
        let mut w = self.label as u64 | ((self.len as u64 & 0xff) << 32);
        if let Some(slot) = self.cap {
            w |= CAP_FLAG | (slot as u64 & 0xff) << 48;
        }
        if self.cap_dropped {
            w |= CAP_DROPPED;
        }
        w
    }

    pub fn decode(w: u64) -> Self {
        Self {
            label: w as u32,
            len: (w >> 32 & 0xff) as usize,
            cap: (w & CAP_FLAG != 0).then_some((w >> 48 & 0xff) as usize),
            cap_dropped: w & CAP_DROPPED != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_round_trips() {
        for i in [
            Info::new(7, 3),
            Info::new(u32::MAX, 64).with_cap(63),
            Info {
                cap_dropped: true,
                ..Info::new(1, 0)
            },
        ] {
            assert_eq!(Info::decode(i.encode()), i);
        }
    }
}
