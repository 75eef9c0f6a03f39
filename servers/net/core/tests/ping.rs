//! ICMP echo between two stacks on the in-memory cable, and the
//! `net_info` record: round trips in the time the test passes in, the
//! outcome of a request asked for again, timeouts, bad targets, limits.

mod common;

use common::{addr, call, call_in, Net, A, IP_A, IP_B};
use conflux_socket_protocol::ops::*;
use conflux_socket_protocol::{NetError, NetInfo};
use smoltcp::wire::Ipv4Address;
use NetError::*;

const ME: u64 = 1;

/// `ping(ip, seq, timeout_ms)` from stack A for client `ME`.
fn ping(net: &mut Net, ip: [u8; 4], seq: u64, timeout_ms: u64) -> Result<u64, NetError> {
    call(&mut net.a, ME, PING, &[addr(ip, 0), seq, timeout_ms])
}

/// Sends a ping (or asks for the one in flight) and pumps until it is
/// answered or times out; its outcome.
fn outcome(net: &mut Net, ip: [u8; 4], seq: u64, timeout_ms: u64) -> Result<u64, NetError> {
    loop {
        match ping(net, ip, seq, timeout_ms) {
            Err(InProgress | Already) => net.pump(1),
            other => return other,
        }
    }
}

#[test]
fn a_reply_gives_the_round_trip_in_the_time_passed_in() {
    let mut net = Net::new();
    assert_eq!(ping(&mut net, IP_B, 1, 1000), Err(InProgress));
    assert_eq!(ping(&mut net, IP_B, 1, 1000), Err(Already), "asked again");
    // The first request waits for ARP; it is answered all the same.
    let first = outcome(&mut net, IP_B, 1, 1000).unwrap();
    assert!(first > 0 && first <= 5_000, "first round trip {first} µs");
    // With B's address known: sent in one poll, B answers in its poll of
    // the same round, the reply is read in A's next poll.
    assert_eq!(ping(&mut net, IP_B, 2, 1000), Err(InProgress));
    net.pump(3);
    assert_eq!(ping(&mut net, IP_B, 2, 1000), Ok(1_000));
    assert_eq!(ping(&mut net, IP_B, 3, 1000), Err(InProgress));
    net.pump_every(7, 3);
    assert_eq!(ping(&mut net, IP_B, 3, 1000), Ok(7_000));
    assert_eq!(
        net.a.stack().sockets_in_use(),
        0,
        "collected pings free their sockets"
    );
}

#[test]
fn no_answer_times_out_and_then_the_same_call_sends_again() {
    let mut net = Net::new();
    assert!(outcome(&mut net, IP_B, 9, 1000).is_ok(), "B's MAC known");
    let nobody = [10, 0, 0, 9];
    assert_eq!(ping(&mut net, nobody, 1, 50), Err(InProgress));
    net.pump(49);
    assert_eq!(ping(&mut net, nobody, 1, 50), Err(Already));
    net.pump(1);
    assert_eq!(ping(&mut net, nobody, 1, 50), Err(TimedOut));
    assert_eq!(net.a.stack().sockets_in_use(), 0);
    assert_eq!(
        ping(&mut net, nobody, 1, 50),
        Err(InProgress),
        "a new request"
    );
    // A request stuck waiting for ARP holds up no other.
    assert_eq!(ping(&mut net, IP_B, 1, 1000), Err(InProgress));
    net.pump(3);
    assert_eq!(ping(&mut net, IP_B, 1, 1000), Ok(1_000));
}

#[test]
fn a_lost_reply_times_out() {
    let mut net = Net::new();
    assert!(outcome(&mut net, IP_B, 1, 100).is_ok(), "ARP done");
    assert_eq!(ping(&mut net, IP_B, 2, 20), Err(InProgress));
    net.a.device_mut().set_cut(true);
    net.pump(25);
    net.a.device_mut().set_cut(false);
    net.pump(5);
    assert_eq!(ping(&mut net, IP_B, 2, 20), Err(TimedOut));
}

#[test]
fn bad_targets_and_operands_have_their_codes() {
    let mut net = Net::new();
    let a = &mut net.a;
    let bad = |a: &mut _, word, seq, ms| call(a, ME, PING, &[word, seq, ms]);
    assert_eq!(bad(a, addr(IP_B, 7), 1, 100), Err(Invalid), "a port");
    assert_eq!(bad(a, 1 << 50, 1, 100), Err(Invalid), "not an address word");
    for ip in [[0, 0, 0, 0], [255; 4], [10, 0, 0, 255], [224, 0, 0, 1]] {
        assert_eq!(bad(a, addr(ip, 0), 1, 100), Err(Invalid), "{ip:?}");
    }
    assert_eq!(bad(a, addr(IP_B, 0), 1 << 16, 100), Err(Invalid), "seq");
    assert_eq!(bad(a, addr(IP_B, 0), 1, 0), Err(Invalid), "no time");
    let long = MAX_PING_TIMEOUT_MS + 1;
    assert_eq!(bad(a, addr(IP_B, 0), 1, long), Err(Invalid), "too long");
    assert_eq!(
        bad(a, addr([192, 0, 2, 1], 0), 1, 100),
        Err(NetworkUnreachable),
        "off the subnet without a gateway"
    );
    let mut routed = Net::with(|c| c.gateway = Some(Ipv4Address::new(10, 0, 0, 2)));
    let far = call(&mut routed.a, ME, PING, &[addr([192, 0, 2, 1], 0), 1, 100]);
    assert_eq!(far, Err(InProgress), "through the gateway");
}

#[test]
fn pings_in_flight_are_limited_and_end_with_the_session() {
    let mut net = Net::new();
    for seq in 0..4 {
        assert_eq!(ping(&mut net, IP_B, seq, 1000), Err(InProgress));
    }
    assert_eq!(ping(&mut net, IP_B, 4, 1000), Err(TooManyPings));
    let other = call(&mut net.a, 2, PING, &[addr(IP_B, 0), 4, 1000]);
    assert_eq!(other, Err(InProgress), "another client's limit is its own");
    assert_eq!(net.a.stack().sockets_in_use(), 5);
    net.a.stack().end_session(ME);
    assert_eq!(net.a.stack().sockets_in_use(), 1);
    assert_eq!(ping(&mut net, IP_B, 0, 1000), Err(InProgress), "afresh");
}

#[test]
fn uncollected_outcomes_are_dropped_after_a_while() {
    let mut net = Net::new();
    assert_eq!(ping(&mut net, IP_B, 1, 10), Err(InProgress));
    net.pump_every(1000, 9);
    assert_eq!(net.a.stack().sockets_in_use(), 1, "kept a while");
    net.pump_every(1000, 2);
    assert_eq!(net.a.stack().sockets_in_use(), 0, "dropped");
}

#[test]
fn net_info_reports_addresses_counts_and_traffic() {
    let mut net = Net::with(|c| c.clock_us = 10_000);
    let a = &mut net.a;
    let l = call(a, ME, SOCKET, &[1]).unwrap();
    call(a, ME, BIND, &[l, addr(IP_A, 80)]).unwrap();
    call(a, ME, LISTEN, &[l, 2]).unwrap();
    call(a, 2, SOCKET, &[2]).unwrap();
    let c = call(a, 2, SOCKET, &[1]).unwrap();
    assert_eq!(call(a, 2, CONNECT, &[c, addr(IP_B, 9)]), Err(InProgress));
    call(a, 3, SOCKET, &[1]).unwrap();
    assert_eq!(ping(&mut net, IP_B, 1, 1000), Err(InProgress));
    net.pump(1);
    let mut buf = [0u8; NetInfo::SIZE];
    let n = call_in(&mut net.a, 3, NET_INFO, &[A::B(0, NetInfo::SIZE)], &mut buf);
    assert_eq!(n, Ok(NetInfo::SIZE as u64));
    let info = NetInfo::decode(&buf).unwrap();
    assert_eq!(info.mac, [2, 0, 0, 0, 0, 1]);
    assert_eq!((info.ip, info.prefix, info.gateway), (IP_A, 24, None));
    assert_eq!(info.clock_us, 10_000);
    let k = info.counts;
    assert_eq!((k.clients, k.listeners, k.datagrams), (3, 1, 1));
    assert_eq!((k.connecting, k.connected, k.idle), (1, 0, 1));
    assert_eq!((k.pings, k.stack_limit), (1, 128));
    assert_eq!(
        k.stack_sockets,
        2 + 1 + 2 + 1,
        "pool, datagram, streams, ping"
    );
    let t = info.traffic;
    assert!(t.tx_frames >= 1, "an ARP request for B");
    assert!(t.tx_bytes >= 42 * t.tx_frames, "{t:?}");
    net.pump(5);
    let mut buf = [0u8; NetInfo::SIZE];
    call_in(&mut net.a, 3, NET_INFO, &[A::B(0, NetInfo::SIZE)], &mut buf).unwrap();
    let ta = NetInfo::decode(&buf).unwrap().traffic;
    let tb = net.b.stack().info().traffic;
    assert_eq!((ta.tx_frames, ta.tx_bytes), (tb.rx_frames, tb.rx_bytes));
    assert_eq!((ta.rx_frames, ta.rx_bytes), (tb.tx_frames, tb.tx_bytes));
    let short = [A::B(0, NetInfo::SIZE - 1)];
    assert_eq!(
        call_in(&mut net.a, 3, NET_INFO, &short, &mut buf),
        Err(BadBuffer)
    );
}
