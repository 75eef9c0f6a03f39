//! Why a request to the network server failed, as a client sees it.

use core::fmt;

use conflux_abi::SysError;
use conflux_cosy_ipc::client::Failure;
use conflux_cosy_ipc::client_ring::RingFailure;
use conflux_cosy_ipc::REJECTED;
use conflux_socket_protocol::NetError;
use cosy_abi::code;

/// A failed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The socket or session operation failed (`WouldBlock`,
    /// `ConnectionReset`, `BadSocket`, `NoSession`, ...).
    Net(NetError),
    /// The request itself was malformed (a buffer operand outside its
    /// region, ...): a cosy-abi code.
    Request(u16),
    /// The verifier refused a compound: its code and the op it names.
    Rejected { code: u16, op: Option<u16> },
    /// The network server died or restarted: reconnect.
    ServerRestarted,
    /// The IPC itself failed.
    Ipc(SysError),
    /// Data or a compound does not fit the control region.
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
    /// A ring call before [`crate::Net::ring_open`].
    NoRing,
    /// [`crate::Net::ring_wait`] with no entry in flight: nothing would
    /// ever wake it.
    NothingInFlight,
}

impl Error {
    /// The error a reply's status label stands for.
    pub fn from_status(label: u32, word0: u64) -> Error {
        if label & REJECTED != 0 {
            let op = u16::try_from(word0).ok().filter(|op| *op != 0xFFFF);
            return Error::Rejected {
                code: label as u16,
                op,
            };
        }
        let status = label as u16;
        match NetError::from_code(status & !code::SERVICE) {
            Some(e) if status & code::SERVICE != 0 => Error::Net(e),
            _ => Error::Request(status),
        }
    }

    /// The socket error, if it is one (a compound's op's too).
    pub fn net(self) -> Option<NetError> {
        match self {
            Error::Net(e) => Some(e),
            Error::Compound(op) => op.error.service(),
            _ => None,
        }
    }
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Status { label, word0 } => Error::from_status(label, word0),
            Failure::Ipc(SysError::DeadPeer) => Error::ServerRestarted,
            Failure::Ipc(e) => Error::Ipc(e),
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

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Net(e) => write!(f, "{e}"),
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
            Error::ServerRestarted => f.write_str("the network server restarted: reconnect"),
            Error::Ipc(e) => write!(f, "IPC to the network server failed: {e}"),
            Error::TooLarge => f.write_str("too large for the control region"),
            Error::Compound(op) if op.op.is_some() => write!(f, "compound failed at {op}"),
            Error::Compound(op) => write!(f, "compound failed: {op}"),
            Error::Layout(e) => write!(f, "laying out the compound's region: {e}"),
            Error::Ring(e) => write!(f, "ring to the network server: {e}"),
            Error::NoRing => f.write_str("no ring: call Net::ring_open first"),
            Error::NothingInFlight => {
                f.write_str("waiting on the net ring with no entry in flight: submit first")
            }
        }
    }
}
