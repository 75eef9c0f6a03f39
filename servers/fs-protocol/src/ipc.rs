//! The file server's IPC protocol: the shared Cosy session shape
//! (`conflux-cosy-ipc`: labels, buffer operands, run replies), and who may
//! stop the server.
//!
//! [`SHUTDOWN`] writes everything back, unmounts cleanly and stops the
//! server (for power-off and the end of a test); only a client whose
//! badge has [`ADMIN`] may ask.

pub use conflux_cosy_ipc::*;

/// The badge bit that marks a client as the system's administrator (the
/// shell), allowed to ask for [`SHUTDOWN`]. The manifest hands out badges.
pub const ADMIN: u64 = 1 << 32;
