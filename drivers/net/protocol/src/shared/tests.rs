//! Both ends over leaked host memory: frames both ways, hostile
//! descriptors refused with their reason, back-pressure, detach, and a
//! restarted driver answering what its previous instance held, and a
//! restarted client's new session.

use super::*;
use crate::{Link, DATA};

const LEN: usize = DATA + 64 * 1024;
const SLOT: u64 = 2048;
const MAC: [u8; 6] = [0x52, 0x54, 0, 0x12, 0x34, 0x56];

/// A leaked, zeroed, page-aligned region.
fn region() -> *mut u8 {
    let layout = std::alloc::Layout::from_size_align(LEN, 4096).unwrap();
    // Safety: a fresh zeroed allocation of LEN bytes, leaked.
    unsafe { std::alloc::alloc_zeroed(layout) }
}

fn pair() -> (Client, Server) {
    let base = region();
    // Safety: a leaked, page-aligned buffer that outlives both ends.
    let client = unsafe { Client::format(base, LEN, 100) }.unwrap();
    // Safety: as above.
    let server = unsafe { Server::attach(base, LEN) }.unwrap();
    (client, server)
}

#[test]
fn mac_and_link_reach_the_client() {
    let (client, mut server) = pair();
    assert_eq!(client.mac(), None);
    assert_eq!(client.link(), Link::Unattached);
    assert!(!client.attached());
    server
        .start([0x52, 0x54, 0, 0x12, 0x34, 0x56], Link::Up)
        .unwrap();
    assert!(client.attached());
    assert_eq!(client.mac(), Some([0x52, 0x54, 0, 0x12, 0x34, 0x56]));
    assert_eq!(client.link(), Link::Up);
}

#[test]
fn a_frame_goes_out_and_one_comes_in() {
    let (mut client, mut server) = pair();
    assert_eq!(server.next_tx(), Ok(None));
    client.send(3, SLOT + HEADROOM, 60).unwrap();
    let f = server.next_tx().unwrap().unwrap().unwrap();
    assert_eq!((f.start, f.len), (SLOT, 72));
    assert_eq!(client.sent(), Ok(None));
    server.tx_done(f.descriptor, Status::Ok).unwrap();
    assert_eq!(client.sent(), Ok(Some((3, Status::Ok))));

    client.offer(5, 2 * SLOT + HEADROOM, 2000).unwrap();
    let b = server.next_rx_buffer().unwrap().unwrap().unwrap();
    assert_eq!((b.start, b.len), (2 * SLOT, HEADROOM as u32 + MAX_FRAME));
    server.rx_done(b.descriptor, Status::Ok, 42).unwrap();
    let (d, status) = client.received().unwrap().unwrap();
    assert_eq!(status, Status::Ok);
    assert_eq!((d.offset, d.len, d.id), (2 * SLOT + HEADROOM, 42, 5));
}

#[test]
fn hostile_descriptors_are_refused_with_a_reason() {
    let (mut client, mut server) = pair();
    let data = client.data_len();
    let tx_cases = [
        (1, HEADROOM, MAX_FRAME + 1, Status::BadLength),
        (2, HEADROOM, MIN_FRAME - 1, Status::BadLength),
        (3, HEADROOM, 0, Status::BadLength),
        (4, 0, 60, Status::BadDescriptor),
        (5, HEADROOM - 1, 60, Status::BadDescriptor),
        (6, data - 59, 60, Status::BadDescriptor),
        (7, u64::MAX - 10, 60, Status::BadDescriptor),
        (CAPACITY, HEADROOM, 60, Status::BadDescriptor),
    ];
    for (id, offset, len, want) in tx_cases {
        client.send(id, offset, len).unwrap();
        let got = server.next_tx().unwrap().unwrap();
        let refused = got.expect_err("refused");
        assert_eq!(refused.status, want, "tx id {id}");
        server.tx_done(refused.descriptor, refused.status).unwrap();
        let back = client.sent().unwrap().unwrap();
        let want_seen = if id >= CAPACITY {
            Status::BadDescriptor
        } else {
            want
        };
        assert_eq!(back, (id, want_seen), "tx id {id}");
    }
    let rx_cases = [
        (1, HEADROOM, MAX_FRAME - 1, Status::TooSmall),
        (2, 0, 2000, Status::BadDescriptor),
        (3, data - 1000, 2000, Status::BadDescriptor),
        (4, u64::MAX, 2000, Status::BadDescriptor),
    ];
    for (id, offset, len, want) in rx_cases {
        client.offer(id, offset, len).unwrap();
        let refused = server.next_rx_buffer().unwrap().unwrap().unwrap_err();
        assert_eq!(refused.status, want, "rx id {id}");
        server
            .rx_done(refused.descriptor, refused.status, 0)
            .unwrap();
        let (d, status) = client.received().unwrap().unwrap();
        assert_eq!((d.id, status), (id, want), "rx id {id}");
    }
    // And a good frame still goes through.
    client.send(0, HEADROOM, MIN_FRAME).unwrap();
    assert!(matches!(server.next_tx(), Ok(Some(Ok(_)))));
    // An exact fit at the end of the data area is fine.
    client.send(1, data - 60, 60).unwrap();
    assert!(matches!(server.next_tx(), Ok(Some(Ok(_)))));
}

#[test]
fn a_client_that_never_drains_stalls_only_itself() {
    let (mut client, mut server) = pair();
    for id in 0..CAPACITY {
        client.send(id, HEADROOM, 60).unwrap();
    }
    let mut taken = Vec::new();
    while let Some(f) = server.next_tx().unwrap() {
        taken.push(f.unwrap());
    }
    assert_eq!(taken.len(), CAPACITY as usize);
    for f in &taken {
        server.tx_done(f.descriptor, Status::Ok).unwrap();
    }
    // tx-done is full and the client refills tx without draining it.
    for id in 0..CAPACITY {
        client.send(id, HEADROOM, 60).unwrap();
    }
    assert_eq!(
        server.next_tx(),
        Ok(None),
        "no room to answer: nothing taken"
    );
    assert_eq!(
        server.prepare_to_wait(),
        Ok(true),
        "and the driver may sleep"
    );
    // (Its status entry reads Pending: the client reused the id.)
    assert_eq!(client.sent().unwrap().map(|(id, _)| id), Some(0));
    assert!(matches!(server.next_tx(), Ok(Some(Ok(_)))));
    assert_eq!(server.next_tx(), Ok(None));
}

#[test]
fn detach_is_asked_and_confirmed() {
    let (client, mut server) = pair();
    assert!(!server.detach_requested());
    assert_eq!(server.prepare_to_wait(), Ok(true));
    client.detach();
    assert!(server.detach_requested());
    assert_eq!(server.prepare_to_wait(), Ok(false));
    assert!(!client.detached());
    server.confirm_detach();
    assert!(client.detached());
}

#[test]
fn a_small_or_unformatted_region_is_refused() {
    let base = region();
    assert!(matches!(
        // Safety: the leaked, page-aligned test region outlives the end.
        unsafe { Server::attach(base, LEN) },
        Err(LinkError::NotFormatted)
    ));
    assert!(matches!(
        // Safety: as above.
        unsafe { Client::format(base, DATA, 1) },
        Err(LinkError::TooSmall)
    ));
}

/// The driver dies holding frames and buffers; a new instance attaches to
/// the same region and answers exactly those `Restarted`, once.
#[test]
fn a_restarted_driver_answers_what_the_previous_one_held() {
    let base = region();
    // Safety: a leaked, page-aligned buffer that outlives every end.
    let mut client = unsafe { Client::format(base, LEN, 100) }.unwrap();
    // Safety: as above.
    let mut old = unsafe { Server::attach(base, LEN) }.unwrap();
    assert_eq!(old.start(MAC, Link::Up).unwrap().0, Recovered::default());
    for id in 0..4 {
        client
            .send(id, SLOT * u64::from(id + 1) + HEADROOM, 60)
            .unwrap();
        client
            .offer(id, SLOT * u64::from(id + 8) + HEADROOM, 2000)
            .unwrap();
    }
    client.send(9, 0, 60).unwrap(); // refused: no headroom
                                    // Taken: tx 0..3 (tx 0 answered), the refused 9 (answered), rx 0..2
                                    // (rx 1 answered). Left on the rings: rx 3.
    for _ in 0..5 {
        assert!(old.next_tx().unwrap().is_some());
    }
    let rx: Vec<_> = (0..3)
        .map(|_| old.next_rx_buffer().unwrap().unwrap().unwrap())
        .collect();
    let tx0 = Descriptor {
        offset: SLOT + HEADROOM,
        len: 60,
        id: 0,
    };
    old.tx_done(tx0, Status::Ok).unwrap();
    let refused = Descriptor {
        offset: 0,
        len: 60,
        id: 9,
    };
    old.tx_done(refused, Status::BadDescriptor).unwrap();
    old.rx_done(rx[1].descriptor, Status::Ok, 42).unwrap();
    // The old instance dies here (never used again): only the region remains.

    // Safety: as above; the region is still formatted.
    let mut new = unsafe { Server::attach(base, LEN) }.unwrap();
    let (got, _) = new.start(MAC, Link::Up).unwrap();
    assert_eq!(got, Recovered { tx: 3, rx: 2 });
    let mut sent = Vec::new();
    while let Some(s) = client.sent().unwrap() {
        sent.push(s);
    }
    let restarted = |id| (id, Status::Restarted);
    assert_eq!(
        sent,
        [
            (0, Status::Ok),
            (9, Status::BadDescriptor),
            restarted(1),
            restarted(2),
            restarted(3)
        ]
    );
    let mut received = Vec::new();
    while let Some((d, s)) = client.received().unwrap() {
        received.push((d.id, d.len, s));
    }
    assert_eq!(
        received,
        [
            (1, 42, Status::Ok),
            (0, 0, Status::Restarted),
            (2, 0, Status::Restarted)
        ]
    );
    // Answered once: a second recovery finds nothing.
    assert_eq!(new.recover().unwrap().0, Recovered::default());
    // What the old instance never took is served by the new one.
    let b = new.next_rx_buffer().unwrap().unwrap().unwrap();
    assert_eq!(b.descriptor.id, 3);
    assert_eq!(new.next_tx(), Ok(None));
    // And the client goes on: a frame sent again goes through.
    client.send(1, SLOT + HEADROOM, 60).unwrap();
    let f = new.next_tx().unwrap().unwrap().unwrap();
    new.tx_done(f.descriptor, Status::Ok).unwrap();
    assert_eq!(client.sent(), Ok(Some((1, Status::Ok))));
}

/// A descriptor outside the data area is refused even though its offset
/// has headroom and its length is fine.
#[test]
fn out_of_bounds_is_refused_whatever_else_fits() {
    let (mut client, mut server) = pair();
    let data = client.data_len();
    client.send(2, data - 30, 60).unwrap();
    let refused = server.next_tx().unwrap().unwrap().unwrap_err();
    assert_eq!(refused.status, Status::BadDescriptor);
}

/// A client that marks its own entries `InFlight` gets answers for
/// buffers it never handed over, and nothing worse.
#[test]
fn forged_in_flight_entries_confuse_only_their_client() {
    let (mut client, mut server) = pair();
    for id in 0..CAPACITY {
        client.send(id, HEADROOM, 60).unwrap();
    }
    for _ in 0..CAPACITY {
        let f = server.next_tx().unwrap().unwrap().unwrap();
        server.tx_done(f.descriptor, Status::Ok).unwrap();
    }
    // tx-done is full of answers the client has not read; it now forges
    // every tx entry as `InFlight`.
    for e in server.parts.tx_status {
        e.store(Status::InFlight as u32, Ordering::Relaxed);
    }
    assert_eq!(server.recover(), Err(LinkError::Full));
    assert_eq!(client.sent().unwrap().map(|(id, _)| id), Some(0));
}

/// A restarted client formats the region again: the driver's old end sees
/// its session end (and takes nothing more from it), a new end attaches to
/// the new session, and answers nothing `Restarted` there, whatever the old
/// instance's table said.
#[test]
fn a_restarted_client_begins_a_new_session() {
    let base = region();
    // Safety: a leaked, page-aligned buffer that outlives every end.
    let mut first = unsafe { Client::format(base, LEN, 100) }.unwrap();
    assert_eq!(first.previous_session(), 0);
    // Safety: as above.
    let mut old = unsafe { Server::attach(base, LEN) }.unwrap();
    old.start(MAC, Link::Up).unwrap();
    first.offer(0, SLOT + HEADROOM, 2000).unwrap();
    first.send(1, 2 * SLOT + HEADROOM, 60).unwrap();
    assert!(old.next_rx_buffer().unwrap().is_some());
    assert!(old.current());

    // The client dies with rx 0 on the device and tx 1 on the ring.
    // Safety: as above.
    let mut second = unsafe { Client::format(base, LEN, 100) }.unwrap();
    assert_eq!(second.previous_session(), 100);
    assert!(!second.attached());
    assert_eq!(second.mac(), None);
    assert!(!old.current());
    assert_eq!(old.next_tx(), Ok(None), "a stale end takes nothing");
    let stale = Descriptor {
        offset: SLOT + HEADROOM,
        len: 0,
        id: 0,
    };
    assert_eq!(old.rx_done(stale, Status::Ok, 60), Ok(false));
    assert_eq!(old.tx_done(stale, Status::Ok), Ok(false));

    // Safety: as above.
    let mut new = unsafe { Server::attach(base, LEN) }.unwrap();
    assert_ne!(new.session(), old.session());
    assert_eq!(new.start(MAC, Link::Up).unwrap().0, Recovered::default());
    assert!(second.attached());
    assert_eq!(second.mac(), Some(MAC));
    assert_eq!(second.received(), Ok(None));
    assert_eq!(second.sent(), Ok(None));
    second.send(2, 3 * SLOT + HEADROOM, 60).unwrap();
    assert_eq!(old.next_tx(), Ok(None), "a stale end takes nothing");
    let f = new.next_tx().unwrap().unwrap().unwrap();
    assert_eq!(f.descriptor.id, 2);
}

/// While the client formats (session 0), no driver attaches.
#[test]
fn no_driver_attaches_to_a_session_being_formatted() {
    let base = region();
    // Safety: a leaked, page-aligned buffer that outlives every end.
    let client = unsafe { Client::format(base, LEN, 7) }.unwrap();
    client.parts.header.session.store(0, Ordering::SeqCst);
    assert!(matches!(
        // Safety: as above.
        unsafe { Server::attach(base, LEN) },
        Err(LinkError::NotFormatted)
    ));
}
