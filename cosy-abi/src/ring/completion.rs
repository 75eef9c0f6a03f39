//! A completion: what the server answers an entry with, in one slot of
//! the completion ring.
//!
//! The queue's slot is `{offset u64, len u32, id u32}`; a completion
//! fills it as io_uring fills its completion entry: `offset` holds the
//! value (the operation's result, a compound's exit value, or the op
//! index a verifier rejection names), `len` the status (a `code`: `OK`,
//! or what went wrong), `id` the entry's tag, echoed.

use conflux_queue::Descriptor;

use crate::code;

/// How one entry ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The entry's tag, as submitted.
    pub tag: u32,
    /// [`code::OK`], or the code of what went wrong (`ENTRY_*` for a
    /// malformed entry, a verifier code for a refused compound, a call's
    /// code for a failed operation, a stop code for a stopped compound).
    pub status: u16,
    /// The operation's value, or the compound's exit value; for a refused
    /// compound, the op at fault (`wire::NO_OP` if none).
    pub value: u64,
}

impl Completion {
    /// Whether the entry succeeded.
    pub fn is_ok(&self) -> bool {
        self.status == code::OK
    }

    /// The slot's words, as the server publishes them.
    pub(crate) fn to_slot(self) -> Descriptor {
        Descriptor {
            offset: self.value,
            len: u32::from(self.status),
            id: self.tag,
        }
    }

    /// A slot read from the completion ring, if its status is a code.
    pub(crate) fn from_slot(d: Descriptor) -> Result<Self, (u32, u32)> {
        let status = u16::try_from(d.len).map_err(|_| (d.id, d.len))?;
        Ok(Completion {
            tag: d.id,
            status,
            value: d.offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_fills_the_slot_as_documented() {
        let c = Completion {
            tag: 0x21,
            status: code::ENTRY_KIND,
            value: u64::MAX,
        };
        let d = c.to_slot();
        assert_eq!((d.offset, d.len, d.id), (u64::MAX, 0x0202, 0x21));
        assert_eq!(Completion::from_slot(d), Ok(c));
        let bad = Descriptor {
            offset: 0,
            len: 0x1_0000,
            id: 3,
        };
        assert_eq!(Completion::from_slot(bad), Err((3, 0x1_0000)));
    }
}
