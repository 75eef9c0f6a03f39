//! Admission when httpd is full: the limits (total and per address), at
//! and past them, and whom eviction picks.

use conflux_http::seats::{admit, Admit, Full, Seat, EVICT_QUIET_MS, MAX_CONNS, MAX_PER_PEER};

const A: [u8; 4] = [10, 0, 2, 2];
const B: [u8; 4] = [10, 0, 2, 3];

/// `n` seats of `peer`, busy (quiet since `now`).
fn busy(peer: [u8; 4], n: usize, now: u64) -> Vec<Seat> {
    vec![
        Seat {
            peer,
            quiet_since: now
        };
        n
    ]
}

#[test]
fn below_both_limits_a_newcomer_is_served() {
    assert_eq!(admit(&[], A, 0), Admit::Serve);
    let mut seats = busy(A, MAX_PER_PEER - 1, 100);
    assert_eq!(admit(&seats, A, 100), Admit::Serve, "one below its limit");
    seats.extend(busy(B, MAX_CONNS - MAX_PER_PEER, 100));
    assert_eq!(seats.len(), MAX_CONNS - 1);
    assert_eq!(admit(&seats, B, 100), Admit::Serve, "one below the total");
}

#[test]
fn at_its_own_limit_a_busy_peer_is_refused_but_others_are_served() {
    let seats = busy(A, MAX_PER_PEER, 100);
    assert_eq!(admit(&seats, A, 100), Admit::Refuse(Full::Peer));
    assert_eq!(admit(&seats, B, 100), Admit::Serve);
}

#[test]
fn at_the_total_limit_with_everyone_busy_a_newcomer_is_refused() {
    let mut seats = busy(A, MAX_PER_PEER - 2, 100);
    seats.extend(busy(B, MAX_CONNS - seats.len(), 100));
    assert_eq!(
        admit(&seats, [10, 0, 2, 9], 100),
        Admit::Refuse(Full::Server)
    );
}

#[test]
fn when_full_the_connection_quiet_longest_makes_room() {
    let now = 50_000;
    let mut seats = busy(A, MAX_CONNS, now);
    seats[7].quiet_since = now - 3_000;
    seats[30].quiet_since = now - 20_000;
    seats[41].quiet_since = now - EVICT_QUIET_MS;
    let full = Full::Peer; // 48 from A: its own limit is met first
    assert_eq!(admit(&seats, A, now), Admit::Evict { index: 30, full });
}

#[test]
fn a_connection_quiet_for_less_than_the_threshold_is_not_evicted() {
    let now = 50_000;
    let mut seats = busy(A, MAX_PER_PEER, now);
    seats[3].quiet_since = now - (EVICT_QUIET_MS - 1);
    assert_eq!(
        admit(&seats, A, now),
        Admit::Refuse(Full::Peer),
        "just under"
    );
    seats[3].quiet_since = now - EVICT_QUIET_MS;
    assert_eq!(
        admit(&seats, A, now),
        Admit::Evict {
            index: 3,
            full: Full::Peer
        },
        "at it"
    );
}

#[test]
fn a_peer_at_its_limit_evicts_only_its_own_connections() {
    let now = 90_000;
    let mut seats = busy(B, MAX_CONNS - MAX_PER_PEER, now);
    seats[0].quiet_since = 0; // B's, quiet for 90 s
    seats.extend(busy(A, MAX_PER_PEER, now));
    assert_eq!(
        admit(&seats, A, now),
        Admit::Refuse(Full::Peer),
        "A cannot push B out"
    );
    seats[MAX_CONNS - 1].quiet_since = now - 5_000; // one of A's
    assert_eq!(
        admit(&seats, A, now),
        Admit::Evict {
            index: MAX_CONNS - 1,
            full: Full::Peer
        }
    );
}

#[test]
fn when_the_server_is_full_any_peer_s_quiet_connection_makes_room() {
    let now = 90_000;
    let mut seats = busy(A, MAX_PER_PEER - 1, now);
    seats.extend(busy(B, MAX_CONNS - seats.len(), now));
    seats[2].quiet_since = now - 2_000; // A's
    assert_eq!(
        admit(&seats, B, now),
        Admit::Evict {
            index: 2,
            full: Full::Server
        }
    );
}

#[test]
fn the_limits_leave_room_for_other_addresses() {
    const { assert!(MAX_PER_PEER < MAX_CONNS) };
    // The 32 clients and 4 malformed requests of the http test, all from
    // slirp's one address, fit under the per-address limit.
    const { assert!(MAX_PER_PEER >= 36) };
}
