//! What totals's client and server say to each other, in one place both
//! build against: the message labels, the reply status (an error is the
//! reply's label, never a panic in the server), and the operations a
//! compound may call.
//!
//! | label | words in | reply words |
//! |---|---|---|
//! | [`ADD`] | amount | the new total |
//! | [`GET`] | — | the total |
//! | [`RUN`] | offset, length of a compound in the shared region | its exit value, steps |
//!
//! A reply's label is [`OK`] or an [`Error`]'s code.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

use core::fmt;
use cosy_abi::{ArgKind, OpTable};

/// Adds word 0 to the total.
pub const ADD: u32 = 1;
/// Reads the total.
pub const GET: u32 = 2;
/// Verifies and runs the compound at offset word 0, length word 1, of the
/// shared region.
pub const RUN: u32 = 3;

/// The label of a reply that succeeded.
pub const OK: u32 = 0;

/// Why the server refused a request: the label of its reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Error {
    /// The request's label is none of the above.
    UnknownLabel = 1,
    /// The total would pass `u64::MAX`.
    Overflow = 2,
    /// The compound lies outside the shared region, or the verifier refused it.
    BadCompound = 3,
    /// The compound ran, but an operation in it failed.
    CompoundFailed = 4,
}

impl Error {
    /// Every error, for decoding and tests.
    pub const ALL: [Error; 4] = [
        Error::UnknownLabel,
        Error::Overflow,
        Error::BadCompound,
        Error::CompoundFailed,
    ];

    /// The reply label that carries this error.
    pub fn label(self) -> u32 {
        self as u32
    }

    /// The error a reply label stands for (`None` for [`OK`] or a label
    /// this protocol does not know).
    pub fn from_label(label: u32) -> Option<Error> {
        Error::ALL.into_iter().find(|e| e.label() == label)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::UnknownLabel => "the server knows no such request label",
            Error::Overflow => "the total would overflow",
            Error::BadCompound => "the compound is outside the shared region or was refused",
            Error::CompoundFailed => "an operation in the compound failed",
        })
    }
}

const V: ArgKind = ArgKind::Value;

/// The service error (`cosy_abi::CallError::Service`) for [`Error::Overflow`].
pub const OVERFLOW_CODE: u16 = 1;

cosy_abi::operations! {
    /// `add(amount) -> total`.
    OP_ADD = 0, "add", [V];
    /// `get() -> total`.
    OP_GET = 1, "get", [];
}

/// The operations a compound may call, for the verifier.
pub const OPS: OpTable<'static> = OpTable::new("totals", SPECS);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_label_decodes_to_itself_and_ok_to_none() {
        for e in Error::ALL {
            assert_eq!(Error::from_label(e.label()), Some(e));
            assert_ne!(e.label(), OK);
        }
        assert_eq!(Error::from_label(OK), None);
    }

    #[test]
    fn the_op_table_names_each_operation() {
        assert_eq!(OPS.get(OP_ADD).map(|s| s.name), Some("add"));
        assert_eq!(OPS.get(OP_GET).map(|s| s.args.len()), Some(0));
        assert!(OPS.get(2).is_none());
    }
}
