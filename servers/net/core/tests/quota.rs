//! Quotas, as an attacker would test them: every stack socket a client
//! causes counts against it (listener pools, connections still closing),
//! a client at its quota gets `QuotaExceeded` while the others are still
//! served, each named client keeps its share whatever another holds, and
//! a heap that cannot hold another socket answers `NoMemory`, never a
//! panic.

mod common;

use common::{addr, call, Net, IP_A};
use conflux_netcore::Limits;
use conflux_socket_protocol::ops::*;
use conflux_socket_protocol::NetError::*;

const HOSTILE: u64 = 1;
const VICTIM: u64 = 2;
const STREAM: u64 = 1;
const DATAGRAM: u64 = 2;

/// Two named clients sharing `total` sockets.
fn named(total: usize) -> Net {
    Net::with(|c| {
        c.limits = Limits::new(total, 2);
        c.clients = &[HOSTILE, VICTIM];
    })
}

/// A bound stream of `badge` listening with `backlog` on `port`.
fn listen(
    net: &mut Net,
    badge: u64,
    port: u16,
    backlog: u64,
) -> Result<u64, conflux_socket_protocol::NetError> {
    let l = call(&mut net.a, badge, SOCKET, &[STREAM])?;
    call(&mut net.a, badge, BIND, &[l, addr([0; 4], port)])?;
    call(&mut net.a, badge, LISTEN, &[l, backlog])?;
    Ok(l)
}

#[test]
fn a_listeners_backlog_counts_against_its_owner_and_is_clamped_to_its_quota() {
    let mut net = named(40);
    let limits = net.a.stack().limits();
    assert_eq!((limits.quota, limits.share), (24, 16));
    listen(&mut net, HOSTILE, 80, MAX_BACKLOG).unwrap();
    assert_eq!(
        net.a.stack().client_held(HOSTILE),
        24,
        "the pool holds what the quota allows, not 64 and not 1"
    );
    assert_eq!(
        call(&mut net.a, HOSTILE, SOCKET, &[STREAM]),
        Err(QuotaExceeded)
    );
    assert_eq!(
        call(&mut net.a, HOSTILE, SOCKET, &[DATAGRAM]),
        Err(QuotaExceeded)
    );
    for i in 0..16 {
        assert!(
            call(&mut net.a, VICTIM, SOCKET, &[STREAM]).is_ok(),
            "the other client's socket {i} of its share"
        );
    }
    assert_eq!(net.a.stack().sockets_in_use(), 40);
}

#[test]
fn many_listeners_cannot_take_more_than_the_quota() {
    let mut net = named(40);
    let mut refused = None;
    for port in 1000..1100 {
        if let Err(e) = listen(&mut net, HOSTILE, port, 4) {
            refused = Some(e);
            break;
        }
    }
    assert_eq!(refused, Some(QuotaExceeded));
    assert_eq!(net.a.stack().client_held(HOSTILE), 24);
    let l = listen(&mut net, VICTIM, 80, 8).expect("the other client still listens");
    assert_eq!(net.a.stack().client_held(VICTIM), 8);
    call(&mut net.a, VICTIM, CLOSE, &[l]).unwrap();
}

#[test]
fn a_client_below_its_share_is_served_when_the_shared_rest_is_gone() {
    // Three named clients, 60 sockets: 16 kept for each, quota 28.
    let mut net = Net::with(|c| {
        c.limits = Limits::new(60, 3);
        c.clients = &[1, 2, 3];
    });
    assert_eq!(net.a.stack().limits().quota, 28);
    while call(&mut net.a, 1, SOCKET, &[STREAM]).is_ok() {}
    while call(&mut net.a, 2, SOCKET, &[STREAM]).is_ok() {}
    assert_eq!(
        call(&mut net.a, 2, SOCKET, &[STREAM]),
        Err(NoBuffers),
        "client 2, past its share, finds the rest taken by client 1"
    );
    assert_eq!(net.a.stack().client_held(2), 60 - 28 - 16);
    for _ in 0..16 {
        call(&mut net.a, 3, SOCKET, &[STREAM]).expect("client 3's share is kept");
    }
    assert_eq!(call(&mut net.a, 3, SOCKET, &[STREAM]), Err(NoBuffers));
}

#[test]
fn a_client_the_manifest_does_not_name_is_kept_nothing() {
    let mut net = named(40);
    let stranger = 9;
    for _ in 0..8 {
        call(&mut net.a, stranger, SOCKET, &[STREAM]).unwrap();
    }
    assert_eq!(
        call(&mut net.a, stranger, SOCKET, &[STREAM]),
        Err(NoBuffers),
        "what is left is kept for the two named clients"
    );
}

#[test]
fn closing_connections_count_until_they_are_gone_and_the_quota_comes_back() {
    let mut net = Net::with(|c| {
        c.limits = Limits::new(40, 2);
        c.clients = &[HOSTILE, VICTIM];
    });
    let l = listen(&mut net, VICTIM, 80, 1).unwrap();
    let c = call(&mut net.b, HOSTILE, SOCKET, &[STREAM]).unwrap();
    call(&mut net.b, HOSTILE, CONNECT, &[c, addr(IP_A, 80)]).unwrap_err();
    net.pump(20);
    let s = call(&mut net.a, VICTIM, ACCEPT, &[l]).unwrap();
    let before = net.a.stack().client_held(VICTIM);
    call(&mut net.a, VICTIM, CLOSE, &[s]).unwrap();
    assert_eq!(
        net.a.stack().client_held(VICTIM),
        before,
        "a closed connection still closing is still the client's"
    );
    net.a.stack().end_session(VICTIM);
    net.pump_every(1000, 70);
    assert_eq!(net.a.stack().client_held(VICTIM), 0, "all given back");
    assert_eq!(net.a.stack().sockets_in_use(), 0);
}

#[test]
fn a_client_at_its_quota_makes_room_from_its_own_time_wait_connections() {
    let mut net = Net::with(|c| c.limits.quota = 4);
    let l = listen(&mut net, 1, 80, 1).unwrap();
    for i in 0..10 {
        let c = call(&mut net.b, 2, SOCKET, &[STREAM]).unwrap();
        call(&mut net.b, 2, CONNECT, &[c, addr(IP_A, 80)]).unwrap_err();
        net.pump(20);
        let s = call(&mut net.a, 1, ACCEPT, &[l]).unwrap_or_else(|e| panic!("accept {i}: {e}"));
        call(&mut net.a, 1, CLOSE, &[s]).unwrap();
        net.pump(20);
        call(&mut net.b, 2, CLOSE, &[c]).unwrap();
        net.pump(20);
    }
    assert!(net.a.stack().client_held(1) <= 4);
    assert!(net.a.stack().time_wait_dropped() >= 6);
}

#[test]
fn a_heap_that_cannot_hold_a_socket_answers_no_memory() {
    let mut net = Net::with(|c| {
        // No heap holds buffers this large: the allocation fails.
        c.tcp_buffer = 1 << 62;
        c.udp_buffer = 1 << 62;
    });
    assert_eq!(call(&mut net.a, 1, SOCKET, &[STREAM]), Err(NoMemory));
    assert_eq!(call(&mut net.a, 1, SOCKET, &[DATAGRAM]), Err(NoMemory));
    assert_eq!(net.a.stack().sockets_in_use(), 0, "nothing half made");
    assert_eq!(net.a.stack().client_held(1), 0);
}

#[test]
fn a_quota_the_manifest_gives_is_the_clients_own() {
    let mut net = Net::with(|c| {
        c.limits = Limits::new(40, 2);
        c.clients = &[HOSTILE, VICTIM];
        c.quotas = &[Some(4), None];
    });
    assert_eq!(net.a.stack().client_quota(HOSTILE), 4);
    assert_eq!(net.a.stack().client_quota(VICTIM), 24, "the default, cut");
    for _ in 0..4 {
        call(&mut net.a, HOSTILE, SOCKET, &[DATAGRAM]).unwrap();
    }
    assert_eq!(
        call(&mut net.a, HOSTILE, SOCKET, &[STREAM]),
        Err(QuotaExceeded)
    );
    for _ in 0..24 {
        call(&mut net.a, VICTIM, SOCKET, &[STREAM]).unwrap();
    }
    assert_eq!(
        call(&mut net.a, VICTIM, SOCKET, &[STREAM]),
        Err(QuotaExceeded)
    );
}
