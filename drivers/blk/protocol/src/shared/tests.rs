//! The block connection's two ends on one region: requests, refusals,
//! driver restarts and client sessions.

use super::*;

/// Room for a data area larger than one maximal transfer.
const LEN: usize = DATA + MAX_TRANSFER as usize + 8 * 4096;

struct Mem(&'static mut [u8]);

/// A leaked, zeroed, page-aligned region.
fn region() -> Mem {
    let layout = std::alloc::Layout::from_size_align(LEN, 4096).unwrap();
    // Safety: a fresh zeroed allocation of LEN bytes, leaked.
    Mem(unsafe { core::slice::from_raw_parts_mut(std::alloc::alloc_zeroed(layout), LEN) })
}

#[test]
fn a_request_goes_round_with_its_status() {
    let mem = region();
    let (base, len) = (mem.0.as_mut_ptr(), LEN);
    // Safety: a leaked, page-aligned buffer that outlives both ends.
    let mut client = unsafe { Client::format(base, len, 100) }.unwrap();
    // Safety: the leaked, page-aligned test region outlives both ends.
    let mut server = unsafe { Server::attach(base, len) }.unwrap();
    assert_eq!(server.next_request(), Ok(None));
    client.submit(3, Op::Write as u32, 8, 4096, 1024).unwrap();
    let req = server.next_request().unwrap().unwrap().unwrap();
    assert_eq!(
        req,
        Request {
            id: 3,
            op: Op::Write,
            block: 8,
            offset: 4096,
            len: 1024
        }
    );
    let d = Descriptor {
        offset: req.offset,
        len: req.len,
        id: req.id,
    };
    server.respond(d, Status::Ok).unwrap();
    assert_eq!(client.complete(), Ok(Some((3, Status::Ok))));
    assert_eq!(client.complete(), Ok(None));
}

#[test]
fn hostile_requests_are_refused_with_a_reason() {
    let mem = region();
    let (base, len) = (mem.0.as_mut_ptr(), LEN);
    // Safety: as above.
    let mut client = unsafe { Client::format(base, len, 100) }.unwrap();
    // Safety: the leaked, page-aligned test region outlives both ends.
    let mut server = unsafe { Server::attach(base, len) }.unwrap();
    assert_eq!(
        server.start(),
        Ok(0),
        "a fresh session has nothing to recover"
    );
    assert!(client.attached());
    let data = client.data_len();
    let cases = [
        (1, 9, 0, 0, 512, Status::BadOp),
        (2, Op::Read as u32, 0, 0, 100, Status::BadLength),
        (3, Op::Read as u32, 0, 0, 0, Status::BadLength),
        (
            4,
            Op::Read as u32,
            0,
            0,
            MAX_TRANSFER + 512,
            Status::BadLength,
        ),
        (
            5,
            Op::Read as u32,
            0,
            data - 512,
            1024,
            Status::BadDescriptor,
        ),
        (
            6,
            Op::Read as u32,
            0,
            u64::MAX - 10,
            512,
            Status::BadDescriptor,
        ),
        (
            CAPACITY + 7,
            Op::Read as u32,
            0,
            0,
            512,
            Status::BadDescriptor,
        ),
    ];
    for (id, op, block, offset, n, want) in cases {
        client.submit(id, op, block, offset, n).unwrap();
        let got = server.next_request().unwrap().unwrap();
        assert_eq!(got.map_err(|r| r.status), Err(want), "id {id}");
    }
    // A restarted driver answers what the old one took and dropped.
    // Safety: the leaked, page-aligned test region outlives both ends.
    let mut again = unsafe { Server::attach(base, len) }.unwrap();
    assert_eq!(
        again.start(),
        Ok(0),
        "every refused request was not in flight"
    );
    client.submit(9, Op::Read as u32, 0, 0, 512).unwrap();
    assert!(matches!(server.next_request(), Ok(Some(Ok(_)))));
    while client.complete().unwrap().is_some() {}
    assert_eq!(again.start(), Ok(1));
    assert_eq!(client.complete(), Ok(Some((9, Status::Restarted))));
    // A flush needs no data.
    client.submit(8, Op::Flush as u32, 0, 0, 0).unwrap();
    assert_eq!(
        server.next_request().unwrap().unwrap().map(|r| r.op),
        Ok(Op::Flush)
    );
}

#[test]
fn a_small_or_unformatted_region_is_refused() {
    let mem = region();
    let base = mem.0.as_mut_ptr();
    // Safety: as above.
    assert!(matches!(
        // Safety: the leaked, page-aligned test region outlives both ends.
        unsafe { Server::attach(base, LEN) },
        Err(LinkError::NotFormatted)
    ));
    assert!(matches!(
        // Safety: the leaked, page-aligned test region outlives both ends.
        unsafe { Client::format(base, DATA, 100) },
        Err(LinkError::TooSmall)
    ));
}

/// A client and a driver on a fresh region, attached.
fn connected(mem: &mut Mem, nonce: u64) -> (Client, Server) {
    let base = mem.0.as_mut_ptr();
    // Safety: the leaked, page-aligned test region outlives both ends.
    let client = unsafe { Client::format(base, LEN, nonce) }.unwrap();
    assert!(!client.attached(), "attached before the driver started");
    // Safety: as above.
    let mut server = unsafe { Server::attach(base, LEN) }.unwrap();
    server.start().unwrap();
    assert!(client.attached());
    (client, server)
}

#[test]
fn a_restarted_client_starts_a_new_session_that_gets_no_old_answers() {
    let mut mem = region();
    let (mut old, mut server) = connected(&mut mem, 100);
    assert_eq!((old.session(), old.previous_session()), (100, 0));
    old.submit(1, Op::Write as u32, 0, 0, 512).unwrap();
    old.submit(2, Op::Write as u32, 8, 512, 512).unwrap();
    // The driver took request 1 to the device; 2 is still on the ring.
    assert!(matches!(server.next_request(), Ok(Some(Ok(_)))));
    // The client dies and its next instance formats the region again.
    let base = mem.0.as_mut_ptr();
    // Safety: as above.
    let mut new = unsafe { Client::format(base, LEN, 200) }.unwrap();
    assert_eq!((new.session(), new.previous_session()), (200, 100));
    assert!(!server.current(), "the driver sees the session end");
    assert!(!new.attached(), "not served before the driver attaches");
    // The old session's ring is gone: nothing of it is taken any more.
    assert!(!matches!(server.next_request(), Ok(Some(_))));
    // Once the device has finished request 1 (its answer dropped), the
    // driver attaches to the new session; nothing is answered Restarted.
    // Safety: as above.
    let mut fresh = unsafe { Server::attach(base, LEN) }.unwrap();
    assert_eq!(fresh.session(), 200);
    assert_eq!(
        fresh.start(),
        Ok(0),
        "the old session's requests are not the new one's"
    );
    assert!(new.attached());
    assert_eq!(new.complete(), Ok(None));
    new.submit(1, Op::Read as u32, 0, 0, 512).unwrap();
    let req = fresh.next_request().unwrap().unwrap().unwrap();
    assert_eq!((req.id, req.op), (1, Op::Read));
}

#[test]
fn a_request_popped_while_the_client_formats_is_not_taken() {
    let mut mem = region();
    let (mut client, mut server) = connected(&mut mem, 100);
    client.submit(4, Op::Read as u32, 0, 0, 512).unwrap();
    // The client has begun a new session (session 0) but not finished.
    server.words.session.store(0, Ordering::SeqCst);
    assert_eq!(server.next_request(), Ok(None));
    assert!(
        client.table.has_status(4, Status::Pending as u32),
        "not marked in flight"
    );
    // Safety: as above.
    let attach = unsafe { Server::attach(mem.0.as_mut_ptr(), LEN) };
    assert!(
        matches!(attach, Err(LinkError::NotFormatted)),
        "no session to attach to"
    );
}

#[test]
fn a_restarted_driver_recovers_only_its_own_session() {
    let mut mem = region();
    let (mut client, mut server) = connected(&mut mem, 100);
    client.submit(5, Op::Read as u32, 0, 0, 512).unwrap();
    assert!(matches!(server.next_request(), Ok(Some(Ok(_)))));
    // The driver restarts: same session, so request 5 was its own.
    // Safety: as above.
    let mut again = unsafe { Server::attach(mem.0.as_mut_ptr(), LEN) }.unwrap();
    assert_eq!(again.start(), Ok(1));
    assert_eq!(client.complete(), Ok(Some((5, Status::Restarted))));
    assert!(client.attached());
}

#[test]
fn a_full_request_ring_refuses_one_more_until_an_answer_is_taken() {
    let mut mem = region();
    let (mut client, mut server) = connected(&mut mem, 7);
    for id in 0..CAPACITY {
        client.submit(id, Op::Read as u32, 0, 0, 512).unwrap();
    }
    assert_eq!(
        client.submit(CAPACITY, Op::Read as u32, 0, 0, 512),
        Err(LinkError::Full),
        "one past CAPACITY in flight"
    );
    // The driver takes one and answers it; the client takes the answer,
    // and there is room for one more again.
    let req = server.next_request().unwrap().unwrap().unwrap();
    let d = Descriptor {
        offset: req.offset,
        len: req.len,
        id: req.id,
    };
    server.respond(d, Status::Ok).unwrap();
    assert_eq!(client.complete(), Ok(Some((0, Status::Ok))));
    client.submit(0, Op::Read as u32, 0, 0, 512).unwrap();
    // Every request still reaches the driver intact, in order.
    let rest: Vec<u32> = core::iter::from_fn(|| server.next_request().unwrap())
        .map(|r| r.unwrap().id)
        .collect();
    let want: Vec<u32> = (1..CAPACITY).chain([0]).collect();
    assert_eq!(rest, want);
}
