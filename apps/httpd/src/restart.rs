//! Noticing that the network server restarted.
//!
//! Any call to the network server may fail with
//! `Error::ServerRestarted`: the server died (its parked `wait` is woken
//! by the kernel with `DeadPeer`) and init restarted it, so every socket
//! httpd had is gone. The calls are made deep inside the event loop
//! (accepting, receiving, pumping an answer), so each failure is noted
//! here and the loop looks once per round: it then drops every
//! connection (giving their files back to the file server), reconnects
//! and listens again (`main::recover`).

use core::sync::atomic::{AtomicBool, Ordering};

use conflux_net_client::Error;

/// Set when a call saw the restart; httpd is one thread.
static SEEN: AtomicBool = AtomicBool::new(false);

/// Notes `e` if it says the network server restarted; returns whether it
/// did.
pub fn note(e: &Error) -> bool {
    let restarted = *e == Error::ServerRestarted;
    if restarted {
        SEEN.store(true, Ordering::Relaxed);
    }
    restarted
}

/// Whether a restart was noted (and not taken yet).
pub fn seen() -> bool {
    SEEN.load(Ordering::Relaxed)
}

/// Whether a restart was noted since the last call.
pub fn take() -> bool {
    SEEN.swap(false, Ordering::Relaxed)
}
