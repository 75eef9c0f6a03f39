//! Host tests of the rings: byte layouts, both ends over one memory, the
//! depth contract, signal-me both ways, hostile peers, and proptests.
//!
//! Rings live in ordinary memory (`Header::new`, `Slot::new`) so each
//! test holds both ends at once; a hostile peer is a second handle on the
//! same ring, which can write any slot but not forge an index (the queue
//! checks its own), so impossible indices are written into a formatted
//! byte region between two attaches.

use conflux_queue::{DataRegion, Descriptor, Header, Ring, Slot};
use proptest::prelude::*;

use super::entry::{self, write_op};
use super::*;
use crate::memfs::{self, MemFs};
use crate::wire::NO_OP;
use crate::{code, Builder, Compound, Insn, OpResult, Outcome};

pub(super) const DATA_LEN: usize = 16384;

/// A buffer operand word as `cosy-ipc` packs it: offset bits 0..32,
/// length 32..56, region 56..64.
fn buf_word(w: u64) -> (usize, usize, usize) {
    (
        (w >> 56) as usize,
        w as u32 as usize,
        ((w >> 32) & 0xFF_FFFF) as usize,
    )
}

pub(super) fn pack(region: u64, offset: u64, len: u64) -> u64 {
    region << 56 | len << 32 | offset
}

pub(super) const TARGET: ServeTarget = ServeTarget {
    buf: buf_word,
    max_steps: 1000,
};

/// Two rings in ordinary memory.
pub(super) struct Mem {
    sq: (Header, Vec<Slot>),
    cq: (Header, Vec<Slot>),
}

impl Mem {
    pub(super) fn new() -> Self {
        let ring = || {
            (
                Header::new(DEPTH),
                (0..DEPTH).map(|_| Slot::new()).collect(),
            )
        };
        Mem {
            sq: ring(),
            cq: ring(),
        }
    }

    pub(super) fn sq(&self) -> Ring<'_> {
        Ring::from_parts(&self.sq.0, &self.sq.1).unwrap()
    }

    pub(super) fn cq(&self) -> Ring<'_> {
        Ring::from_parts(&self.cq.0, &self.cq.1).unwrap()
    }

    pub(super) fn client(&self) -> RingClient<'_> {
        RingClient::new(self.sq(), self.cq(), DATA_LEN)
    }

    pub(super) fn server(&self) -> RingServer<'_> {
        RingServer::new(self.sq(), self.cq(), DATA_LEN)
    }
}

/// The service side: a MemFs with one file, and one client region.
pub(super) struct Side {
    pub(super) backing: Vec<u8>,
    pub(super) region: Vec<u8>,
    pub(super) insns: [Insn; 32],
    pub(super) results: [OpResult; 32],
}

impl Side {
    pub(super) fn new() -> Self {
        let mut region = vec![0u8; 256];
        region[..2].copy_from_slice(b"in");
        Side {
            backing: vec![0u8; 8 * 512],
            region,
            insns: [Insn::EMPTY; 32],
            results: [OpResult::EMPTY; 32],
        }
    }

    /// Serves until the ring is empty or backlogged; the completions.
    pub(super) fn serve(
        &mut self,
        server: &mut RingServer<'_>,
        data: &mut [u8],
    ) -> Result<Vec<Completion>, RingError> {
        let mut fs = MemFs::new(&mut self.backing, 512);
        fs.create(b"in", &[7u8; 100]).unwrap();
        let mut scratch = Scratch {
            insns: &mut self.insns,
            results: &mut self.results,
        };
        let mut regions = [&mut self.region[..]];
        let mut out = Vec::new();
        while let Served::Completed(c) =
            server.serve_one(data, &mut fs, &mut regions, &TARGET, &mut scratch)?
        {
            out.push(c);
        }
        Ok(out)
    }
}

fn reap_all(client: &mut RingClient<'_>) -> Vec<Reaped> {
    core::iter::from_fn(|| client.reap().unwrap()).collect()
}

/// `exit(r0 + 5)`, with a NOP call first.
fn add_five() -> Vec<u8> {
    let mut b = Builder::new();
    let x = b.reg();
    b.call_void(memfs::NOP, ());
    b.add(x, x, 5u64);
    b.exit(x);
    b.build().unwrap()
}

#[repr(C, align(64))]
struct Aligned([u8; 0x800 + 8192]);

#[test]
fn a_region_is_laid_out_as_documented() {
    let mut mem = Aligned([0xFF; 0x800 + 8192]);
    assert_eq!(Parts::format(&mut mem.0).unwrap().data.len(), 8192);
    for ring in [SUBMISSIONS, COMPLETIONS] {
        assert_eq!(
            mem.0[ring..ring + 8],
            *b"CfxQ\x20\0\0\0",
            "ring at {ring:#x}"
        );
    }
    assert!(Parts::attach(&mut mem.0).is_ok());
    let mut fresh = Aligned([0; 0x800 + 8192]);
    assert_eq!(
        Parts::attach(&mut fresh.0).err(),
        Some(RingError::NotFormatted)
    );
    assert_eq!(
        Parts::attach(&mut fresh.0[..0x800 + 4095]).err(),
        Some(RingError::TooSmall {
            need: 0x800 + 4096,
            have: 0x800 + 4095
        })
    );
    assert_eq!(
        Parts::format(&mut fresh.0[8..]).err(),
        Some(RingError::Misaligned)
    );
}

#[test]
fn operations_and_compounds_complete_with_their_tags() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    let nop = client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    let open = client
        .submit_op(&mut data, memfs::OPEN, &[pack(0, 0, 2), memfs::O_RDONLY, 0])
        .unwrap();
    let compound = client
        .submit_compound(&mut data, &add_five(), &[37])
        .unwrap();
    assert_eq!(client.in_flight(), 3);
    let served = side.serve(&mut server, &mut data).unwrap();
    assert_eq!(served.len(), 3);
    let reaped = reap_all(&mut client);
    assert_eq!(client.in_flight(), 0);
    let by = |t: Ticket| reaped.iter().find(|r| r.ticket == t).unwrap().clone();
    assert_eq!(by(nop).completion.status, code::OK);
    assert_eq!(by(open).completion.status, code::OK);
    assert!(by(open).compound.is_none());
    let c = by(compound);
    assert_eq!((c.completion.status, c.completion.value), (code::OK, 42));
    let report = Compound::new_checked(&data[c.compound.unwrap()])
        .unwrap()
        .report();
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.exit_value, 42);
    // Suspended and resumed (a client that maps its region per call),
    // the slots and tags carry on.
    let state = client.suspend();
    let mut client = RingClient::resume(mem.sq(), mem.cq(), state);
    assert_eq!(server.unreaped(), Ok(0));
    // The same slot is reused with a new tag.
    let again = client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    assert_ne!(again, nop);
    assert_eq!(again.tag() & (DEPTH - 1), nop.tag() & (DEPTH - 1));
}

#[test]
fn depth_is_a_contract_at_and_past_it() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    for _ in 0..DEPTH {
        client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    }
    assert_eq!(
        client.submit_op(&mut data, memfs::NOP, &[]),
        Err(RingError::Full { depth: DEPTH })
    );
    // Served but not reaped: still in flight, still full.
    assert_eq!(
        side.serve(&mut server, &mut data).unwrap().len(),
        DEPTH as usize
    );
    assert_eq!(
        client.submit_compound(&mut data, &add_five(), &[]),
        Err(RingError::Full { depth: DEPTH })
    );
    assert!(client.reap().unwrap().is_some());
    client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    assert_eq!(side.serve(&mut server, &mut data).unwrap().len(), 1);
    assert_eq!(reap_all(&mut client).len(), DEPTH as usize);
}

#[test]
fn an_entry_larger_than_a_slot_is_refused_by_the_client() {
    let mem = Mem::new();
    let mut client = mem.client();
    let mut data = vec![0u8; DATA_LEN];
    let max = client.slot_len();
    assert_eq!(max, DATA_LEN / DEPTH as usize);
    let big = vec![0u8; max];
    assert_eq!(
        client.submit_compound(&mut data, &big, &[]),
        Err(RingError::EntryTooLarge { len: max + 8, max })
    );
    assert_eq!(client.in_flight(), 0);
}

#[test]
fn signal_me_wakes_a_sleeping_peer_once_and_a_busy_one_never() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    // A busy server (it did not ask): no notification.
    client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    assert!(!client.needs_signal());
    // A server with work waiting does not sleep.
    assert_eq!(server.prepare_to_wait(), Ok(false));
    side.serve(&mut server, &mut data).unwrap();
    // Idle: it asks, and the next submission (only) notifies it.
    assert_eq!(server.prepare_to_wait(), Ok(true));
    client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    assert!(client.needs_signal());
    client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    assert!(!client.needs_signal());

    // The same for a client waiting on completions.
    reap_all(&mut client);
    assert_eq!(client.prepare_to_wait(), Ok(true));
    let mut fs_side = Side::new();
    let done = fs_side.serve(&mut server, &mut data).unwrap();
    assert_eq!(done.len(), 2);
    assert!(server.needs_signal());
    assert!(!server.needs_signal());
    assert_eq!(client.prepare_to_wait(), Ok(false));
    assert_eq!(reap_all(&mut client).len(), 2);
    // A client reaping (not asking) is never notified.
    client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    side.serve(&mut server, &mut data).unwrap();
    assert!(!server.needs_signal());
}

/// A hostile client's entries, each with the code it must complete with.
fn hostile_entries(data: &mut [u8]) -> Vec<(Descriptor, u16)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut put = |data: &mut [u8], bytes: &[u8], want: u16| {
        data[at..at + bytes.len()].copy_from_slice(bytes);
        let d = Descriptor {
            offset: at as u64,
            len: bytes.len() as u32,
            id: 1000 + at as u32,
        };
        at += 256;
        (d, want)
    };
    let op = |op: u16, words: &[u64]| {
        let mut e = vec![0u8; 64];
        let n = write_op(&mut e, op, words).unwrap();
        e.truncate(n);
        e
    };
    out.push(put(data, &[1, 0], code::ENTRY_TRUNCATED));
    out.push(put(data, &[9, 0, 0, 0, 0, 0, 0, 0], code::ENTRY_KIND));
    out.push(put(data, &[1, 0, 5, 0, 0, 0, 0, 1], code::ENTRY_RESERVED));
    out.push(put(
        data,
        &[1, 0, 5, 0, 0xFF, 0xFF, 0, 0],
        code::ENTRY_WORDS,
    ));
    out.push(put(data, &op(77, &[]), code::UNKNOWN_SERVICE_OP));
    out.push(put(data, &op(memfs::NOP, &[1]), code::ARG_COUNT));
    out.push(put(
        data,
        &op(memfs::OPEN, &[pack(0, 250, 10), 0, 0]),
        code::REF_OUT_OF_BOUNDS,
    ));
    out.push(put(
        data,
        &op(memfs::OPEN, &[pack(3, 0, 2), 0, 0]),
        code::REF_OUT_OF_BOUNDS,
    ));
    out.push(put(
        data,
        &op(memfs::READ, &[99, pack(0, 0, 8), 8]),
        code::service(memfs::EBADF),
    ));
    let mut garbage = vec![2u8, 0, 0, 0, 0, 0, 0, 0];
    garbage.extend_from_slice(b"NOTACOMPOUND....................");
    out.push(put(data, &garbage, code::BAD_MAGIC));
    let mut truncated = vec![2u8, 0, 0, 0, 0, 0, 0, 0];
    truncated.extend_from_slice(&add_five()[..40]);
    out.push(put(data, &truncated, code::BUFFER_TOO_SHORT));
    for d in [
        Descriptor {
            offset: DATA_LEN as u64,
            len: 1,
            id: 7,
        },
        Descriptor {
            offset: u64::MAX,
            len: 8,
            id: 8,
        },
        Descriptor {
            offset: DATA_LEN as u64 - 10,
            len: 500,
            id: 9,
        },
    ] {
        out.push((d, code::ENTRY_OUT_OF_BOUNDS));
    }
    out
}

#[test]
fn malformed_entries_complete_with_their_codes_and_the_ring_goes_on() {
    let mem = Mem::new();
    let (mut server, mut side) = (mem.server(), Side::new());
    let mut hostile = mem.sq().into_producer();
    let mut data = vec![0u8; DATA_LEN];
    let cases = hostile_entries(&mut data);
    assert!(cases.len() < DEPTH as usize);
    for (d, _) in &cases {
        hostile.push(*d).unwrap();
    }
    let good = Descriptor {
        offset: 4096,
        len: write_op(&mut data[4096..4160], memfs::NOP, &[]).unwrap() as u32,
        id: 5,
    };
    hostile.push(good).unwrap();
    let done = side.serve(&mut server, &mut data).unwrap();
    assert_eq!(done.len(), cases.len() + 1);
    for ((d, want), got) in cases.iter().zip(&done) {
        assert_eq!(
            (got.tag, got.status),
            (d.id, *want),
            "{d:?}: {}",
            code::describe(got.status)
        );
    }
    assert_eq!(done.last().map(|c| (c.tag, c.status)), Some((5, code::OK)));
    // A refused compound's results area says so, where it can.
    let at = cases
        .iter()
        .position(|(_, w)| *w == code::BAD_MAGIC)
        .unwrap();
    assert_eq!(done[at].value, u64::from(NO_OP));
}

#[test]
fn a_compound_the_verifier_refuses_has_its_rejection_written() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    let mut b = Builder::new();
    let buf = b.buf(0, 200, 100); // runs past the 256-byte region
    b.call_void(memfs::OPEN, (buf, 0u64, 0u64));
    let t = client
        .submit_compound(&mut data, &b.build().unwrap(), &[])
        .unwrap();
    side.serve(&mut server, &mut data).unwrap();
    let r = client.reap().unwrap().unwrap();
    assert_eq!(r.ticket, t);
    assert_eq!(r.completion.status, code::STATIC_REF_OUT_OF_BOUNDS);
    let report = Compound::new_unchecked(&data[r.compound.unwrap()]).report();
    assert_eq!(report.outcome, Outcome::Rejected);
}

/// MemFs whose NOP counts as `nop_work` steps of work, as a big read's
/// bytes do in the file server.
struct Heavy<'a> {
    fs: MemFs<'a>,
    nop_work: u32,
}

impl crate::Service for Heavy<'_> {
    fn ops(&self) -> crate::OpTable<'_> {
        self.fs.ops()
    }

    fn call(
        &mut self,
        opcode: u16,
        args: &mut crate::Args<'_, '_>,
    ) -> Result<u64, crate::CallError> {
        self.fs.call(opcode, args)
    }

    fn work(&self, opcode: u16, _: Option<u64>) -> u32 {
        if opcode == memfs::NOP {
            self.nop_work
        } else {
            0
        }
    }
}

/// `for i in 0..n { nop() }; exit(n)`.
fn nops(n: u64) -> Vec<u8> {
    let mut b = Builder::new();
    let i = b.reg();
    b.for_loop(i, 0u64, crate::Cmp::LtU, n, 1u64, |b| {
        b.call_void(memfs::NOP, ());
    });
    b.exit(i);
    b.build().unwrap()
}

#[test]
fn a_compound_entry_doing_more_work_than_an_entry_may_stops_and_the_ring_goes_on() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut data = vec![0u8; DATA_LEN];
    // TARGET allows 1000 steps: ten NOPs of 300 steps' work each cannot
    // all run; after the fourth the entry's work is past the limit and
    // nothing more starts. One call of 999 steps' work as the last op:
    // a call is never cut, and nothing follows it.
    let heavy = client.submit_compound(&mut data, &nops(10), &[]).unwrap();
    let last = {
        let mut b = Builder::new();
        b.call_void(memfs::NOP, ());
        client
            .submit_compound(&mut data, &b.build().unwrap(), &[])
            .unwrap()
    };
    let light = client
        .submit_compound(&mut data, &add_five(), &[1])
        .unwrap();
    let mut backing = vec![0u8; 8 * 512];
    let served = {
        let mut fs = Heavy {
            fs: MemFs::new(&mut backing, 512),
            nop_work: 300,
        };
        let mut scratch = Scratch {
            insns: &mut side.insns,
            results: &mut side.results,
        };
        let mut regions = [&mut side.region[..]];
        let mut n = 0;
        while let Served::Completed(c) = server
            .serve_one(&mut data, &mut fs, &mut regions, &TARGET, &mut scratch)
            .unwrap()
        {
            // The second compound's calls are heavier still.
            fs.nop_work = if c.tag == heavy.tag() { 999 } else { 300 };
            n += 1;
        }
        n
    };
    assert_eq!(served, 3);
    let reaped = reap_all(&mut client);
    let by = |t: Ticket| reaped.iter().find(|r| r.ticket == t).unwrap().clone();
    let stopped = by(heavy);
    assert_eq!(stopped.completion.status, code::ENTRY_WORK_EXHAUSTED);
    let report = Compound::new_checked(&data[stopped.compound.unwrap()])
        .unwrap()
        .report();
    assert_eq!(report.outcome, Outcome::Stopped);
    let stop = report.stop.unwrap();
    assert_eq!(stop.code, code::ENTRY_WORK_EXHAUSTED);
    // Stopped at the op after the fourth call (op 3, the `LOOP` back to
    // the call), far inside the step limit: it was the work that ran out.
    assert_eq!(stop.op, Some(3));
    assert!(report.steps < 20, "{report}");
    assert!(report.to_string().contains("ring entry"), "{report}");
    let ended = by(last);
    assert_eq!(ended.completion.status, code::OK);
    let fine = by(light);
    assert_eq!(
        (fine.completion.status, fine.completion.value),
        (code::OK, 6)
    );
}

#[test]
fn a_client_past_its_depth_stalls_only_itself() {
    let mem = Mem::new();
    let (mut server, mut side) = (mem.server(), Side::new());
    let mut hostile = mem.sq().into_producer();
    let mut data = vec![0u8; DATA_LEN];
    let len = write_op(&mut data[..64], memfs::NOP, &[]).unwrap() as u32;
    let nop = |id| Descriptor { offset: 0, len, id };
    for id in 0..DEPTH {
        hostile.push(nop(id)).unwrap();
    }
    assert_eq!(
        side.serve(&mut server, &mut data).unwrap().len(),
        DEPTH as usize
    );
    // Nobody reaps: the next entry waits on its ring, untaken.
    hostile.push(nop(99)).unwrap();
    let mut fs = MemFs::new(&mut side.backing, 512);
    let mut scratch = Scratch {
        insns: &mut side.insns,
        results: &mut side.results,
    };
    let served = server.serve_one(&mut data, &mut fs, &mut [], &TARGET, &mut scratch);
    assert_eq!(served, Ok(Served::Backlogged));
    assert_eq!(hostile.free(), Ok(DEPTH - 1));
}

#[test]
fn impossible_indices_are_corrupt_not_a_panic() {
    let mut mem = Aligned([0; 0x800 + 8192]);
    {
        let p = Parts::format(&mut mem.0).unwrap();
        let mut client = RingClient::new(p.submissions, p.completions, p.data.len());
        client.submit_op(p.data, memfs::NOP, &[]).unwrap();
    }
    // The client writes a tail 1000 entries past the server's head.
    mem.0[64..68].copy_from_slice(&1001u32.to_le_bytes());
    let p = Parts::attach(&mut mem.0).unwrap();
    let mut server = RingServer::new(p.submissions, p.completions, p.data.len());
    let mut side = Side::new();
    assert_eq!(side.serve(&mut server, p.data), Err(RingError::Corrupt));
    assert_eq!(server.prepare_to_wait(), Err(RingError::Corrupt));
    // And a completion ring whose head is past its tail.
    mem.0[64..68].copy_from_slice(&1u32.to_le_bytes());
    mem.0[0x400 + 128..0x400 + 132].copy_from_slice(&500u32.to_le_bytes());
    let p = Parts::attach(&mut mem.0).unwrap();
    let mut server = RingServer::new(p.submissions, p.completions, p.data.len());
    assert_eq!(side.serve(&mut server, p.data), Err(RingError::Corrupt));
}

#[test]
fn a_forged_completion_is_refused_and_reaping_goes_on() {
    let mem = Mem::new();
    let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
    let mut forger = mem.cq().into_producer();
    let mut data = vec![0u8; DATA_LEN];
    forger
        .push(Descriptor {
            offset: 0,
            len: 1,
            id: 3,
        })
        .unwrap();
    assert_eq!(
        client.reap(),
        Err(RingError::BadCompletion { tag: 3, status: 1 })
    );
    let t = client.submit_op(&mut data, memfs::NOP, &[]).unwrap();
    // A status that is no code, for the entry in flight.
    forger
        .push(Descriptor {
            offset: 0,
            len: 0x1_0001,
            id: t.tag(),
        })
        .unwrap();
    assert_eq!(
        client.reap(),
        Err(RingError::BadCompletion {
            tag: t.tag(),
            status: 0x1_0001
        })
    );
    assert_eq!(client.in_flight(), 1);
    // The forger moved the ring's tail under the server: its next push
    // lands on a slot the server's own tail did not count.
    let _ = side.serve(&mut server, &mut data);
    let _ = reap_all(&mut client);
}

#[test]
fn errors_read_well() {
    for e in [
        RingError::TooSmall { need: 1, have: 0 },
        RingError::Misaligned,
        RingError::NotFormatted,
        RingError::Corrupt,
        RingError::Full { depth: DEPTH },
        RingError::EntryTooLarge { len: 1, max: 0 },
        RingError::TooManyWords { count: 7, max: 6 },
        RingError::BadCompletion { tag: 1, status: 2 },
    ] {
        let text = e.to_string();
        assert!(text.contains(':') || text.contains("broken"), "{text}");
    }
    for c in [
        code::ENTRY_OUT_OF_BOUNDS,
        code::ENTRY_TRUNCATED,
        code::ENTRY_KIND,
        code::ENTRY_RESERVED,
        code::ENTRY_WORDS,
    ] {
        assert!(code::describe(c).starts_with("ring entry"), "{c:#x}");
    }
}

/// One step of an honest client and its server.
#[derive(Clone, Debug)]
enum Step {
    Op,
    Compound(u64),
    Serve(u8),
    Reap(u8),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Op),
        2 => (0u64..1000).prop_map(Step::Compound),
        2 => (0u8..40).prop_map(Step::Serve),
        2 => (0u8..40).prop_map(Step::Reap),
    ]
}

proptest! {
    /// Against a model: every submission is answered once, with its own
    /// value; `Full` exactly at the depth; nothing lost or duplicated.
    #[test]
    fn an_honest_client_gets_every_answer_once(steps in prop::collection::vec(step(), 1..200)) {
        let mem = Mem::new();
        let (mut client, mut server, mut side) = (mem.client(), mem.server(), Side::new());
        let mut data = vec![0u8; DATA_LEN];
        let compound = add_five();
        let mut expect = std::collections::HashMap::new();
        let mut served_not_reaped = 0usize;
        for s in steps {
            match s {
                Step::Op | Step::Compound(_) => {
                    let r = match s {
                        Step::Compound(p) => client.submit_compound(&mut data, &compound, &[p]).map(|t| (t, p + 5)),
                        _ => client.submit_op(&mut data, memfs::NOP, &[]).map(|t| (t, 0)),
                    };
                    if expect.len() == DEPTH as usize {
                        prop_assert_eq!(r, Err(RingError::Full { depth: DEPTH }));
                    } else {
                        let (t, v) = r.unwrap();
                        prop_assert!(expect.insert(t, v).is_none());
                    }
                }
                Step::Serve(n) => {
                    let mut fs = MemFs::new(&mut side.backing, 512);
                    let mut scratch = Scratch { insns: &mut side.insns, results: &mut side.results };
                    for _ in 0..n {
                        match server.serve_one(&mut data, &mut fs, &mut [&mut side.region[..]], &TARGET, &mut scratch).unwrap() {
                            Served::Completed(_) => served_not_reaped += 1,
                            Served::Empty => break,
                            Served::Backlogged => prop_assert!(false, "an honest client backlogged"),
                            Served::Deferred(_) => prop_assert!(false, "serve_one deferred"),
                        }
                    }
                }
                Step::Reap(n) => {
                    for _ in 0..n {
                        let Some(r) = client.reap().unwrap() else { break };
                        served_not_reaped -= 1;
                        let want = expect.remove(&r.ticket).unwrap();
                        prop_assert_eq!((r.completion.status, r.completion.value), (code::OK, want));
                    }
                }
            }
            prop_assert_eq!(client.in_flight() as usize, expect.len());
            prop_assert!(served_not_reaped <= expect.len());
        }
    }

    /// A hostile client: arbitrary descriptors over arbitrary bytes. The
    /// server never panics, answers every entry it takes exactly once with
    /// the entry's tag and a code, and serves an honest entry afterwards.
    #[test]
    fn the_consumer_survives_arbitrary_entries(
        bytes in prop::collection::vec(any::<u8>(), DATA_LEN),
        descs in prop::collection::vec((0u64..DATA_LEN as u64 + 64, 0u32..600, any::<u32>()), 0..(DEPTH as usize - 1)),
        kinds in prop::collection::vec((1u16..3, 0u16..8, 0u16..8), 0..8),
    ) {
        let mem = Mem::new();
        let (mut server, mut side) = (mem.server(), Side::new());
        let mut hostile = mem.sq().into_producer();
        let mut data = bytes;
        // Some entries get a plausible header, so the deeper checks run.
        for (i, (kind, op, count)) in kinds.iter().enumerate() {
            let at = i * 512;
            data[at..at + 2].copy_from_slice(&kind.to_le_bytes());
            data[at + 2..at + 4].copy_from_slice(&op.to_le_bytes());
            data[at + 4..at + 8].copy_from_slice(&[*count as u8, 0, 0, 0]);
        }
        for (offset, len, id) in &descs {
            let offset = if *offset < 8 * 512 && *offset % 2 == 0 { offset & !511 } else { *offset };
            hostile.push(Descriptor { offset, len: *len, id: *id }).unwrap();
        }
        let good = write_op(&mut data[DATA_LEN - 64..], memfs::NOP, &[]).unwrap() as u32;
        hostile.push(Descriptor { offset: DATA_LEN as u64 - 64, len: good, id: 0xABCD }).unwrap();
        let done = side.serve(&mut server, &mut data).unwrap();
        prop_assert_eq!(done.len(), descs.len() + 1);
        for (c, (_, _, id)) in done.iter().zip(&descs) {
            prop_assert_eq!(c.tag, *id);
            prop_assert!(c.status != code::NONE);
        }
        prop_assert_eq!(done.last().map(|c| (c.tag, c.status)), Some((0xABCD, code::OK)));
        let region = DataRegion::new(DATA_LEN);
        for (c, (offset, len, _)) in done.iter().zip(&descs) {
            if region.check(Descriptor { offset: *offset, len: *len, id: 0 }).is_err() {
                prop_assert_eq!(c.status, code::ENTRY_OUT_OF_BOUNDS);
            }
        }
        let _ = entry::HEADER;
    }
}
