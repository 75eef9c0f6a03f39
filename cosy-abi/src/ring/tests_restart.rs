//! Host tests of a client's rings across a server restart: the rings
//! are formatted afresh in the same region and the client resumes with
//! [`ClientState::restarted`]; what was in flight is gone, its tickets
//! never answered and never confused with a new entry's.

use conflux_queue::Descriptor;

use super::tests::{Mem, Side, DATA_LEN};
use super::*;
use crate::code;
use crate::memfs;

#[test]
fn entries_in_flight_at_a_restart_are_forgotten_and_their_tickets_never_match() {
    let old = Mem::new();
    let (mut client, mut server, mut side) = (old.client(), old.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    let reaped = client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    side.serve(&mut server, &mut data).unwrap();
    assert_eq!(client.reap().unwrap().map(|r| r.ticket), Some(reaped));
    // Three in flight when the server dies: one served (its answer in
    // the completion ring, unreaped), two never taken.
    let mut lost = vec![client.submit_op(&mut data, memfs::NOP, &[]).unwrap()];
    assert_eq!(side.serve(&mut server, &mut data).unwrap().len(), 1);
    for _ in 0..2 {
        lost.push(client.submit_op(&mut data, memfs::NOP, &[]).unwrap());
    }
    assert_eq!(client.in_flight(), 3);

    // The rings formatted afresh; the client resumes over them.
    let state = client.suspend().restarted();
    let new = Mem::new();
    let mut client = RingClient::resume(new.sq(), new.cq(), state);
    assert_eq!(client.in_flight(), 0, "the lost entries count no more");
    assert_eq!(client.reap(), Ok(None), "nothing of the old rings is read");

    // Every slot can be used again, and no new ticket is an old one.
    let fresh: Vec<Ticket> = (0..DEPTH)
        .map(|_| client.submit_op(&mut data, memfs::NOP, &[]).unwrap())
        .collect();
    assert!(fresh.iter().all(|t| !lost.contains(t) && *t != reaped));
    assert_eq!(
        client.submit_op(&mut data, memfs::NOP, &[]),
        Err(RingError::Full { depth: DEPTH })
    );
    let mut server = new.server();
    let served = side.serve(&mut server, &mut data).unwrap();
    assert_eq!(served.len(), DEPTH as usize);
    let mut answered: Vec<Ticket> = core::iter::from_fn(|| client.reap().unwrap())
        .map(|r| {
            assert_eq!(r.completion.status, code::OK);
            r.ticket
        })
        .collect();
    answered.sort_by_key(|t| t.tag());
    let mut want = fresh.clone();
    want.sort_by_key(|t| t.tag());
    assert_eq!(answered, want);
}

#[test]
fn an_answer_naming_a_lost_ticket_is_refused() {
    let old = Mem::new();
    let mut client = old.client();
    let mut data = vec![0u8; DATA_LEN];
    let lost = client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    let new = Mem::new();
    let mut client = RingClient::resume(new.sq(), new.cq(), client.suspend().restarted());
    // The same slot again, under its next use count.
    let t = client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    assert_eq!(t.tag() & (DEPTH - 1), lost.tag() & (DEPTH - 1));
    assert_ne!(t, lost);
    // A confused (or old) server answers the lost ticket.
    let mut forger = new.cq().into_producer();
    forger
        .push(Descriptor {
            offset: 0,
            len: 0,
            id: lost.tag(),
        })
        .unwrap();
    assert_eq!(
        client.reap(),
        Err(RingError::BadCompletion {
            tag: lost.tag(),
            status: 0
        })
    );
    assert_eq!(client.in_flight(), 1, "the new entry is still awaited");
}
