//! Why a socket operation failed: one code per reason, numbered as Linux
//! numbers its errno values so that they read familiarly. A compound op
//! that fails reports `0x8000 | code` as its status (cosy-abi's service
//! range); a per-call request gets the code in its reply.

cosy_abi::service_errors! {
    /// A failed socket operation's reason.
    NetError {
        /// The handle names no socket of this client.
        BadSocket (BAD_SOCKET) = 9, "bad socket handle (not open for this client)";
        /// Nothing to do yet: no data, no room, no connection to accept.
        WouldBlock (WOULD_BLOCK) = 11, "the operation would block";
        /// The server is out of memory for this request.
        NoMemory (NO_MEMORY) = 12, "the network server is out of memory";
        /// A buffer is too small for what the operation writes, or a length
        /// runs past its buffer.
        BadBuffer (BAD_BUFFER) = 14, "a buffer is too small or a length runs past it";
        /// An argument is out of range or makes no sense here.
        Invalid (INVALID) = 22, "invalid argument";
        /// The client holds every stack socket its quota allows: its open
        /// sockets, every socket of its listeners' pools (a backlog of *n*
        /// holds *n*), its connections still closing and its pings in
        /// flight. Other clients are not affected (see
        /// `conflux_netcore::limits`).
        QuotaExceeded (QUOTA_EXCEEDED) = 122, "this client holds every socket its quota allows (listener backlogs and connections still closing count): close sockets or listen with a smaller backlog";
        /// The client has as many echo requests in flight as one client
        /// may (`conflux_netcore::ping::MAX_CLIENT_PINGS`); another
        /// client's are not affected.
        TooManyPings (TOO_MANY_PINGS) = 24, "this client has as many echo requests in flight as one client may: collect an outcome (ask again with its sequence number) or let one time out, then send the next";
        /// `wait` was given more entries than it looks at
        /// ([`crate::ops::MAX_WAIT_ENTRIES`]); nothing was waited on.
        TooManyEntries (TOO_MANY_ENTRIES) = 75, "wait was given more sockets than it looks at in one call (MAX_WAIT_ENTRIES, 64): wait on fewer, e.g. stop accepting until some close";
        /// Sending on a stream whose sending side was shut down.
        BrokenPipe (BROKEN_PIPE) = 32, "broken pipe: the sending side is shut down";
        /// The server has no operation by that number.
        NoSuchOp (NO_SUCH_OP) = 38, "no such operation";
        /// A datagram without a destination (the socket is not connected).
        DestinationRequired (DESTINATION_REQUIRED) = 89, "destination address required";
        /// A datagram larger than the socket's buffer can ever hold.
        MessageTooLong (MESSAGE_TOO_LONG) = 90, "message too long";
        /// The socket kind is not one the server knows.
        ProtocolNotSupported (PROTOCOL_NOT_SUPPORTED) = 93, "protocol not supported";
        /// The operation does not apply to this kind of socket (e.g. `listen`
        /// on a datagram socket, `accept` on one that is not listening).
        NotSupported (NOT_SUPPORTED) = 95, "operation not supported on this socket";
        /// Another socket already uses the local address.
        AddressInUse (ADDRESS_IN_USE) = 98, "address already in use";
        /// The address is not one of this interface's.
        AddressNotAvailable (ADDRESS_NOT_AVAILABLE) = 99, "address not available";
        /// No route reaches the destination.
        NetworkUnreachable (NETWORK_UNREACHABLE) = 101, "network unreachable";
        /// The peer reset the connection.
        ConnectionReset (CONNECTION_RESET) = 104, "connection reset by peer";
        /// The server has no room for another socket (all clients together,
        /// less what is kept for the other clients), or for another echo
        /// request in flight.
        NoBuffers (NO_BUFFERS) = 105, "no room left in the server for another socket or echo request";
        /// The socket is already connected (or listening).
        AlreadyConnected (ALREADY_CONNECTED) = 106, "the socket is already connected";
        /// The operation needs a connection the socket does not have.
        NotConnected (NOT_CONNECTED) = 107, "the socket is not connected";
        /// The peer did not answer in time (a connection attempt, an echo
        /// request).
        TimedOut (TIMED_OUT) = 110, "timed out: the peer did not answer in time";
        /// The peer refused the connection (nothing listens there).
        Refused (REFUSED) = 111, "connection refused";
        /// A connection attempt is already under way.
        Already (ALREADY) = 114, "a connection attempt is already under way";
        /// The connection attempt has started and is not finished yet.
        InProgress (IN_PROGRESS) = 115, "connection in progress";
        /// The request carries more words than any request of its kind takes
        /// (refused whole, never cut).
        TooManyWords (TOO_MANY_WORDS) = 7, "the request carries more words than it takes";
        /// The session has every region (or prepared compound) it may have.
        SessionFull (SESSION_FULL) = 28, "the session has no room for another region or prepared compound";
        /// A prepared-compound handle names nothing this session prepared.
        BadPrepared (BAD_PREPARED) = 57, "no prepared compound by that handle in this session";
        /// The request needs a session (CONNECT first) the client does not have.
        NoSession (NO_SESSION) = 67, "no session: connect to the network server first";
        /// The request carries a capability, and this request takes none.
        UnexpectedCap (UNEXPECTED_CAP) = 74, "the request carries a capability it does not take";
        /// The caller's badge is none the manifest gives a client of the
        /// network server, so it has no session slot (sessions are kept one
        /// per client the manifest names, so no client can take another's).
        UnknownClient (UNKNOWN_CLIENT) = 13, "the manifest gives no client of the network server this badge: give the task its capability in the manifest";
        /// A parked request was cancelled: its session was detached or
        /// reconnected (a restarted client), or its socket was closed.
        Cancelled (CANCELLED) = 125, "the request was cancelled (session ended or reconnected)";
        /// CONNECT or ATTACH came without the region capability it needs.
        MissingCap (MISSING_CAP) = 126, "the request needs a region capability and carries none";
        /// CONNECT or ATTACH shared its region instead of lending it; the
        /// server maps only lent regions, which cannot be revoked under it.
        NotLent (NOT_LENT) = 1, "the region was shared, not lent: send it with Message::lending";
        /// CLIENT_GONE from a caller without the supervisor's badge: only
        /// the supervisor says that a client's task has ended.
        NotSupervisor (NOT_SUPERVISOR) = 130, "refused: only the supervisor (init) may say that a client is gone";
        /// RING named a region that is not an attached data region
        /// formatted as rings (or is the control region).
        BadRing (BAD_RING) = 131, "the region is not an attached data region formatted as rings (cosy_abi::ring::Parts::format): attach it, format it, then send RING to the network server";
        /// RING_ENTER from a session without rings, or whose rings the
        /// server dropped because their indices were impossible.
        NoRing (NO_RING) = 132, "this session has no rings on the network server: send RING first; if it had, the server found the rings' indices impossible and dropped them (its waiting ring entries with them)";
    }
}

impl NetError {
    /// The error a compound op or a per-call reply carries as this one, if
    /// `e` is a socket error (`None` for the executor's own codes).
    pub fn from_call(e: cosy_abi::CallError) -> Option<NetError> {
        match e {
            cosy_abi::CallError::Service(c) => NetError::from_code(c),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_stay_in_the_service_range() {
        for e in NetError::ALL {
            assert_eq!(NetError::from_code(e.code()), Some(*e));
            assert!((1..=0x7FFF).contains(&e.code()), "{e:?}");
            assert!(!e.message().is_empty());
            let call: cosy_abi::CallError = (*e).into();
            assert_eq!(NetError::from_call(call), Some(*e));
        }
        assert_eq!(NetError::from_code(0), None);
        assert_eq!(NetError::from_code(3), None);
    }

    #[test]
    fn codes_are_distinct() {
        for (i, a) in NetError::ALL.iter().enumerate() {
            for b in &NetError::ALL[i + 1..] {
                assert_ne!(a.code(), b.code(), "{a:?} and {b:?}");
            }
        }
    }
}
