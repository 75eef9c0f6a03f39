//! What can go wrong talking to flowmgr.

use conflux_abi::SysError;
use conflux_flowmgr_core::Refusal;
use core::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// flowmgr refused, saying what and where.
    Refused(Refusal),
    /// The call failed (`DeadPeer`: flowmgr died or restarted, and its
    /// flows with it).
    Ipc(SysError),
    /// flowmgr's answer made no sense (a label or words it never sends).
    BadAnswer,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Refused(r) => write!(f, "flowmgr refused: {r}"),
            Self::Ipc(SysError::DeadPeer) => {
                f.write_str("flowmgr died or restarted: its flows are gone; create them again")
            }
            Self::Ipc(e) => write!(
                f,
                "cannot reach flowmgr: {e} (does this task hold a flowmgr capability?)"
            ),
            Self::BadAnswer => {
                f.write_str("flowmgr answered something that is not in its protocol")
            }
        }
    }
}
