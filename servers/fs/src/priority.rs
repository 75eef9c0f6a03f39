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
//! Priorities come from the manifest: `FS_CLIENTS` are the badges that
//! can call the server, `FS_CLIENT_PRIORITIES` the least urgent priority
//! of the tasks holding each. A badge the manifest does not know (made at
//! run time) runs at the least urgent priority.

use core::sync::atomic::{AtomicBool, Ordering};

use conflux_abi::syscall::MAX_PRIORITY;
use conflux_userlib::{println, sys};

/// Whether a refused change was reported already (once is enough).
static REPORTED: AtomicBool = AtomicBool::new(false);

/// The priority the slices of `badge`'s compound run at: the client's,
/// but never more urgent than the server's own.
pub fn of(badge: u64) -> u8 {
    let clients = crate::config::caps::FS_CLIENTS;
    let priorities = crate::config::caps::FS_CLIENT_PRIORITIES;
    let client = clients
        .iter()
        .position(|b| *b == badge)
        .and_then(|i| priorities.get(i).copied())
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
