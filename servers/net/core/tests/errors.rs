//! Every bad request gets its own code, and datagrams travel with their
//! sender's address.

mod common;

use common::{addr, call, call_in, Net, A, IP_A, IP_B};
use conflux_socket_protocol::ops::*;
use conflux_socket_protocol::{NetError, SockAddr};
use NetError::*;

#[test]
fn each_bad_request_has_its_code() {
    // The listener's pool of 2, `t`, `u` and one more socket.
    let mut net = Net::with(|c| c.limits.quota = 5);
    let a = &mut net.a;
    let s = call(a, 1, SOCKET, &[1]).unwrap();
    assert_eq!(call(a, 1, CLOSE, &[99]), Err(BadSocket));
    assert_eq!(call(a, 1, CLOSE, &[1 << 40]), Err(BadSocket));
    assert_eq!(
        call(a, 2, CLOSE, &[s]),
        Err(BadSocket),
        "another client's handle"
    );
    assert_eq!(call(a, 1, SOCKET, &[3]), Err(ProtocolNotSupported));
    assert_eq!(call(a, 1, BIND, &[s, 1 << 50]), Err(Invalid));
    assert_eq!(
        call(a, 1, BIND, &[s, addr([10, 0, 0, 9], 80)]),
        Err(AddressNotAvailable)
    );
    call(a, 1, BIND, &[s, addr(IP_A, 80)]).unwrap();
    assert_eq!(
        call(a, 1, BIND, &[s, addr(IP_A, 81)]),
        Err(Invalid),
        "bound twice"
    );
    let t = call(a, 1, SOCKET, &[1]).unwrap();
    assert_eq!(call(a, 1, BIND, &[t, addr([0; 4], 80)]), Err(AddressInUse));
    let mut buf = [0u8; 4];
    let rx = [A::V(t), A::B(0, 4), A::V(4)];
    assert_eq!(call_in(a, 1, RECV, &rx, &mut buf), Err(NotConnected));
    assert_eq!(call(a, 1, GETPEERNAME, &[t]), Err(NotConnected));
    assert_eq!(call(a, 1, LISTEN, &[s, 0]), Err(Invalid));
    assert_eq!(call(a, 1, LISTEN, &[s, MAX_BACKLOG + 1]), Err(Invalid));
    call(a, 1, LISTEN, &[s, 2]).unwrap();
    assert_eq!(call(a, 1, ACCEPT, &[s]), Err(WouldBlock));
    assert_eq!(call(a, 1, ACCEPT, &[t]), Err(Invalid));
    assert_eq!(
        call(a, 1, CONNECT, &[s, addr(IP_B, 1)]),
        Err(AlreadyConnected)
    );
    assert_eq!(call(a, 1, CONNECT, &[t, addr(IP_B, 0)]), Err(Invalid));
    assert_eq!(call(a, 1, SHUTDOWN, &[t, 3]), Err(Invalid));
    assert_eq!(call(a, 1, SET_NONBLOCKING, &[t, 2]), Err(Invalid));
    let u = call(a, 1, SOCKET, &[2]).unwrap();
    assert_eq!(call(a, 1, LISTEN, &[u, 1]), Err(NotSupported));
    let mut big = vec![0u8; 70_000];
    let send = [A::V(u), A::B(0, 10), A::V(10)];
    assert_eq!(
        call_in(a, 1, SEND, &send, &mut big),
        Err(DestinationRequired)
    );
    // Longer than a datagram socket's 64 KiB send buffer.
    let long = [A::V(u), A::B(0, 70_000), A::V(70_000), A::V(addr(IP_B, 9))];
    assert_eq!(call_in(a, 1, SENDTO, &long, &mut big), Err(MessageTooLong));
    let past = [A::V(t), A::B(0, 10), A::V(11)];
    assert_eq!(call_in(a, 1, SEND, &past, &mut big), Err(BadBuffer));
    call(a, 1, SOCKET, &[1]).unwrap();
    assert_eq!(call(a, 1, SOCKET, &[1]), Err(QuotaExceeded));
}

#[test]
fn connecting_to_a_closed_port_is_refused() {
    let mut net = Net::new();
    let c = call(&mut net.b, 2, SOCKET, &[1]).unwrap();
    let to = addr(IP_A, 4444);
    assert_eq!(call(&mut net.b, 2, CONNECT, &[c, to]), Err(InProgress));
    assert_eq!(call(&mut net.b, 2, CONNECT, &[c, to]), Err(Already));
    net.pump(2000);
    assert_eq!(call(&mut net.b, 2, CONNECT, &[c, to]), Err(Refused));
    // Reported once; the socket may try again.
    assert_eq!(call(&mut net.b, 2, CONNECT, &[c, to]), Err(InProgress));
}

#[test]
fn the_server_wide_limit_is_no_buffers() {
    let mut net = Net::with(|c| c.limits.total = 2);
    call(&mut net.a, 1, SOCKET, &[1]).unwrap();
    call(&mut net.a, 2, SOCKET, &[2]).unwrap();
    assert_eq!(call(&mut net.a, 3, SOCKET, &[1]), Err(NoBuffers));
}

#[test]
fn datagrams_carry_their_sender() {
    let mut net = Net::new();
    let r = call(&mut net.a, 1, SOCKET, &[2]).unwrap();
    call(&mut net.a, 1, BIND, &[r, addr([0; 4], 5353)]).unwrap();
    let s = call(&mut net.b, 2, SOCKET, &[2]).unwrap();
    let mut msg = b"ping".to_vec();
    let to = addr(IP_A, 5353);
    let mut sent = Err(WouldBlock);
    for _ in 0..3000 {
        sent = call_in(
            &mut net.b,
            2,
            SENDTO,
            &[A::V(s), A::B(0, 4), A::V(4), A::V(to)],
            &mut msg,
        );
        net.pump(1);
        let mut region = vec![0u8; 32];
        let ops = [A::V(r), A::B(0, 16), A::V(16), A::B(16, 8)];
        if let Ok(n) = call_in(&mut net.a, 1, RECVFROM, &ops, &mut region) {
            assert_eq!(&region[..n as usize], b"ping");
            let from = SockAddr::decode(&region[16..]).unwrap();
            assert_eq!(from.ip, IP_B);
            let name = call(&mut net.b, 2, GETSOCKNAME, &[s]).unwrap();
            assert_eq!(SockAddr::from_word(name).unwrap().port, from.port);
            return;
        }
    }
    panic!("no datagram arrived ({sent:?})");
}

#[test]
fn the_same_handle_names_each_clients_own_socket() {
    let mut net = Net::new();
    let a = &mut net.a;
    let one = call(a, 1, SOCKET, &[1]).unwrap();
    let two = call(a, 2, SOCKET, &[2]).unwrap();
    assert_eq!(one, two, "both clients start at handle 0");
    call(a, 1, BIND, &[one, addr([0; 4], 80)]).unwrap();
    // Client 2's handle 0 is its datagram socket, not client 1's stream.
    assert_eq!(call(a, 2, LISTEN, &[two, 1]), Err(NotSupported));
    call(a, 2, CLOSE, &[two]).unwrap();
    assert_eq!(call(a, 2, CLOSE, &[two]), Err(BadSocket));
    call(a, 1, LISTEN, &[one, 1]).unwrap();
    let name = call(a, 1, GETSOCKNAME, &[one]).unwrap();
    assert_eq!(SockAddr::from_word(name), Some(SockAddr::new([0; 4], 80)));
}
