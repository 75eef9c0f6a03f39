//! Host tests of "take now, complete later": entries a server keeps
//! (`Served::Deferred`) and answers with `RingServer::complete`, in any
//! order, with the completion ring's room kept for each.

use super::tests::{Mem, Side, DATA_LEN, TARGET};
use super::*;
use crate::code;
use crate::memfs::{self, MemFs};
use crate::CallError;

/// Keeps every failed `read` (a bad handle stands in for "nothing to
/// read yet"), as the network server keeps a `recv` on an empty socket.
#[derive(Default)]
struct KeepReads {
    kept: Vec<(u32, u16, Vec<u64>, CallError)>,
}

impl Defer for KeepReads {
    fn defer(&mut self, tag: u32, op: u16, words: &[u64], error: CallError) -> bool {
        if op != memfs::READ {
            return false;
        }
        self.kept.push((tag, op, words.to_vec(), error));
        true
    }
}

/// Serves with `keep` until the ring is empty or backlogged.
fn serve(
    side: &mut Side,
    server: &mut RingServer<'_>,
    data: &mut [u8],
    keep: &mut KeepReads,
) -> Vec<Served> {
    let mut fs = MemFs::new(&mut side.backing, 512);
    let mut scratch = Scratch {
        insns: &mut side.insns,
        results: &mut side.results,
    };
    let mut regions = [&mut side.region[..]];
    let mut out = Vec::new();
    loop {
        let deferred = keep.kept.len() as u32;
        let served = server
            .serve_one_deferring(
                data,
                &mut fs,
                &mut regions,
                &TARGET,
                &mut scratch,
                deferred,
                keep,
            )
            .unwrap();
        match served {
            Served::Empty | Served::Backlogged => return out,
            s => out.push(s),
        }
    }
}

/// A read of handle 77 (never opened): fails with `EBADF`.
fn bad_read(client: &mut RingClient<'_>, data: &mut [u8]) -> Ticket {
    client
        .submit_op(data, memfs::READ, &[77, super::tests::pack(0, 0, 8), 8])
        .unwrap()
}

#[test]
fn a_full_depth_of_deferred_entries_all_complete_later_in_any_order() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    let mut keep = KeepReads::default();
    let tickets: Vec<Ticket> = (0..DEPTH)
        .map(|_| bad_read(&mut client, &mut data))
        .collect();
    // Deferred entries are still in flight: the 33rd is refused.
    assert_eq!(
        client.submit_op(&mut data, memfs::NOP, &[]),
        Err(RingError::Full { depth: DEPTH })
    );
    let served = serve(&mut side, &mut server, &mut data, &mut keep);
    assert_eq!(served.len(), DEPTH as usize);
    assert!(served.iter().all(|s| matches!(s, Served::Deferred(_))));
    assert_eq!(keep.kept.len(), DEPTH as usize);
    // The words were copied out whole, the error is the call's.
    let (_, op, words, error) = &keep.kept[0];
    assert_eq!((*op, words.len()), (memfs::READ, 3));
    assert_eq!(*error, CallError::Service(memfs::EBADF));
    assert_eq!(client.reap(), Ok(None));
    // Answered in reverse order: each lands, and matches its ticket.
    for (tag, _, _, _) in keep.kept.iter().rev() {
        server
            .complete(Completion {
                tag: *tag,
                status: code::OK,
                value: u64::from(*tag) + 1,
            })
            .unwrap();
    }
    let mut reaped: Vec<Reaped> = core::iter::from_fn(|| client.reap().unwrap()).collect();
    assert_eq!(reaped.len(), DEPTH as usize);
    assert_eq!(reaped[0].ticket, tickets[DEPTH as usize - 1]);
    reaped.sort_by_key(|r| r.ticket.tag());
    for (r, t) in reaped.iter().zip(&tickets) {
        assert_eq!(r.ticket, *t);
        assert_eq!(r.completion.value, u64::from(t.tag()) + 1);
    }
    assert_eq!(client.in_flight(), 0);
}

#[test]
fn deferred_entries_keep_their_room_in_the_completion_ring() {
    let mem = Mem::new();
    let (mut server, mut side) = (mem.server(), Side::new());
    let mut hostile = mem.sq().into_producer();
    let mut data = vec![0u8; DATA_LEN];
    let len = entry::write_op(&mut data[..64], memfs::NOP, &[]).unwrap() as u32;
    for id in 0..DEPTH {
        hostile
            .push(conflux_queue::Descriptor { offset: 0, len, id })
            .unwrap();
    }
    // With 31 kept, 1 place is free for the 32 NOPs waiting: only 1 is
    // taken, and the rest wait untaken (the client broke its depth).
    let mut keep = KeepReads::default();
    for t in 0..DEPTH - 1 {
        keep.kept
            .push((1000 + t, memfs::READ, Vec::new(), CallError::OutOfBounds));
    }
    let served = serve(&mut side, &mut server, &mut data, &mut keep);
    assert_eq!(served.len(), 1);
    assert_eq!(hostile.free(), Ok(1));
    // The 31 kept answers still fit.
    for t in 0..DEPTH - 1 {
        server
            .complete(Completion {
                tag: 1000 + t,
                status: code::OK,
                value: 0,
            })
            .unwrap();
    }
    // And one more than the ring holds is the connection's end, not a
    // lost answer or a panic.
    let extra = Completion {
        tag: 5,
        status: code::OK,
        value: 0,
    };
    assert_eq!(server.complete(extra), Err(RingError::Corrupt));
}

#[test]
fn malformed_entries_and_compounds_are_never_deferred() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    let mut keep = KeepReads::default();
    // A read whose buffer lies outside its region: refused, not kept.
    client
        .submit_op(
            &mut data,
            memfs::READ,
            &[77, super::tests::pack(0, 250, 64), 64],
        )
        .unwrap();
    // A compound whose read fails runs to its end: no op in it waits.
    let mut b = crate::Builder::new();
    let n = b.reg();
    let into = b.buf(0, 0, 8);
    b.call(n, memfs::READ, (77u64, into, 8u64));
    b.exit(n);
    client
        .submit_compound(&mut data, &b.build().unwrap(), &[])
        .unwrap();
    let served = serve(&mut side, &mut server, &mut data, &mut keep);
    assert!(keep.kept.is_empty());
    let statuses: Vec<u16> = served
        .iter()
        .map(|s| match s {
            Served::Completed(c) => c.status,
            other => panic!("not completed: {other:?}"),
        })
        .collect();
    assert_eq!(statuses, [code::REF_OUT_OF_BOUNDS, code::OK]);
}
