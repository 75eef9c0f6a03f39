//! Socket operations parked until they can finish: the policy of the
//! network server (`servers/net/server`), kept here so the host tests it.
//!
//! The core never blocks: an op that cannot finish fails with
//! `WouldBlock` (`InProgress`/`Already` for `connect`). On a blocking
//! socket the server then keeps the request — its op, its operand words
//! and the caller's reply capability, in a reply slot of its own — and
//! runs it again after every poll that changed some socket's state, until
//! it finishes or fails for another reason. `wait` parks whatever the
//! sockets' flags, until one of its sockets is ready or its timeout (a
//! deadline) passes; it is then answered 0. `ping` parks whatever the
//! flags too, until its reply comes or its timeout passes (the stack then
//! answers `TimedOut`; the deadline here wakes the server for it). A session
//! that is detached or reconnected has its parked requests answered
//! `Cancelled`. At most [`MAX_PARKED`] requests wait at once; past that a
//! blocking socket's op gets `WouldBlock` like a non-blocking one's.
//!
//! A ring entry parks the same way ([`Waiter::Ring`], `docs/rings.md`),
//! but holds no reply slot: it is answered by a completion on its
//! client's ring, tagged as the entry was. Ring entries are not counted
//! against [`MAX_PARKED`]: each client's are bounded by its ring's depth
//! (an entry is taken only while its completion ring has room for every
//! parked answer and one more), which [`Parking::ring_parked`] counts.

use alloc::vec::Vec;

use conflux_socket_protocol::ops::{self, WAIT_FOREVER};
use conflux_socket_protocol::NetError;
use smoltcp::time::{Duration, Instant};

/// Requests parked at once, all clients together.
pub const MAX_PARKED: usize = 16;
/// The most operands an op takes.
pub const MAX_OPERANDS: usize = 6;

/// Who a parked request answers when it finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiter {
    /// A caller by IPC: the reply slot its reply capability is in.
    Reply(usize),
    /// An entry of the client's ring: its tag, echoed in the completion.
    Ring(u32),
}

/// One parked request.
#[derive(Clone, Copy, Debug)]
pub struct Parked {
    pub badge: u64,
    /// Whom to answer.
    pub waiter: Waiter,
    pub op: u16,
    pub operands: [u64; MAX_OPERANDS],
    /// When a `wait` gives up (answered 0).
    pub deadline: Option<Instant>,
}

/// Whether op `op`, failed with `e`, waits for the stack rather than
/// failing: `wait` with a timeout, `ping` in flight, and the ops that wait
/// for data, room or a connection on a blocking socket.
pub fn parks(op: u16, e: NetError, blocking: bool) -> bool {
    match op {
        ops::WAIT => e == NetError::WouldBlock,
        ops::PING => matches!(e, NetError::InProgress | NetError::Already),
        ops::ACCEPT | ops::SEND | ops::RECV | ops::SENDTO | ops::RECVFROM => {
            blocking && e == NetError::WouldBlock
        }
        ops::CONNECT => blocking && matches!(e, NetError::InProgress | NetError::Already),
        _ => false,
    }
}

/// When op `op` with `operands`, parked at `now`, gives up: a `wait` or
/// a `ping` after its timeout (milliseconds, operand 2 of both); nothing
/// else does.
pub fn deadline(op: u16, operands: &[u64], now: Instant) -> Option<Instant> {
    let ms = *operands.get(2)?;
    if !matches!(op, ops::WAIT | ops::PING) || ms == WAIT_FOREVER {
        return None;
    }
    // Far-future timeouts are capped at a day (smoltcp's clock is i64 µs).
    Some(now + Duration::from_millis(ms.min(86_400_000)))
}

/// Every parked request.
#[derive(Debug, Default)]
pub struct Parking {
    list: Vec<Parked>,
}

impl Parking {
    /// Whether another request by IPC may park (ring entries do not
    /// count: see the module docs).
    pub fn has_room(&self) -> bool {
        let replies = self
            .list
            .iter()
            .filter(|p| matches!(p.waiter, Waiter::Reply(_)))
            .count();
        replies < MAX_PARKED
    }

    /// How many of `badge`'s ring entries are parked: still in flight for
    /// it, each owed a place in its completion ring.
    pub fn ring_parked(&self, badge: u64) -> u32 {
        let n = self
            .list
            .iter()
            .filter(|p| p.badge == badge && matches!(p.waiter, Waiter::Ring(_)))
            .count();
        n as u32
    }

    /// Takes out `badge`'s parked ring entries (its rings were dropped).
    pub fn take_ring(&mut self, badge: u64) -> Vec<Parked> {
        let (theirs, rest) = core::mem::take(&mut self.list)
            .into_iter()
            .partition(|p| p.badge == badge && matches!(p.waiter, Waiter::Ring(_)));
        self.list = rest;
        theirs
    }

    pub fn push(&mut self, p: Parked) {
        self.list.push(p);
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Takes every parked request out (to run them again).
    pub fn take_all(&mut self) -> Vec<Parked> {
        core::mem::take(&mut self.list)
    }

    /// Takes out the requests of `badge`.
    pub fn take_client(&mut self, badge: u64) -> Vec<Parked> {
        let (theirs, rest) = core::mem::take(&mut self.list)
            .into_iter()
            .partition(|p| p.badge == badge);
        self.list = rest;
        theirs
    }

    /// The earliest deadline, if any request has one.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.list.iter().filter_map(|p| p.deadline).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_waiting_ops_park() {
        assert!(parks(ops::RECV, NetError::WouldBlock, true));
        assert!(!parks(ops::RECV, NetError::WouldBlock, false));
        assert!(!parks(ops::RECV, NetError::ConnectionReset, true));
        assert!(parks(ops::CONNECT, NetError::InProgress, true));
        assert!(parks(ops::WAIT, NetError::WouldBlock, false));
        assert!(!parks(ops::BIND, NetError::WouldBlock, true));
        assert!(parks(ops::PING, NetError::InProgress, false));
        assert!(parks(ops::PING, NetError::Already, false));
        assert!(!parks(ops::PING, NetError::TimedOut, true));
    }

    #[test]
    fn only_waits_have_deadlines() {
        let now = Instant::from_millis(1000);
        let at = |ms| Some(Instant::from_millis(ms));
        assert_eq!(deadline(ops::WAIT, &[0, 1, 25], now), at(1025));
        assert_eq!(deadline(ops::WAIT, &[0, 1, WAIT_FOREVER], now), None);
        assert_eq!(
            deadline(ops::WAIT, &[0, 1, u64::MAX - 1], now),
            at(86_401_000)
        );
        assert_eq!(deadline(ops::RECV, &[0, 1, 25], now), None);
        assert_eq!(deadline(ops::PING, &[0, 1, 1000], now), at(2000));
    }

    #[test]
    fn a_client_s_requests_are_taken_out_together() {
        let mut p = Parking::default();
        for (badge, reply) in [(1, 10), (2, 11), (1, 12)] {
            p.push(Parked {
                badge,
                waiter: Waiter::Reply(reply),
                op: ops::RECV,
                operands: [0; MAX_OPERANDS],
                deadline: None,
            });
        }
        let theirs: Vec<Waiter> = p.take_client(1).iter().map(|q| q.waiter).collect();
        assert_eq!(theirs, [Waiter::Reply(10), Waiter::Reply(12)]);
        assert_eq!(p.take_all().len(), 1);
        assert!(p.is_empty() && p.has_room());
    }

    fn parked(badge: u64, waiter: Waiter) -> Parked {
        Parked {
            badge,
            waiter,
            op: ops::RECV,
            operands: [0; MAX_OPERANDS],
            deadline: None,
        }
    }

    #[test]
    fn ring_entries_do_not_take_the_ipc_path_s_places() {
        let mut p = Parking::default();
        // A full ring's depth of one client's entries, and another's.
        for tag in 0..32 {
            p.push(parked(1, Waiter::Ring(tag)));
        }
        p.push(parked(2, Waiter::Ring(7)));
        assert!(p.has_room(), "ring entries left the IPC path no room");
        assert_eq!(
            (p.ring_parked(1), p.ring_parked(2), p.ring_parked(3)),
            (32, 1, 0)
        );
        for slot in 0..MAX_PARKED {
            assert!(p.has_room());
            p.push(parked(1, Waiter::Reply(slot)));
        }
        assert!(!p.has_room(), "MAX_PARKED calls by IPC fill the place");
        assert_eq!(p.ring_parked(1), 32, "IPC calls are not ring entries");
        // Dropping client 1's rings takes its ring entries only.
        let dropped = p.take_ring(1);
        assert_eq!(dropped.len(), 32);
        assert!(dropped.iter().all(|q| matches!(q.waiter, Waiter::Ring(_))));
        assert_eq!(p.take_client(1).len(), MAX_PARKED);
        assert_eq!(p.ring_parked(2), 1);
    }
}
