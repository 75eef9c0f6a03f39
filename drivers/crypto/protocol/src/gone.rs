//! When the supervisor's "client `i` is gone" bit may end a client
//! session.
//!
//! The driver collects its notification's bits once a round and numbers
//! the collections. init sets client `i`'s gone bit before the kernel
//! restarts the client, so the client's next instance begins its session
//! only after the bit is set. A gone bit therefore speaks of a session
//! attached *before the previous collection*; a session attached since
//! may be the next instance's (the bit then speaks of the one before,
//! which the new session number already ended), and ending it would leave
//! a live client unserved for ever. Such a session is left alone: if it
//! was in fact the departed one, the client's next session ends it.

/// Whether a gone bit found in collection number `collected` ends a
/// session attached after `since` collections.
pub fn gone_ends_session(since: u64, collected: u64) -> bool {
    since.saturating_add(1) < collected
}

#[cfg(test)]
mod tests {
    use super::gone_ends_session;

    #[test]
    fn a_session_attached_before_the_previous_collection_ends() {
        // Attached after collection 3; the bit is in collection 5.
        assert!(gone_ends_session(3, 5));
        assert!(gone_ends_session(0, 2));
    }

    #[test]
    fn a_session_attached_since_the_previous_collection_stays() {
        // Attached after collection 4, bit in collection 5: it may be the
        // restarted client's new session.
        assert!(!gone_ends_session(4, 5));
        assert!(!gone_ends_session(5, 5));
        assert!(!gone_ends_session(u64::MAX, u64::MAX));
    }
}
