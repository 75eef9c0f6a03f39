//! The socket operations: numbers, operands and flags.
//!
//! An operation's number is its index in [`SPECS`]; compounds call it by
//! that number and the per-call path sends it as label
//! [`VAN_BASE`] `+ number`. Sockets are named by *handles*, small numbers
//! that belong to the calling client alone: the server keys its tables by
//! the caller's badge, so a handle another client holds means nothing
//! here. Addresses travel as one operand word ([`crate::SockAddr::to_word`]).
//!
//! No operation blocks. One that cannot finish yet fails with
//! [`crate::NetError::WouldBlock`]; the server either returns that (the
//! socket is non-blocking) or parks the request and calls it again when
//! the socket's readiness changes.

use cosy_abi::{ArgKind, OpTable};

const V: ArgKind = ArgKind::Value;
const B: ArgKind = ArgKind::Buf;

/// Per-call operations: IPC label `VAN_BASE + op`.
pub const VAN_BASE: u32 = 0x100;

/// The service's error codes by name (`NOT_FOUND`, ...), where `cosy!`
/// looks for them: `is_err(fd, NOT_FOUND)` in a compound over [`TABLE`].
pub use crate::error::codes as errors;

cosy_abi::operations! {
    /// `nop() -> 0`: does nothing (measures the cost of a call).
    NOP = 0, "nop", [];
    /// `socket(kind) -> handle`: a new socket of a [`crate::SockKind`].
    SOCKET = 1, "socket", [V];
    /// `bind(h, addr) -> 0`: the local address; its IP must be 0.0.0.0
    /// or the interface's own, its port 0 for "any free port".
    BIND = 2, "bind", [V, V];
    /// `listen(h, backlog) -> 0`: a bound stream socket accepts up to
    /// `backlog` (1..=[`MAX_BACKLOG`]) connections before `accept`.
    LISTEN = 3, "listen", [V, V];
    /// `accept(h) -> handle`: a connected stream socket from the
    /// listener's queue.
    ACCEPT = 4, "accept", [V];
    /// `connect(h, addr) -> 0`: starts a stream connection and fails with
    /// `InProgress`; while it is under way, `Already`; once it is
    /// established, a `connect` to the same address returns 0 (so a parked
    /// request can be re-run), and a failed attempt reports its reason
    /// (`Refused`, `TimedOut`) once.
    CONNECT = 5, "connect", [V, V];
    /// `send(h, buf, len) -> bytes queued`, at most `len` (at most the
    /// buffer's length).
    SEND = 6, "send", [V, B, V];
    /// `recv(h, buf, len) -> bytes read`; 0 once the peer has closed.
    RECV = 7, "recv", [V, B, V];
    /// `shutdown(h, how) -> 0`: [`SHUT_RD`], [`SHUT_WR`] or [`SHUT_RDWR`].
    SHUTDOWN = 8, "shutdown", [V, V];
    /// `close(h) -> 0`: the handle is gone; a stream still sends what it
    /// queued, then closes (resets the connection if received data was
    /// left unread, as Linux does).
    CLOSE = 9, "close", [V];
    /// `sendto(h, buf, len, addr) -> bytes sent`: one datagram.
    SENDTO = 10, "sendto", [V, B, V, V];
    /// `recvfrom(h, buf, len, from) -> bytes`: one datagram (cut to `len`),
    /// its sender written as a [`crate::SockAddr`] record into `from`.
    RECVFROM = 11, "recvfrom", [V, B, V, B];
    /// `set_nonblocking(h, on) -> 0`: whether the server returns
    /// `WouldBlock` to the client instead of parking its requests.
    SET_NONBLOCKING = 12, "set_nonblocking", [V, V];
    /// `wait(entries, count, timeout_ms) -> sockets ready`: fills each of
    /// `count` [`crate::PollEntry`] records' `revents`. With none ready, 0
    /// if `timeout_ms` is 0, else `WouldBlock` (the server parks it and
    /// answers 0 when the timeout passes; [`WAIT_FOREVER`] never does).
    WAIT = 13, "wait", [B, V, V];
    /// `getsockname(h) -> addr word`: the local address.
    GETSOCKNAME = 14, "getsockname", [V];
    /// `getpeername(h) -> addr word`: the connected peer's address.
    GETPEERNAME = 15, "getpeername", [V];
    /// `readiness(h) -> events`: the socket's [`crate::Events`] bits now
    /// (one socket, no records: handy inside a compound).
    READINESS = 16, "readiness", [V];
    /// `ping(addr, seq, timeout_ms) -> round trip in µs`: one ICMP echo
    /// request to `addr` (a [`crate::SockAddr`] word, port 0) carrying
    /// [`PING_PAYLOAD`] bytes. The first call sends it and fails with
    /// `InProgress`; the same call again (same `addr` and `seq`, a `u16`)
    /// fails with `Already` until the reply came (then it returns the time
    /// between the two polls that sent and received it, as the server's
    /// clock saw it) or `timeout_ms` (1..=[`MAX_PING_TIMEOUT_MS`]) passed
    /// (`TimedOut`). A per-call request waits in the server for either.
    PING = 17, "ping", [V, V, V];
    /// `net_info(buf) -> bytes written`: the interface's addresses and the
    /// server's socket counts as a [`crate::NetInfo`] record.
    NET_INFO = 18, "net_info", [B];
    /// `set_nodelay(h, on) -> 0`: a stream sends small segments at once
    /// even while earlier data is unacknowledged (Nagle's algorithm off,
    /// Linux's `TCP_NODELAY`). A server that writes whole answers wants
    /// it: otherwise an answer's last short segment waits a round trip
    /// for the acknowledgement of the one before.
    SET_NODELAY = 19, "set_nodelay", [V, V];
    /// `abort(h) -> 0`: the handle is gone, as with `close`, but a
    /// stream is reset at once, dropping whatever it still had to send
    /// (Linux's `close` with `SO_LINGER` 0). For a peer that stopped
    /// reading: after a `close` its socket would go on sending into a
    /// window that never opens until a timeout gave up (up to a minute).
    ABORT = 20, "abort", [V];
}

/// The op table compounds for the network server are verified against.
pub const TABLE: OpTable<'static> = OpTable::new("net", SPECS);

/// The operation's name, for messages.
pub fn name(op: u16) -> Option<&'static str> {
    SPECS.get(usize::from(op)).map(|s| s.name)
}

/// `shutdown`: no more receiving.
pub const SHUT_RD: u64 = 0;
/// `shutdown`: no more sending (the peer sees the end of the stream).
pub const SHUT_WR: u64 = 1;
/// `shutdown`: both.
pub const SHUT_RDWR: u64 = 2;

/// The largest listen backlog: each waiting connection holds a socket.
pub const MAX_BACKLOG: u64 = 64;

/// `wait`'s timeout that never ends.
pub const WAIT_FOREVER: u64 = u64::MAX;

/// The most entries one `wait` looks at.
pub const MAX_WAIT_ENTRIES: u64 = 64;

/// Data bytes of an echo request (Linux `ping`'s default: 64 bytes with
/// the ICMP header).
pub const PING_PAYLOAD: usize = 56;

/// The longest a `ping` waits for its reply.
pub const MAX_PING_TIMEOUT_MS: u64 = 60_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_table_indices() {
        for (i, op) in ALL.iter().enumerate() {
            assert_eq!(usize::from(*op), i, "op {op} is not at its index");
        }
        assert_eq!(TABLE.get(RECV).map(|s| s.name), Some("recv"));
        assert_eq!(name(WAIT), Some("wait"));
        assert_eq!(name(999), None);
    }

    #[test]
    fn every_op_has_at_most_the_operands_a_call_carries() {
        for spec in SPECS {
            assert!(spec.args.len() <= 6, "{} has too many operands", spec.name);
        }
    }
}
