//! Client sessions: how a restarted client re-attaches to a driver that
//! kept running, and a restarted driver to a client that kept running.
//!
//! Two words sit between the request table and the data area:
//!
//! - `session` (client → driver): the number of the session the region's
//!   rings belong to. 0 means "no session": the region was never formatted,
//!   or a client is formatting it right now.
//! - `attached` (driver → client): the session the driver serves.
//!
//! A client starting (or restarting) calls `Client::format`, which:
//! stores `session = 0` (the driver must keep off the rings), formats the
//! rings, clears the request table, then stores a fresh number ([`next`])
//! and rings the doorbell; it may submit once `attached` shows that number.
//!
//! The driver (`Server`) checks the word before it acts on each request it
//! pops. When the number changed, it stops taking requests from that
//! session and forgets the ones it had queued; requests of that session
//! the device is still working on complete, but their answers are dropped
//! (they would land in the new session's rings). Once none is left, it
//! attaches to the new rings, and `Server::start` publishes `attached`.
//!
//! A driver restart keeps the session: the new instance finds `attached`
//! equal to `session`, so every table entry still `InFlight` was taken by
//! its previous instance for this very client and is answered `Restarted`.
//! A fresh session's table is the client's, so nothing is answered there.

/// The number of a new session (shared with the network protocol).
pub use conflux_queue::link::next_session as next;

#[cfg(test)]
mod tests {
    use super::next;

    #[test]
    fn a_new_session_is_never_zero_nor_the_previous_one() {
        assert_eq!(next(0, 1234), 1234);
        assert_eq!(next(5, 1234), 1234);
        assert_eq!(next(1234, 1234), 1235);
        assert_eq!(next(0, 0), 1);
        assert_eq!(next(7, 0), 8);
        assert_eq!(next(u64::MAX, u64::MAX), 1);
    }
}
