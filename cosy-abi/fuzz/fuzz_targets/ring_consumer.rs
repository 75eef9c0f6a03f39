//! Fuzz target: a hostile client's submission ring → the ring server.
//!
//! The input is up to 31 descriptors (16 bytes each, after a count byte)
//! and the data area's bytes. The server must not panic, must answer
//! every descriptor it takes exactly once, in order, with that
//! descriptor's tag and a code (never `NONE`), must answer a descriptor
//! outside the data area with `ENTRY_OUT_OF_BOUNDS`, must not touch the
//! client's region outside what operands name (guard bytes), and must
//! still serve an honest entry queued after them all. With the count
//! byte's top bit set, the server defers every operation whose call
//! failed (`serve_one_deferring`, as the network server parks a `recv`):
//! each deferred entry must have been taken in its turn, and every
//! deferred answer must still fit the completion ring afterwards.
#![no_main]

use conflux_queue::{DataRegion, Descriptor, Header, Ring, Slot};
use cosy_abi::code;
use cosy_abi::memfs::{self, MemFs};
use cosy_abi::ring::{
    entry, Completion, Defer, RingServer, Scratch, ServeTarget, Served, DEPTH,
};
use cosy_abi::{CallError, Insn, OpResult};
use libfuzzer_sys::fuzz_target;

const DATA_LEN: usize = 16384;
const REGION: usize = 256;
const GUARD: usize = 64;

fn buf_word(w: u64) -> (usize, usize, usize) {
    (
        (w >> 56) as usize,
        w as u32 as usize,
        ((w >> 32) & 0xFF_FFFF) as usize,
    )
}

/// Defers every failed operation when `on`.
struct Keep {
    on: bool,
}

impl Defer for Keep {
    fn defer(&mut self, _tag: u32, _op: u16, _words: &[u64], error: CallError) -> bool {
        assert!(matches!(error, CallError::Service(_)), "{error:?} deferred");
        self.on
    }
}

fn descriptor(raw: &[u8]) -> Descriptor {
    let word = |r: core::ops::Range<usize>| {
        let mut b = [0u8; 8];
        b[..r.len()].copy_from_slice(&raw[r]);
        u64::from_le_bytes(b)
    };
    Descriptor {
        // Mostly inside the area, so the entry checks run.
        offset: word(0..8) % (DATA_LEN as u64 + 64),
        len: word(8..12) as u32 % 1024,
        id: word(12..16) as u32,
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&count, rest)) = input.split_first() else {
        return;
    };
    let mut keep = Keep {
        on: count & 0x80 != 0,
    };
    let count = usize::from(count) % DEPTH as usize;
    let Some((descs, bytes)) = rest.split_at_checked(16 * count) else {
        return;
    };
    let descs: Vec<Descriptor> = descs.chunks_exact(16).map(descriptor).collect();
    let mut data = vec![0u8; DATA_LEN];
    let n = bytes.len().min(DATA_LEN - 64);
    data[..n].copy_from_slice(&bytes[..n]);
    let good = entry::write_op(&mut data[DATA_LEN - 64..], memfs::NOP, &[]).unwrap() as u32;

    let ring = || {
        (
            Header::new(DEPTH),
            (0..DEPTH).map(|_| Slot::new()).collect::<Vec<_>>(),
        )
    };
    let (sq, cq) = (ring(), ring());
    let mut hostile = Ring::from_parts(&sq.0, &sq.1).unwrap().into_producer();
    let mut server = RingServer::new(
        Ring::from_parts(&sq.0, &sq.1).unwrap(),
        Ring::from_parts(&cq.0, &cq.1).unwrap(),
        DATA_LEN,
    );
    for d in &descs {
        hostile.push(*d).unwrap();
    }
    let last = Descriptor {
        offset: DATA_LEN as u64 - 64,
        len: good,
        id: u32::MAX,
    };
    hostile.push(last).unwrap();

    let mut backing = vec![0u8; 8 * 512];
    let mut fs = MemFs::new(&mut backing, 512);
    fs.create(b"in", &[7u8; 100]).unwrap();
    let mut arena = vec![0xA5u8; GUARD + REGION + GUARD];
    let (mut insns, mut results) = ([Insn::EMPTY; 32], [OpResult::EMPTY; 32]);
    let mut scratch = Scratch {
        insns: &mut insns,
        results: &mut results,
    };
    let target = ServeTarget {
        buf: buf_word,
        max_steps: 2000,
    };
    let mut done = Vec::new();
    let mut deferred = Vec::new();
    {
        let region = &mut arena[GUARD..GUARD + REGION];
        loop {
            let served = server
                .serve_one_deferring(
                    &mut data,
                    &mut fs,
                    &mut [&mut *region],
                    &target,
                    &mut scratch,
                    deferred.len() as u32,
                    &mut keep,
                )
                .expect("a ring with honest indices is never corrupt");
            match served {
                Served::Completed(c) => done.push(Some(c)),
                Served::Deferred(tag) => {
                    assert!(keep.on, "deferred without the hook's yes");
                    deferred.push(tag);
                    done.push(None);
                }
                Served::Empty => break,
                Served::Backlogged => panic!("backlogged with room on the completion ring"),
            }
        }
    }
    assert_eq!(done.len(), descs.len() + 1);
    let area = DataRegion::new(DATA_LEN);
    let mut kept = deferred.iter();
    for (c, d) in done.iter().zip(&descs) {
        let Some(c) = c else {
            // Taken in its turn; never one outside the area.
            assert_eq!(kept.next(), Some(&d.id));
            assert!(area.check(*d).is_ok());
            continue;
        };
        assert_eq!(c.tag, d.id);
        assert_ne!(c.status, code::NONE);
        if area.check(*d).is_err() {
            assert_eq!(c.status, code::ENTRY_OUT_OF_BOUNDS);
        }
    }
    let end = done.last().unwrap().expect("the honest NOP is answered at once");
    assert_eq!((end.tag, end.status), (u32::MAX, code::OK));
    // Every deferred answer still has its place, in any order.
    for tag in deferred.iter().rev() {
        let answer = Completion {
            tag: *tag,
            status: code::OK,
            value: 0,
        };
        server
            .complete(answer)
            .expect("a deferred answer always has its place");
    }
    assert_eq!(server.unreaped(), Ok(descs.len() as u32 + 1));
    assert!(arena[..GUARD]
        .iter()
        .chain(&arena[GUARD + REGION..])
        .all(|&b| b == 0xA5));
});
