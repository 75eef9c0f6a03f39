//! Streams between two stacks: connect, accept and a checked 1 MiB echo;
//! several connections through one listener; what the peer sees of
//! shutdown, close and reset; a client's sockets closed with its session.

mod common;

use common::{addr, call, call_in, Net, Wire, A, IP_A, IP_B};
use conflux_netcore::NetCore;
use conflux_socket_protocol::ops::*;
use conflux_socket_protocol::{Events, NetError, SockAddr};

const SRV: u64 = 1;
const CLI: u64 = 2;
const STREAM: u64 = 1;

/// A listener on A:port with `backlog`.
fn listener(net: &mut Net, port: u16, backlog: u64) -> u64 {
    let l = call(&mut net.a, SRV, SOCKET, &[STREAM]).unwrap();
    call(&mut net.a, SRV, BIND, &[l, addr([0; 4], port)]).unwrap();
    call(&mut net.a, SRV, LISTEN, &[l, backlog]).unwrap();
    l
}

/// A connected client stream on B to A:port.
fn connect(net: &mut Net, port: u16) -> u64 {
    let c = call(&mut net.b, CLI, SOCKET, &[STREAM]).unwrap();
    let to = addr(IP_A, port);
    assert_eq!(
        call(&mut net.b, CLI, CONNECT, &[c, to]),
        Err(NetError::InProgress)
    );
    for _ in 0..5000 {
        net.pump(1);
        match call(&mut net.b, CLI, CONNECT, &[c, to]) {
            Ok(0) => return c,
            Err(NetError::Already) => {}
            other => panic!("connect: {other:?}"),
        }
    }
    panic!("never connected");
}

fn accept(net: &mut Net, l: u64) -> u64 {
    for _ in 0..100 {
        match call(&mut net.a, SRV, ACCEPT, &[l]) {
            Ok(h) => return h,
            Err(NetError::WouldBlock) => net.pump(1),
            Err(e) => panic!("accept: {e}"),
        }
    }
    panic!("nothing to accept");
}

fn send(core: &mut NetCore<Wire>, badge: u64, h: u64, data: &[u8]) -> Result<u64, NetError> {
    let mut region = data.to_vec();
    call_in(
        core,
        badge,
        SEND,
        &[A::V(h), A::B(0, data.len()), A::V(data.len() as u64)],
        &mut region,
    )
}

fn recv(core: &mut NetCore<Wire>, badge: u64, h: u64, max: usize) -> Result<Vec<u8>, NetError> {
    let mut region = vec![0u8; max];
    let n = call_in(
        core,
        badge,
        RECV,
        &[A::V(h), A::B(0, max), A::V(max as u64)],
        &mut region,
    )?;
    region.truncate(n as usize);
    Ok(region)
}

#[test]
fn one_mebibyte_echoes_intact() {
    let mut net = Net::new();
    let l = listener(&mut net, 7, 1);
    let c = connect(&mut net, 7);
    let s = accept(&mut net, l);
    let peer = SockAddr::from_word(call(&mut net.a, SRV, GETPEERNAME, &[s]).unwrap()).unwrap();
    assert_eq!(peer.ip, IP_B);
    let data: Vec<u8> = (0..1 << 20).map(|i: u32| (i * 7 + i / 251) as u8).collect();
    let (mut sent, mut back) = (0, Vec::new());
    for _ in 0..200_000 {
        if sent < data.len() {
            let end = (sent + 16 * 1024).min(data.len());
            if let Ok(n) = send(&mut net.b, CLI, c, &data[sent..end]) {
                sent += n as usize;
            }
        }
        if let Ok(got) = recv(&mut net.a, SRV, s, 32 * 1024) {
            let mut off = 0;
            while off < got.len() {
                match send(&mut net.a, SRV, s, &got[off..]) {
                    Ok(n) => off += n as usize,
                    Err(NetError::WouldBlock) => net.pump(1),
                    Err(e) => panic!("echo: {e}"),
                }
            }
        }
        if let Ok(got) = recv(&mut net.b, CLI, c, 32 * 1024) {
            back.extend_from_slice(&got);
        }
        if back.len() == data.len() {
            break;
        }
        net.pump(1);
    }
    assert!(
        back == data,
        "echo differs ({} of {} bytes back)",
        back.len(),
        data.len()
    );
}

#[test]
fn one_listener_serves_several_connections() {
    let mut net = Net::new();
    let l = listener(&mut net, 80, 4);
    let clients: Vec<u64> = (0..4).map(|_| connect(&mut net, 80)).collect();
    let mut seen = Vec::new();
    for _ in 0..4 {
        let s = accept(&mut net, l);
        let peer = SockAddr::from_word(call(&mut net.a, SRV, GETPEERNAME, &[s]).unwrap()).unwrap();
        seen.push((peer.port, s));
    }
    assert_eq!(
        call(&mut net.a, SRV, ACCEPT, &[l]),
        Err(NetError::WouldBlock)
    );
    for (i, c) in clients.iter().enumerate() {
        send(&mut net.b, CLI, *c, &[i as u8; 3]).unwrap();
        let name = SockAddr::from_word(call(&mut net.b, CLI, GETSOCKNAME, &[*c]).unwrap()).unwrap();
        let s = seen
            .iter()
            .find(|(p, _)| *p == name.port)
            .expect("accepted")
            .1;
        net.pump(5);
        assert_eq!(recv(&mut net.a, SRV, s, 10).unwrap(), vec![i as u8; 3]);
    }
    // The pool was refilled: a fifth client still gets in.
    let _ = connect(&mut net, 80);
    accept(&mut net, l);
}

#[test]
fn shutdown_and_close_are_seen_by_the_peer() {
    let mut net = Net::new();
    let l = listener(&mut net, 9, 1);
    let c = connect(&mut net, 9);
    let s = accept(&mut net, l);
    call(&mut net.b, CLI, SHUTDOWN, &[c, SHUT_WR]).unwrap();
    net.pump(5);
    assert_eq!(recv(&mut net.a, SRV, s, 10), Ok(vec![]), "end of stream");
    let ready = call(&mut net.a, SRV, READINESS, &[s]).unwrap() as u16;
    assert!(Events(ready).contains(Events::READABLE.union(Events::HANGUP)));
    assert_eq!(send(&mut net.b, CLI, c, b"x"), Err(NetError::BrokenPipe));
    // The other half still works.
    send(&mut net.a, SRV, s, b"late").unwrap();
    call(&mut net.a, SRV, CLOSE, &[s]).unwrap();
    net.pump(5);
    assert_eq!(recv(&mut net.b, CLI, c, 10), Ok(b"late".to_vec()));
    assert_eq!(recv(&mut net.b, CLI, c, 10), Ok(vec![]));
    assert_eq!(recv(&mut net.a, SRV, s, 1), Err(NetError::BadSocket));
}

#[test]
fn closing_with_unread_data_resets_the_peer() {
    let mut net = Net::new();
    let l = listener(&mut net, 9, 1);
    let c = connect(&mut net, 9);
    let s = accept(&mut net, l);
    send(&mut net.b, CLI, c, b"unread").unwrap();
    net.pump(5);
    call(&mut net.a, SRV, CLOSE, &[s]).unwrap();
    net.pump(5);
    assert_eq!(recv(&mut net.b, CLI, c, 10), Err(NetError::ConnectionReset));
    assert_eq!(
        send(&mut net.b, CLI, c, b"x"),
        Err(NetError::ConnectionReset)
    );
    let ready = call(&mut net.b, CLI, READINESS, &[c]).unwrap() as u16;
    assert!(Events(ready).contains(Events::ERROR));
}

#[test]
fn ending_a_session_closes_every_socket_of_the_client() {
    let mut net = Net::new();
    let l = listener(&mut net, 22, 2);
    let c = connect(&mut net, 22);
    let _s = accept(&mut net, l);
    let u = call(&mut net.a, SRV, SOCKET, &[2]).unwrap();
    call(&mut net.a, SRV, BIND, &[u, addr([0; 4], 53)]).unwrap();
    assert_eq!(net.a.stack().client_sockets(SRV), 3);
    net.a.stack().end_session(SRV);
    assert_eq!(net.a.stack().client_sockets(SRV), 0);
    net.pump(10);
    assert_eq!(
        recv(&mut net.b, CLI, c, 10),
        Ok(vec![]),
        "the peer sees the end"
    );
    assert_eq!(call(&mut net.a, SRV, CLOSE, &[l]), Err(NetError::BadSocket));
    // Its ports are free again.
    let l2 = call(&mut net.a, SRV, SOCKET, &[STREAM]).unwrap();
    call(&mut net.a, SRV, BIND, &[l2, addr([0; 4], 22)]).unwrap();
    let u2 = call(&mut net.a, SRV, SOCKET, &[2]).unwrap();
    call(&mut net.a, SRV, BIND, &[u2, addr([0; 4], 53)]).unwrap();
    let _ = IP_B;
}

#[test]
fn a_closed_connection_the_peer_never_closes_is_dropped_in_time() {
    let mut net = Net::new();
    let l = listener(&mut net, 9, 1);
    let _c = connect(&mut net, 9);
    let s = accept(&mut net, l);
    let before = net.a.stack().sockets_in_use();
    call(&mut net.a, SRV, CLOSE, &[s]).unwrap();
    net.pump(10);
    // The peer acknowledged the FIN but keeps its side open.
    assert_eq!(net.a.stack().sockets_in_use(), before);
    net.pump_every(1000, 62);
    assert_eq!(net.a.stack().sockets_in_use(), before - 1);
}

/// A SYN that arrives again once a listening socket of the pool sits
/// earlier in smoltcp's set than the one that took it (as under load,
/// when connections close and the pool is refilled into their slots).
#[test]
fn a_repeated_syn_makes_no_second_connection() {
    let mut net = Net::new();
    let l = listener(&mut net, 80, 2);
    let tick = |net: &mut Net| net.now += smoltcp::time::Duration::from_millis(1);
    // W: both ends learn each other's MAC; once closed at both ends, its
    // socket's slot, the set's first, is free.
    let w = connect(&mut net, 80);
    let ws = accept(&mut net, l);
    call(&mut net.b, CLI, CLOSE, &[w]).unwrap();
    net.pump(20);
    call(&mut net.a, SRV, CLOSE, &[ws]).unwrap();
    net.pump_every(10, 100);
    let x = connect(&mut net, 80);
    net.pump(2);
    // Y's SYN is taken by the pool's second socket; its SYN-ACK waits.
    let y = call(&mut net.b, CLI, SOCKET, &[STREAM]).unwrap();
    let to = addr(IP_A, 80);
    assert_eq!(
        call(&mut net.b, CLI, CONNECT, &[y, to]),
        Err(NetError::InProgress)
    );
    tick(&mut net);
    net.b.poll(net.now);
    let syn = net.b.device_mut().last_sent();
    tick(&mut net);
    net.a.poll(net.now);
    // Accepting X refills the pool into the free first slot.
    let xs = accept(&mut net, l);
    tick(&mut net);
    net.a.poll(net.now);
    // Y's SYN again.
    net.a.device_mut().inject(syn);
    for _ in 0..100 {
        net.pump(1);
        if call(&mut net.b, CLI, CONNECT, &[y, to]) == Ok(0) {
            break;
        }
    }
    net.pump(5);
    let ys = accept(&mut net, l);
    assert_eq!(net.a.stack().duplicate_syns(), 1);
    // Both connections work both ways; nothing else waits to be accepted.
    for (c, s) in [(x, xs), (y, ys)] {
        send(&mut net.b, CLI, c, b"ping").unwrap();
        net.pump(5);
        assert_eq!(recv(&mut net.a, SRV, s, 10).unwrap(), b"ping");
        send(&mut net.a, SRV, s, b"pong").unwrap();
        net.pump(5);
        assert_eq!(recv(&mut net.b, CLI, c, 10).unwrap(), b"pong");
    }
    net.pump_every(100, 50);
    assert_eq!(
        call(&mut net.a, SRV, ACCEPT, &[l]),
        Err(NetError::WouldBlock)
    );
    let ready = call(&mut net.b, CLI, READINESS, &[y]).unwrap();
    assert!(Events(ready as u16).intersect(Events::ERROR).is_empty());
}

/// A server that closes first leaves each connection in TIME-WAIT for 10 s;
/// with the server out of sockets, the oldest of those makes room, so a
/// burst of short connections is never refused.
#[test]
fn connections_the_server_closed_first_do_not_use_up_its_sockets() {
    let mut net = Net::with(|c| c.limits.total = 6);
    let l = listener(&mut net, 80, 1);
    for i in 0..20 {
        let c = connect(&mut net, 80);
        let s = accept(&mut net, l);
        call(&mut net.a, SRV, CLOSE, &[s]).unwrap();
        net.pump(5);
        assert_eq!(recv(&mut net.b, CLI, c, 10), Ok(vec![]), "connection {i}");
        call(&mut net.b, CLI, CLOSE, &[c]).unwrap();
        net.pump(5);
    }
    assert!(net.a.stack().time_wait_dropped() >= 14);
    assert!(net.a.stack().sockets_in_use() <= 6);
}

/// With Nagle's algorithm a short segment waits while data is
/// unacknowledged; `set_nodelay` sends it at once.
#[test]
fn nodelay_sends_a_short_segment_while_data_is_unacknowledged() {
    for nodelay in [false, true] {
        let mut net = Net::new();
        let l = listener(&mut net, 80, 1);
        let _c = connect(&mut net, 80);
        let s = accept(&mut net, l);
        net.pump(50);
        call(&mut net.a, SRV, SET_NODELAY, &[s, u64::from(nodelay)]).unwrap();
        let before = net.a.device_mut().in_flight();
        send(&mut net.a, SRV, s, &[1; 100]).unwrap();
        net.now += smoltcp::time::Duration::from_millis(1);
        net.a.poll(net.now);
        send(&mut net.a, SRV, s, &[2; 10]).unwrap();
        net.now += smoltcp::time::Duration::from_millis(1);
        net.a.poll(net.now);
        let segments = net.a.device_mut().in_flight() - before;
        assert_eq!(segments, if nodelay { 2 } else { 1 }, "nodelay {nodelay}");
    }
    let mut net = Net::new();
    let u = call(&mut net.a, SRV, SOCKET, &[2]).unwrap();
    assert_eq!(
        call(&mut net.a, SRV, SET_NODELAY, &[u, 1]),
        Err(NetError::NotSupported)
    );
}

/// A peer that stopped reading: `close` keeps the socket sending into a
/// closed window until a timeout gives up on it (30 s here, where the
/// peer does not answer window probes; up to the 60 s linger where it
/// does); `abort` resets the connection and frees the socket at once.
#[test]
fn abort_frees_a_connection_whose_peer_stopped_reading() {
    for abort in [false, true] {
        let mut net = Net::new();
        let l = listener(&mut net, 80, 1);
        let c = connect(&mut net, 80);
        let s = accept(&mut net, l);
        let chunk = [7u8; 4096];
        let mut queued = 0;
        for _ in 0..1000 {
            match send(&mut net.a, SRV, s, &chunk) {
                Ok(n) => queued += n,
                Err(NetError::WouldBlock) => net.pump(5),
                Err(e) => panic!("send: {e}"),
            }
        }
        assert!(queued >= 128 * 1024, "both buffers filled: {queued} bytes");
        let before = net.a.stack().sockets_in_use();
        let op = if abort { ABORT } else { CLOSE };
        call(&mut net.a, SRV, op, &[s]).unwrap();
        assert_eq!(recv(&mut net.a, SRV, s, 1), Err(NetError::BadSocket));
        net.pump_every(1000, 5);
        let freed = before - net.a.stack().sockets_in_use();
        assert_eq!(freed, usize::from(abort), "abort {abort}: freed {freed}");
        if abort {
            // What had arrived is still read, then the reset.
            let mut got = 0;
            let end = loop {
                match recv(&mut net.b, CLI, c, 65536) {
                    Ok(b) if b.is_empty() => break Ok(()),
                    Ok(b) => got += b.len(),
                    Err(e) => break Err(e),
                }
            };
            assert_eq!(end, Err(NetError::ConnectionReset), "after {got} bytes");
        }
    }
    let mut net = Net::new();
    let u = call(&mut net.a, SRV, SOCKET, &[2]).unwrap();
    call(&mut net.a, SRV, ABORT, &[u]).unwrap();
    assert_eq!(call(&mut net.a, SRV, ABORT, &[u]), Err(NetError::BadSocket));
}
