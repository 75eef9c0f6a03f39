//! Whose priority a compound's slices run at.
//!
//! A slice of a client's compound runs at that client's priority when the
//! client is less urgent than the server (seL4's MCS kernel gets the same
//! by running a server on its caller's scheduling context): with fixed
//! priorities, a server that ran every slice at its own priority would
//! hold the CPU from every client less urgent than itself — httpd, the
//! shell — until the compound ended. Lowered, the server shares the CPU
//! round robin with the client's peers; the kernel raises it back to its
//! own priority while a more urgent client waits to call it, and the loop
//! raises it again before it looks at its queue.
//!
//! Priorities come from the manifest: `FS_CLIENT_PRIORITIES` gives, for
//! each client's session slot (its place in `FS_CLIENTS`), the least
//! urgent priority of the tasks holding its badge. Only the manifest's
//! clients have sessions, so every job has one.

use core::sync::atomic::{AtomicBool, Ordering};

use conflux_abi::syscall::MAX_PRIORITY;
use conflux_userlib::{println, sys};

/// Whether a refused change was reported already (once is enough).
static REPORTED: AtomicBool = AtomicBool::new(false);

/// The priority the slices of the compound of the client in session slot
/// `index` run at: the client's, but never more urgent than the server's
/// own.
pub fn of(index: usize) -> u8 {
    let client = crate::config::caps::FS_CLIENT_PRIORITIES
        .get(index)
        .copied()
        .unwrap_or(MAX_PRIORITY);
    client.max(crate::config::PRIORITY)
}

/// Runs the server at `p`; a refusal (which only a kernel bug could give,
/// as `p` is never more urgent than the manifest's) is reported once and
/// the server goes on at the priority it has.
pub fn set(p: u8) {
    if let Err(e) = sys::set_priority(p) {
        if !REPORTED.swap(true, Ordering::Relaxed) {
            println!("cannot run at priority {p}: {e}; compound slices keep the server's own priority (reported once)");
        }
    }
}
