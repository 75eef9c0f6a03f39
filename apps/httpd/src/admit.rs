//! Taking new connections, by the rules of `conflux_http::seats`: served
//! while there is room (at most `MAX_CONNS`, `MAX_PER_PEER` from one
//! address); when full, the connection quiet longest is evicted to make
//! room, and with none quiet enough the newcomer is answered 503 with
//! `Retry-After`. At most [`MAX_TURNED_AWAY`] such answers go out at once;
//! past them a newcomer is closed without one (it would otherwise cost a
//! place in the network server's `wait`, which looks at
//! [`MAX_WAIT_ENTRIES`] sockets at most).

use alloc::vec::Vec;

use conflux_http::seats::{self, Admit, Full, MAX_CONNS};
use conflux_http::stats::Counters;
use conflux_http::Status;
use conflux_net_client::{Net, NetError, Socket};
use conflux_socket_protocol::ops::MAX_WAIT_ENTRIES;
use conflux_userlib::println;

use crate::client::{Client, End};
use crate::notes::Notes;
use crate::restart;

/// Connections answered 503 (and lingering) at once.
pub const MAX_TURNED_AWAY: usize = 15;

// The listener, every connection served and every one turned away fit
// in one `wait`.
const _: () = assert!(1 + MAX_CONNS + MAX_TURNED_AWAY <= MAX_WAIT_ENTRIES as usize);

/// Takes every waiting connection at `now`.
pub fn accept_all(
    net: &mut Net,
    listener: Socket,
    clients: &mut Vec<Client>,
    notes: &mut Notes,
    counters: &mut Counters,
    now: u64,
) {
    loop {
        let sock = match net.accept(listener) {
            Ok(s) => s,
            Err(e) if e.net() == Some(NetError::WouldBlock) => return,
            Err(e) if restart::note(&e) => return,
            Err(e) => {
                println!("accept failed: {e}");
                return;
            }
        };
        let Ok(peer) = net.peer_name(sock) else {
            // Reset before httpd took it: nobody to answer.
            let _ = net.abort(sock);
            continue;
        };
        let _ = net.set_nonblocking(sock, true);
        // Answers are written whole: their last short segment must not
        // wait a round trip for the acknowledgement of the one before.
        let _ = net.set_nodelay(sock, true);
        let (owners, seats): (Vec<usize>, Vec<seats::Seat>) = clients
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.seat().map(|s| (i, s)))
            .unzip();
        let slot = match seats::admit(&seats, peer.ip, now) {
            Admit::Serve => free_slot(clients),
            Admit::Evict { index, full } => {
                counters.evicted += 1;
                let victim = &mut clients[owners[index]];
                notes.evicted(now, full, victim.peer, now - seats[index].quiet_since, peer);
                victim.evict()
            }
            Admit::Refuse(full) => {
                turn_away(net, sock, peer, clients, notes, counters, full, now);
                continue;
            }
        };
        match slot {
            Some(slot) => {
                counters.connections_accepted += 1;
                clients.push(Client::new(sock, peer, slot, now));
            }
            // Cannot happen: admission counted a free slot or freed one.
            None => turn_away(net, sock, peer, clients, notes, counters, Full::Server, now),
        }
    }
}

/// The lowest slot no connection being served holds.
fn free_slot(clients: &[Client]) -> Option<u32> {
    (0..MAX_CONNS as u32).find(|s| clients.iter().all(|c| c.slot != Some(*s)))
}

/// Answers `sock` 503, or closes it if too many 503s are going out.
#[allow(clippy::too_many_arguments)]
fn turn_away(
    net: &mut Net,
    sock: Socket,
    peer: conflux_net_client::SockAddr,
    clients: &mut Vec<Client>,
    notes: &mut Notes,
    counters: &mut Counters,
    full: Full,
    now: u64,
) {
    let going_out = clients
        .iter()
        .filter(|c| c.slot.is_none() && c.end == End::Open)
        .count();
    let answered = going_out < MAX_TURNED_AWAY;
    notes.turned_away(now, full, peer, answered);
    counters.turned_away += 1;
    if answered {
        counters.response(Status::Unavailable);
        clients.push(Client::turned_away(sock, peer, busy_page(full), now));
    } else {
        let _ = net.close(sock);
    }
}

fn busy_page(full: Full) -> Vec<u8> {
    let why = match full {
        Full::Server => "all connections are busy; try again in a second",
        Full::Peer => {
            "your address holds as many connections as one address may; try again in a second"
        }
    };
    let body = conflux_http::response::error_page(Status::Unavailable, why);
    let mut page = conflux_http::response::head(
        Status::Unavailable,
        "text/html; charset=utf-8",
        body.len() as u64,
        false,
    )
    .into_bytes();
    page.extend_from_slice(body.as_bytes());
    page
}
