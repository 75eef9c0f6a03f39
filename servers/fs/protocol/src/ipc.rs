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

/// How long one slice of a compound may run in the server, in TSC ticks
/// (guest instructions under icount), besides its 128 steps and 32 KiB
/// moved; one call is never cut. A client waiting behind another's
/// compound waits about one slice and the call in flight.
pub const SLICE_TSC: u64 = 40_000;
