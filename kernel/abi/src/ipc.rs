//! IPC messages: the info word, the message registers and the IPC buffer.
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
//! slot; receive: a capability was placed in the receive slot). Bits set
//! only by the kernel on receive: 41 "a capability was offered but there
//! was no free receive slot (or it was revoked on the way)", 42 "the kernel
//! itself sent this message" (fault messages), which no task can forge.
//! Bit 43 "lend" is set by a sender (only with bit 40) to lend a region
//! capability rather than share it, and reported to the receiver: a lent
//! region stays mapped in its borrower until the borrower unmaps it, even
//! if the lender revokes it (see `docs/kernel.md`, "Lending memory
//! to a server").
//! Every other bit is reserved: a sender that sets one gets
//! `InvalidArgument`, so a future meaning cannot be confused with garbage.

use crate::cap::CAP_SLOTS;
use crate::SysError;

/// Words carried in registers.
pub const REG_WORDS: usize = 4;
/// Longest message, in words (the rest of the IPC buffer is unused).
pub const MAX_WORDS: usize = 64;
/// Label of the messages the kernel sends a supervisor when a task faults
/// (see [`FaultMessage`]).
pub const FAULT_LABEL: u32 = 0xfa17;
/// Label of the kernel-made message that ends a receive when the task's
/// bound notification is signalled (`ntfn_bind`): the badge is the
/// notification word (cleared by the delivery), no words, `from_kernel` set.
pub const NOTIFY_LABEL: u32 = 0x5167;

const CAP_FLAG: u64 = 1 << 40;
const CAP_DROPPED: u64 = 1 << 41;
const FROM_KERNEL: u64 = 1 << 42;
const LEND: u64 = 1 << 43;
const LEN_SHIFT: u32 = 32;
const SLOT_SHIFT: u32 = 48;
/// Bits a sender may set: label, length, capability flag, lend and slot.
const SENDER_BITS: u64 = 0xffff_ffff | 0xff << LEN_SHIFT | CAP_FLAG | LEND | 0xff << SLOT_SHIFT;

/// A message as it sits in the message registers: the info word, the
/// badge (on receive) and the register words. Both the kernel's register
/// accessors and the user runtime's syscall wrappers go through this type,
/// so the order of the message registers is written down once:
/// info in `rdi` (receive) / `rsi` (send), badge in `rsi` (receive),
/// words in `rdx, r10, r8, r9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RawMessage {
    pub info: u64,
    pub badge: u64,
    pub words: [u64; REG_WORDS],
}

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
    /// Receive only: the kernel sent this message (no task can).
    pub from_kernel: bool,
    /// Send: lend the attached region capability instead of sharing it.
    /// Receive: the capability that arrived is lent (a lease).
    pub lend: bool,
}

impl Info {
    #[inline]
    pub fn new(label: u32, len: usize) -> Self {
        Self {
            label,
            len,
            ..Self::default()
        }
    }

    #[inline]
    pub fn with_cap(self, slot: usize) -> Self {
        Self {
            cap: Some(slot),
            ..self
        }
    }

    /// The same, with the attached capability lent rather than shared.
    #[inline]
    pub fn lent(self) -> Self {
        Self { lend: true, ..self }
    }

    /// The info word; a length over [`MAX_WORDS`] or a slot past the
    /// capability table is refused rather than truncated to 8 bits.
    #[inline]
    pub fn encode(&self) -> Result<u64, SysError> {
        if self.len > MAX_WORDS {
            return Err(SysError::TooLong);
        }
        let mut w = self.label as u64 | (self.len as u64) << LEN_SHIFT;
        if let Some(slot) = self.cap {
            if slot >= CAP_SLOTS {
                return Err(SysError::InvalidSlot);
            }
            w |= CAP_FLAG | (slot as u64) << SLOT_SHIFT;
        }
        if self.cap_dropped {
            w |= CAP_DROPPED;
        }
        if self.from_kernel {
            w |= FROM_KERNEL;
        }
        if self.lend {
            w |= LEND;
        }
        Ok(w)
    }

    /// Decodes an info word as the kernel hands it to a receiver.
    #[inline]
    pub fn decode(w: u64) -> Self {
        Self {
            label: w as u32,
            len: (w >> LEN_SHIFT & 0xff) as usize,
            cap: (w & CAP_FLAG != 0).then_some((w >> SLOT_SHIFT & 0xff) as usize),
            cap_dropped: w & CAP_DROPPED != 0,
            from_kernel: w & FROM_KERNEL != 0,
            lend: w & LEND != 0,
        }
    }

    /// Decodes an info word a task sends: reserved or kernel-only bits are
    /// `InvalidArgument`, a length past [`MAX_WORDS`] is `TooLong`.
    #[inline]
    pub fn from_sender(w: u64) -> Result<Self, SysError> {
        let slot_bits = w >> SLOT_SHIFT & 0xff;
        let cap_bits = slot_bits != 0 || w & LEND != 0;
        if w & !SENDER_BITS != 0 || (w & CAP_FLAG == 0 && cap_bits) {
            return Err(SysError::InvalidArgument);
        }
        let info = Self::decode(w);
        if info.len > MAX_WORDS {
            return Err(SysError::TooLong);
        }
        Ok(info)
    }
}

/// Why a task ended. Carried explicitly in a [`FaultMessage`] (not as a
/// reserved vector number), so a supervisor can never mistake a panic for
/// an exception, or an exit for either.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A CPU exception (vector, error code, address and `rip` are meaningful).
    Exception = 0,
    /// The task panicked and asked the kernel to end it (the `panic`
    /// syscall); its last console line gives the message and location.
    /// Vector, error, address and `rip` are 0.
    Panic = 1,
    /// The operator stopped the task (`task_stop`, e.g. the shell's
    /// `kill`). `address` is the index of the task that asked; vector,
    /// error and `rip` are 0.
    Stopped = 3,
    /// The task ended itself with the `exit` syscall: not a fault, but
    /// its supervisor is told all the same, so the servers it used can
    /// be told it is gone and its restart policy can apply. The exit code
    /// is in word 2 ([`FaultMessage::exit_code`]); vector, error and
    /// `rip` are 0.
    Exited = 2,
}

impl FaultKind {
    fn from_bits(b: u64) -> Option<Self> {
        match b {
            0 => Some(Self::Exception),
            1 => Some(Self::Panic),
            3 => Some(Self::Stopped),
            2 => Some(Self::Exited),
            _ => None,
        }
    }
}

/// What the kernel tells a supervisor about a task that ended: faulted,
/// panicked or exited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultMessage {
    /// Index of the task in the boot image (its manifest start order).
    pub task: u32,
    /// A CPU exception, a panic or an exit.
    pub kind: FaultKind,
    /// CPU exception vector (0 for a panic).
    pub vector: u8,
    /// The exception's error code (0 where the CPU gives none).
    pub error: u32,
    /// Faulting address (CR2) for page faults; the exit code for
    /// [`FaultKind::Exited`]; else 0.
    pub address: u64,
    /// Instruction pointer of the fault.
    pub rip: u64,
}

/// Word 1 of a fault message: bits 0..8 vector, 8..16 kind, 32..64 error
/// code; bits 16..32 are reserved (zero).
const KIND_SHIFT: u32 = 8;
const ERROR_SHIFT: u32 = 32;
const WORD1_RESERVED: u64 = 0xffff << 16;

impl FaultMessage {
    /// A panic report for task `task`.
    pub fn panic(task: u32) -> Self {
        Self {
            task,
            kind: FaultKind::Panic,
            vector: 0,
            error: 0,
            address: 0,
            rip: 0,
        }
    }

    /// A report that task `task` was stopped at the request of task `by`.
    pub fn stopped(task: u32, by: u32) -> Self {
        Self {
            task,
            kind: FaultKind::Stopped,
            vector: 0,
            error: 0,
            address: by as u64,
            rip: 0,
        }
    }

    /// The message words: task, vector | kind << 8 | error << 32, address, rip.
    /// An exit report for task `task`, which exited with `code`.
    pub fn exited(task: u32, code: u64) -> Self {
        Self {
            kind: FaultKind::Exited,
            address: code,
            ..Self::panic(task)
        }
    }

    /// The exit code, if the task exited (rather than faulted).
    pub fn exit_code(&self) -> Option<u64> {
        (self.kind == FaultKind::Exited).then_some(self.address)
    }

    /// The message words: task, vector | kind << 8 | error << 32, address
    /// (or exit code), rip.
    pub fn to_words(&self) -> [u64; REG_WORDS] {
        [
            self.task as u64,
            self.vector as u64
                | (self.kind as u64) << KIND_SHIFT
                | (self.error as u64) << ERROR_SHIFT,
            self.address,
            self.rip,
        ]
    }

    /// Decodes the words of a fault message; `None` when the kind is
    /// unknown or a reserved bit is set (a message from a kernel newer
    /// than this supervisor, which must not be guessed at).
    pub fn from_words(w: [u64; REG_WORDS]) -> Option<Self> {
        if w[1] & WORD1_RESERVED != 0 {
            return None;
        }
        Some(Self {
            task: w[0] as u32,
            kind: FaultKind::from_bits(w[1] >> KIND_SHIFT & 0xff)?,
            vector: w[1] as u8,
            error: (w[1] >> ERROR_SHIFT) as u32,
            address: w[2],
            rip: w[3],
        })
    }
}

/// A supervisor's answer to a [`FaultMessage`], in word 0 of its reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SupervisorReply {
    /// Leave the task stopped.
    LeaveStopped = 0,
    /// Reload the task from the image with a new generation.
    Restart = 1,
}

impl SupervisorReply {
    pub fn to_word(self) -> u64 {
        self as u64
    }

    /// Anything but an explicit restart leaves the task stopped.
    pub fn from_word(w: u64) -> Self {
        if w == Self::Restart as u64 {
            Self::Restart
        } else {
            Self::LeaveStopped
        }
    }
}

/// The supervisor's slot for its fault endpoint (the manifest lowering
/// puts it there; the kernel sends fault messages to that endpoint).
pub const SUPERVISOR_FAULT_SLOT: usize = 1;

/// Endpoint badges with this bit set are reserved: the manifest gives
/// badges below it only (`0..=i64::MAX`), and `cap_mint` refuses to make
/// an endpoint capability with one (`InvalidArgument`), so a server can
/// trust that a caller with such a badge got it from the manifest.
pub const RESERVED_BADGES: u64 = 1 << 63;

/// The badge of the supervisor's capabilities to the servers that keep
/// sessions (`sessions = true` on an endpoint in the manifest). Only a
/// call with this badge may ask [`CLIENT_GONE_LABEL`].
pub const SUPERVISOR_BADGE: u64 = u64::MAX;

/// The supervisor tells a server that a client is gone (its task ended
/// and was left stopped or is about to be restarted): word 0 is the
/// badge of the client's capability. The server ends that client's
/// session as a reconnect would and replies with label 0 and word 0: 1
/// if there was a session, 0 if not. A caller without
/// [`SUPERVISOR_BADGE`] gets the server's own refusal ("only the
/// supervisor"). The label lies above every Cosy session label and op
/// label (`0x100..=0x100ff`) and flowmgr's labels.
pub const CLIENT_GONE_LABEL: u32 = 0x2_0000;

const _: () = assert!(SUPERVISOR_BADGE & RESERVED_BADGES != 0);

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
            Info::new(2, 1).with_cap(5).lent(),
        ] {
            assert_eq!(Info::decode(i.encode().unwrap()), i);
        }
    }

    #[test]
    fn oversized_fields_are_refused_not_truncated() {
        assert_eq!(Info::new(1, 256).encode(), Err(SysError::TooLong));
        assert_eq!(Info::new(1, 65).encode(), Err(SysError::TooLong));
        assert_eq!(
            Info::new(1, 0).with_cap(300).encode(),
            Err(SysError::InvalidSlot)
        );
    }

    #[test]
    fn senders_cannot_set_reserved_or_kernel_bits() {
        let ok = Info::new(5, 3).with_cap(7).encode().unwrap();
        assert_eq!(Info::from_sender(ok), Ok(Info::new(5, 3).with_cap(7)));
        for bit in [41, 42, 44, 47, 56, 63] {
            assert_eq!(
                Info::from_sender(ok | 1 << bit),
                Err(SysError::InvalidArgument),
                "bit {bit}"
            );
        }
        assert_eq!(Info::from_sender(3 << 48), Err(SysError::InvalidArgument));
        // Lending needs a capability to lend.
        assert_eq!(Info::from_sender(1 << 43), Err(SysError::InvalidArgument));
        let lent = Info::new(5, 0).with_cap(7).lent();
        assert_eq!(Info::from_sender(lent.encode().unwrap()), Ok(lent));
        assert_eq!(Info::from_sender(65 << 32), Err(SysError::TooLong));
    }

    #[test]
    fn fault_messages_round_trip() {
        let f = FaultMessage {
            task: 3,
            kind: FaultKind::Exception,
            vector: 14,
            error: 6,
            address: 0xdead_b000,
            rip: 0x40_1000,
        };
        assert_eq!(FaultMessage::from_words(f.to_words()), Some(f));
        assert_eq!(SupervisorReply::from_word(1), SupervisorReply::Restart);
        assert_eq!(SupervisorReply::from_word(7), SupervisorReply::LeaveStopped);
    }

    #[test]
    fn a_panic_is_told_apart_from_every_exception() {
        let p = FaultMessage::panic(5);
        let w = p.to_words();
        assert_eq!(w, [5, 1 << 8, 0, 0], "kind 1 in bits 8..16 of word 1");
        assert_eq!(FaultMessage::from_words(w), Some(p));
        for vector in 0..=255u8 {
            let e = FaultMessage {
                vector,
                kind: FaultKind::Exception,
                ..p
            };
            let back = FaultMessage::from_words(e.to_words()).unwrap();
            assert_eq!(back.kind, FaultKind::Exception, "vector {vector}");
            assert_eq!(back.vector, vector);
        }
    }

    #[test]
    fn an_exit_carries_its_code_and_is_no_fault() {
        let e = FaultMessage::exited(4, 17);
        let w = e.to_words();
        assert_eq!(w, [4, 2 << 8, 17, 0], "kind 2, code in word 2");
        let back = FaultMessage::from_words(w).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.kind, FaultKind::Exited);
        assert_eq!(back.exit_code(), Some(17));
        assert_eq!(FaultMessage::panic(4).exit_code(), None);
    }

    #[test]
    fn unknown_kinds_and_reserved_bits_are_refused() {
        let w = FaultMessage::panic(1).to_words();
        assert_eq!(FaultMessage::from_words([w[0], 4 << 8, 0, 0]), None);
        assert_eq!(FaultMessage::from_words([w[0], 0xff << 8, 0, 0]), None);
        for bit in 16..32 {
            assert_eq!(
                FaultMessage::from_words([w[0], w[1] | 1 << bit, 0, 0]),
                None,
                "bit {bit}"
            );
        }
    }
}
