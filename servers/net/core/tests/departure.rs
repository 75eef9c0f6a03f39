//! A client that goes (the supervisor says its task ended, or its next
//! instance reconnects) gives everything back: `end_session` closes its
//! sockets and frees its ports, round after round, and the server's
//! counts return to their baseline, while another client holding its own
//! quota is never refused.

mod common;

use common::{addr, call, Net};
use conflux_netcore::Limits;
use conflux_socket_protocol::ops::*;

const GONE: u64 = 1;
const STAYS: u64 = 2;
const STREAM: u64 = 1;
const DATAGRAM: u64 = 2;
const QUOTA: u32 = 4;

#[test]
fn a_departed_client_gives_back_its_sockets_and_ports_round_after_round() {
    let mut net = Net::with(|c| {
        c.limits = Limits::new(40, 2);
        c.clients = &[GONE, STAYS];
        c.quotas = &[Some(QUOTA), Some(QUOTA)];
    });
    // The client that stays holds its quota the whole time.
    for i in 0..QUOTA as u16 {
        let s = call(&mut net.a, STAYS, SOCKET, &[DATAGRAM]).unwrap();
        call(&mut net.a, STAYS, BIND, &[s, addr([0; 4], 6000 + i)]).unwrap();
    }
    let baseline = (net.a.stack().sockets_in_use(), net.a.stack().info().counts);
    for round in 0..1000u32 {
        // Its quota: two bound datagram sockets, a bound stream, a
        // listener (backlog 1: its pool holds one socket).
        let mut held = 0;
        for port in [5000, 5001] {
            let s = call(&mut net.a, GONE, SOCKET, &[DATAGRAM]).unwrap();
            call(&mut net.a, GONE, BIND, &[s, addr([0; 4], port)]).unwrap();
            held += 1;
        }
        let s = call(&mut net.a, GONE, SOCKET, &[STREAM]).unwrap();
        call(&mut net.a, GONE, BIND, &[s, addr([0; 4], 5002)]).unwrap();
        held += 1;
        assert_eq!(net.a.stack().client_held(GONE), held);
        assert_eq!(
            call(&mut net.a, GONE, SOCKET, &[STREAM]).and_then(|l| {
                call(&mut net.a, GONE, BIND, &[l, addr([0; 4], 5003)])?;
                call(&mut net.a, GONE, LISTEN, &[l, 1])
            }),
            Ok(0),
            "round {round}: the listener fits its quota"
        );
        assert_eq!(net.a.stack().client_held(GONE), QUOTA as usize);
        assert!(
            call(&mut net.a, GONE, SOCKET, &[DATAGRAM]).is_err(),
            "round {round}: at its quota"
        );
        net.a.stack().end_session(GONE);
        // Closed streams stay charged to it until the next poll reaps them.
        net.pump(1);
        assert_eq!(net.a.stack().client_held(GONE), 0, "round {round}");
        assert_eq!(
            (net.a.stack().sockets_in_use(), net.a.stack().info().counts),
            baseline,
            "round {round}: the counts are back at their baseline"
        );
        // The client that stays is served as ever, and nothing of its
        // was touched.
        assert_eq!(net.a.stack().client_held(STAYS), QUOTA as usize);
    }
    // Every port the departed client held is free for anyone.
    for port in 5000..5004 {
        let s = call(&mut net.a, GONE, SOCKET, &[DATAGRAM]).unwrap();
        assert_eq!(
            call(&mut net.a, GONE, BIND, &[s, addr([0; 4], port)]),
            Ok(0)
        );
        call(&mut net.a, GONE, CLOSE, &[s]).unwrap();
    }
}
