//! Readiness: `wait` over several sockets with its timeout rule, the
//! non-blocking flag the server reads, a connection that times out, and
//! the delay the server's timer is set from.

mod common;

use common::{addr, call, call_in, Net, A, IP_A};
use conflux_netcore::Handle;
use conflux_socket_protocol::ops::*;
use conflux_socket_protocol::{Events, NetError, PollEntry};
use smoltcp::time::Instant;

fn entries(list: &[(u32, Events)]) -> Vec<u8> {
    let mut out = vec![0u8; list.len() * PollEntry::SIZE];
    for (i, &(handle, events)) in list.iter().enumerate() {
        let e = PollEntry {
            handle,
            events,
            revents: Events::NONE,
        };
        e.encode(&mut out[i * PollEntry::SIZE..]);
    }
    out
}

fn revents(list: &[u8], i: usize) -> Events {
    PollEntry::decode(&list[i * PollEntry::SIZE..])
        .unwrap()
        .revents
}

#[test]
fn wait_reports_each_socket_and_blocks_only_with_a_timeout() {
    let mut net = Net::new();
    let l = call(&mut net.a, 1, SOCKET, &[1]).unwrap();
    call(&mut net.a, 1, BIND, &[l, addr([0; 4], 7)]).unwrap();
    call(&mut net.a, 1, LISTEN, &[l, 2]).unwrap();
    let u = call(&mut net.a, 1, SOCKET, &[2]).unwrap();
    let want = [
        (l as u32, Events::READABLE),
        (u as u32, Events::READABLE),
        (77, Events::READABLE),
    ];
    let mut list = entries(&want);
    let len = list.len();
    let w = |t| [A::B(0, len), A::V(3), A::V(t)];
    // The bad handle alone is ready (INVALID), as `poll`'s POLLNVAL.
    assert_eq!(call_in(&mut net.a, 1, WAIT, &w(0), &mut list), Ok(1));
    assert_eq!(revents(&list, 2), Events::INVALID);
    let mut two = entries(&want[..2]);
    let w2 = |t| [A::B(0, 16), A::V(2), A::V(t)];
    assert_eq!(call_in(&mut net.a, 1, WAIT, &w2(0), &mut two), Ok(0));
    assert_eq!(
        call_in(&mut net.a, 1, WAIT, &w2(50), &mut two),
        Err(NetError::WouldBlock)
    );
    assert_eq!(
        call_in(&mut net.a, 1, WAIT, &w2(WAIT_FOREVER), &mut two),
        Err(NetError::WouldBlock)
    );
    let c = call(&mut net.b, 2, SOCKET, &[1]).unwrap();
    let _ = call(&mut net.b, 2, CONNECT, &[c, addr(IP_A, 7)]);
    net.pump(1500);
    assert_eq!(call_in(&mut net.a, 1, WAIT, &w2(50), &mut two), Ok(1));
    assert_eq!(revents(&two, 0), Events::READABLE);
    assert_eq!(revents(&two, 1), Events::NONE);
    // Malformed lists are refused whole.
    let mut bad = entries(&[(l as u32, Events(0x2))]);
    assert_eq!(
        call_in(
            &mut net.a,
            1,
            WAIT,
            &[A::B(0, 8), A::V(1), A::V(0)],
            &mut bad
        ),
        Err(NetError::Invalid)
    );
    assert_eq!(
        call_in(
            &mut net.a,
            1,
            WAIT,
            &[A::B(0, 16), A::V(3), A::V(0)],
            &mut two
        ),
        Err(NetError::BadBuffer)
    );
    let too_many = MAX_WAIT_ENTRIES + 1;
    assert_eq!(
        call_in(
            &mut net.a,
            1,
            WAIT,
            &[A::B(0, 16), A::V(too_many), A::V(0)],
            &mut two
        ),
        Err(NetError::TooManyEntries)
    );
}

#[test]
fn the_non_blocking_flag_is_per_socket() {
    let mut net = Net::new();
    let s = call(&mut net.a, 1, SOCKET, &[1]).unwrap();
    let h = Handle::from_word(s).unwrap();
    assert_eq!(net.a.stack().is_nonblocking(1, h), Ok(false));
    call(&mut net.a, 1, SET_NONBLOCKING, &[s, 1]).unwrap();
    assert_eq!(net.a.stack().is_nonblocking(1, h), Ok(true));
    assert_eq!(net.a.stack().is_nonblocking(2, h), Err(NetError::BadSocket));
}

#[test]
fn a_peer_that_never_answers_times_out() {
    let mut net = Net::new();
    net.a.device_mut().set_cut(true);
    let c = call(&mut net.b, 2, SOCKET, &[1]).unwrap();
    let to = addr(IP_A, 7);
    assert_eq!(
        call(&mut net.b, 2, CONNECT, &[c, to]),
        Err(NetError::InProgress)
    );
    assert!(
        net.b.poll_delay(net.now).is_some(),
        "the server's timer must run"
    );
    net.pump_every(500, 70);
    assert_eq!(
        call(&mut net.b, 2, CONNECT, &[c, to]),
        Err(NetError::TimedOut)
    );
}

#[test]
fn an_idle_stack_asks_for_no_timer() {
    let mut net = Net::new();
    net.pump(10);
    let _ = call(&mut net.a, 1, SOCKET, &[1]).unwrap();
    assert_eq!(net.a.poll_delay(Instant::from_secs(5)), None);
}
