//! The network core's fixed limits driven to the limit and one past it
//! (`docs/LIMITS.md` lists them all): echo requests in flight, per client
//! and for the whole server, requests parked at once, and the entries one
//! `wait` looks at. At the limit
//! the request is served; one past gets its own error; another client is
//! not affected; when one finishes, the next is served again.

mod common;

use common::{addr, call, call_in, Net, A, IP_A, IP_B};
use conflux_netcore::parking::{Parked, Parking, Waiter, MAX_OPERANDS, MAX_PARKED};
use conflux_netcore::{MAX_CLIENT_PINGS, MAX_PINGS};
use conflux_socket_protocol::ops::{BIND, MAX_WAIT_ENTRIES, PING, SOCKET, WAIT};
use conflux_socket_protocol::NetError::{self, *};
use conflux_socket_protocol::{Events, PollEntry, SockKind};

/// `ping(IP_B, seq)` from stack A for client `badge`, a long timeout.
fn ping(net: &mut Net, badge: u64, seq: u64) -> Result<u64, NetError> {
    call(&mut net.a, badge, PING, &[addr(IP_B, 0), seq, 10_000])
}

#[test]
fn one_client_past_its_pings_gets_too_many_pings_and_others_still_ping() {
    let mut net = Net::new();
    for seq in 0..MAX_CLIENT_PINGS as u64 {
        assert_eq!(ping(&mut net, 1, seq), Err(InProgress), "ping {seq}");
    }
    assert_eq!(
        ping(&mut net, 1, MAX_CLIENT_PINGS as u64),
        Err(TooManyPings),
        "one past the client's own limit"
    );
    assert_eq!(ping(&mut net, 2, 0), Err(InProgress), "another client");
    // The answers come back; collecting one makes room for the next.
    net.pump(20);
    assert_eq!(ping(&mut net, 1, 0).map(|_| ()), Ok(()), "collected");
    assert_eq!(ping(&mut net, 1, MAX_CLIENT_PINGS as u64), Err(InProgress));
}

#[test]
fn the_server_past_its_pings_answers_no_buffers_until_one_ends() {
    let mut net = Net::new();
    let clients = (MAX_PINGS / MAX_CLIENT_PINGS) as u64;
    for badge in 1..=clients {
        for seq in 0..MAX_CLIENT_PINGS as u64 {
            assert_eq!(ping(&mut net, badge, seq), Err(InProgress));
        }
    }
    let late = clients + 1;
    assert_eq!(
        ping(&mut net, late, 0),
        Err(NoBuffers),
        "all {MAX_PINGS} are in flight: the server's limit, not the client's"
    );
    // A client leaves: its pings go, and the late one is served.
    net.a.stack().end_session(1);
    assert_eq!(ping(&mut net, late, 0), Err(InProgress));
    // The other clients' pings were not disturbed: they are answered.
    net.pump(20);
    for badge in 2..=clients {
        assert_eq!(ping(&mut net, badge, 0).map(|_| ()), Ok(()), "{badge}");
    }
}

fn parked(badge: u64) -> Parked {
    Parked {
        badge,
        waiter: Waiter::Reply(0),
        op: PING,
        operands: [0; MAX_OPERANDS],
        deadline: None,
    }
}

#[test]
fn parking_holds_its_limit_and_a_departing_client_makes_room() {
    let mut parking = Parking::default();
    for i in 0..MAX_PARKED as u64 {
        assert!(parking.has_room(), "room for request {i}");
        parking.push(parked(i % 2));
    }
    // Past the limit the server answers the op as a non-blocking one
    // (`WouldBlock`) instead of parking it (servers/net/server `attempt`).
    assert!(!parking.has_room(), "full at {MAX_PARKED}");
    assert_eq!(parking.take_client(1).len(), MAX_PARKED / 2);
    assert!(parking.has_room(), "the other client's requests stay");
    assert_eq!(parking.take_all().len(), MAX_PARKED / 2);
}

/// `wait` over `count` entries, all naming socket `h`, for `badge`; the
/// number ready.
fn wait_on(net: &mut Net, badge: u64, h: u64, count: usize) -> Result<u64, NetError> {
    let mut list = vec![0u8; count * PollEntry::SIZE];
    for bytes in list.chunks_exact_mut(PollEntry::SIZE) {
        let e = PollEntry {
            handle: h as u32,
            events: Events::WRITABLE,
            revents: Events::NONE,
        };
        e.encode(bytes);
    }
    let ops = [A::B(0, list.len()), A::V(count as u64), A::V(0)];
    call_in(&mut net.a, badge, WAIT, &ops, &mut list)
}

#[test]
fn wait_takes_max_wait_entries_and_one_more_is_too_many_entries() {
    let mut net = Net::new();
    let udp = |net: &mut Net, badge| {
        let s = call(&mut net.a, badge, SOCKET, &[SockKind::Datagram as u64]).unwrap();
        call(
            &mut net.a,
            badge,
            BIND,
            &[s, addr(IP_A, 4000 + badge as u16)],
        )
        .unwrap();
        s
    };
    let (mine, theirs) = (udp(&mut net, 1), udp(&mut net, 2));
    let at = MAX_WAIT_ENTRIES as usize;
    assert_eq!(wait_on(&mut net, 1, mine, at), Ok(at as u64), "all ready");
    assert_eq!(
        wait_on(&mut net, 1, mine, at + 1),
        Err(TooManyEntries),
        "one past the limit, refused whole"
    );
    assert_eq!(wait_on(&mut net, 2, theirs, 1), Ok(1), "another client");
    assert_eq!(wait_on(&mut net, 1, mine, at), Ok(at as u64), "and again");
}
