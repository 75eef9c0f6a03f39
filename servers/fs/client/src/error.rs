//! Why a request to the file server failed, as a client sees it.

use core::fmt;

use conflux_abi::SysError;
use conflux_cosy_ipc::client::Failure;
use conflux_cosy_ipc::client_ring::RingFailure;
use conflux_fs_protocol::{ipc, ops, FsError};
use cosy_abi::code;

/// A failed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The file operation failed (not found, exists, ...).
    Fs(FsError),
    /// The request itself was malformed (a buffer operand outside its
    /// region, ...): a cosy-abi code.
    Request(u16),
    /// The verifier refused a compound: its code and the op it names.
    Rejected { code: u16, op: Option<u16> },
    /// The file server died or restarted: the session is gone (handles
    /// too, and ring entries in flight). Call [`crate::Fs::reconnect`]
    /// (which opens the rings again) and open files again.
    ServerRestarted,
    /// The IPC itself failed.
    Ipc(SysError),
    /// A path or buffer does not fit the control region's staging area.
    TooLarge,
    /// A compound stopped at an op (a failure with `#![fail_fast]`, or
    /// the step budget), or ran with failures and was asked to be clean
    /// (`RunReport::clean`): which op and why.
    Compound(crate::OpFailure),
    /// An arena could not place a compound's input or buffer in its
    /// region (`cosy_abi::Arena`): too little room left.
    Layout(cosy_abi::ArenaError),
    /// The ring path: the rings refused (`Full` at the depth, an entry
    /// too large for its slot, ...) or are unusable.
    Ring(cosy_abi::ring::RingError),
    /// A ring call before [`crate::Fs::ring_open`].
    NoRing,
    /// [`crate::Fs::ring_wait`] with no entry in flight: nothing would
    /// ever wake it.
    NothingInFlight,
}

impl Error {
    /// The error a reply's status label stands for (`None` for OK).
    pub fn from_status(label: u32, word0: u64) -> Option<Error> {
        if label == ipc::OK {
            return None;
        }
        if label & ipc::REJECTED != 0 {
            let op = u16::try_from(word0).ok().filter(|op| *op != 0xFFFF);
            return Some(Error::Rejected {
                code: label as u16,
                op,
            });
        }
        let status = label as u16;
        Some(match FsError::from_code(status & !code::SERVICE) {
            Some(e) if status & code::SERVICE != 0 => Error::Fs(e),
            _ => Error::Request(status),
        })
    }
}

impl Error {
    /// The file error, if it is one (a compound's op's too).
    pub fn fs(self) -> Option<FsError> {
        match self {
            Error::Fs(e) => Some(e),
            Error::Compound(op) => op.error.service(),
            _ => None,
        }
    }
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Status { label, word0 } => {
                Error::from_status(label, word0).unwrap_or(Error::Request(0))
            }
            Failure::Ipc(e) => e.into(),
            Failure::TooLarge => Error::TooLarge,
        }
    }
}

impl From<RingFailure> for Error {
    fn from(f: RingFailure) -> Self {
        match f {
            RingFailure::Session(s) => s.into(),
            RingFailure::Ring(e) => Error::Ring(e),
            RingFailure::NoRing => Error::NoRing,
            RingFailure::NothingInFlight => Error::NothingInFlight,
        }
    }
}

impl From<cosy_abi::ring::RingError> for Error {
    fn from(e: cosy_abi::ring::RingError) -> Self {
        Error::Ring(e)
    }
}

impl From<cosy_abi::ArenaError> for Error {
    fn from(e: cosy_abi::ArenaError) -> Self {
        Error::Layout(e)
    }
}

impl From<crate::OpFailure> for Error {
    fn from(op: crate::OpFailure) -> Self {
        Error::Compound(op)
    }
}

impl From<SysError> for Error {
    fn from(e: SysError) -> Self {
        match e {
            SysError::DeadPeer => Error::ServerRestarted,
            e => Error::Ipc(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Fs(e) => write!(f, "{e}"),
            Error::Request(c) => write!(f, "malformed request (cosy-abi code {c:#06x})"),
            Error::Rejected { code, op: Some(op) } => {
                write!(
                    f,
                    "compound refused by the verifier at op {op} (code {code:#06x})"
                )
            }
            Error::Rejected { code, op: None } => {
                write!(f, "compound refused by the verifier (code {code:#06x})")
            }
            Error::ServerRestarted => {
                f.write_str("the file server restarted: reconnect and open the files again")
            }
            Error::Ipc(e) => write!(f, "IPC to the file server failed: {e}"),
            Error::TooLarge => f.write_str("too large for the control region's staging area"),
            Error::Compound(op) if op.op.is_some() => write!(f, "compound failed at {op}"),
            Error::Compound(op) => write!(f, "compound failed: {op}"),
            Error::Layout(e) => write!(f, "laying out the compound's region: {e}"),
            Error::Ring(e) => write!(f, "ring to the file server: {e}"),
            Error::NoRing => f.write_str("no ring: call Fs::ring_open first"),
            Error::NothingInFlight => {
                f.write_str("waiting on the ring with no entry in flight: submit first")
            }
        }
    }
}

/// The name of operation `op`, for messages.
pub fn op_name(op: u16) -> &'static str {
    ops::name(op).unwrap_or("unknown op")
}
