//! Which requests leave the stack as they found it, so the server need
//! not poll it after them.
//!
//! The server polls the stack after every message that could have given
//! it something to do: a frame, a timer, or a request that can change a
//! socket (queue data, open, close, read, which opens the window), arm a
//! deadline (a parked request) or end a session. A poll costs about as
//! much as the rest of a cheap request (the clock read and the timer
//! re-armed are two syscalls), so the requests that cannot change
//! anything skip it. The rule: an op is quiet only if its implementation
//! reaches the stack through a shared borrow or not at all, so the
//! compiler backs the claim; a request the server refuses before running
//! it (a malformed message, no session) is quiet too. Skipping the poll
//! loses nothing: the previous poll armed the timer for the next
//! deadline and asked the driver to signal its next frame, and a quiet
//! request changes neither.

use conflux_socket_protocol::ops;

/// True when op `op` cannot change the stack's sockets, timers or
/// deadlines (see the module docs).
pub fn quiet(op: u16) -> bool {
    // `nop` does nothing; `net_info` reads counts through `Stack::info`,
    // which borrows the stack shared.
    matches!(op, ops::NOP | ops::NET_INFO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_nop_and_net_info_are_quiet() {
        let quiet_ops: alloc::vec::Vec<u16> =
            ops::ALL.iter().copied().filter(|&op| quiet(op)).collect();
        assert_eq!(quiet_ops, [ops::NOP, ops::NET_INFO]);
        assert!(!quiet(ops::SEND) && !quiet(ops::RECV) && !quiet(ops::WAIT));
    }
}
