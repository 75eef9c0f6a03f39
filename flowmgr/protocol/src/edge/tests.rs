//! An edge between two stages in one process: buffers go round, sequence
//! numbers survive, signal-me works, and a hostile neighbour's descriptors
//! are refused and counted.

use super::*;
use conflux_queue::Descriptor;

#[repr(C, align(4096))]
struct Page([u8; EDGE_BYTES]);

fn page() -> *mut u8 {
    Box::leak(Box::new(Page([0xAA; EDGE_BYTES]))).0.as_mut_ptr()
}

const POOL: u64 = 64 * 1024;
const SPAN: Span = Span {
    lo: 8192,
    count: 8,
    size: 2048,
};

fn edge() -> (*mut u8, Output, Input) {
    let p = page();
    // Safety: a leaked page, used only through this crate.
    unsafe {
        format(p, EDGE_BYTES, POOL, SPAN).unwrap();
        let out = attach_output(p, EDGE_BYTES, POOL, SPAN).unwrap();
        let inp = attach_input(p, EDGE_BYTES, POOL, SPAN).unwrap();
        (p, out, inp)
    }
}

fn stats(p: *mut u8) -> EdgeStats {
    // Safety: as in `edge`.
    unsafe { observe(p, EDGE_BYTES).unwrap() }
}

#[test]
fn every_buffer_starts_on_the_free_ring_and_goes_round_in_order() {
    let (p, mut out, mut inp) = edge();
    let mut got = Vec::new();
    while let Some(b) = out.take_empty().unwrap() {
        got.push(b.unwrap());
    }
    assert_eq!(got.len(), 8);
    assert!(got.iter().all(|b| b.len == 2048));
    for (seq, b) in got.iter().enumerate() {
        out.send(b, 100 + seq as u32, 1000 + seq as u32, 5).unwrap();
    }
    assert_eq!(stats(p).queued, 8);
    for seq in 0..8u32 {
        let b = inp.take_full().unwrap().unwrap().unwrap();
        assert_eq!((b.seq, b.len), (1000 + seq, 100 + seq));
        inp.recycle(&b, b.len, 10 + seq as u64).unwrap();
    }
    let s = stats(p);
    assert_eq!(s.queued, 0);
    assert_eq!(s.upstream[..2], [8, (100..108).sum::<u64>()]);
    assert_eq!(s.downstream[..2], [8, (100..108).sum::<u64>()]);
    // Each side's first and last hand-over times.
    assert_eq!(s.upstream[4..], [5, 5]);
    assert_eq!(s.downstream[4..], [10, 17]);
    // Recycled buffers come back at full size.
    assert_eq!(out.take_empty().unwrap().unwrap().unwrap().len, 2048);
}

#[test]
fn signal_me_asks_for_exactly_one_doorbell() {
    let (_p, mut out, mut inp) = edge();
    assert_eq!(inp.prepare_to_wait(), Ok(true));
    let b = out.take_empty().unwrap().unwrap().unwrap();
    assert_eq!(
        out.send(&b, 1, 1, 5),
        Ok(true),
        "the sleeping consumer asked"
    );
    let b2 = out.take_empty().unwrap().unwrap().unwrap();
    assert_eq!(out.send(&b2, 1, 2, 6), Ok(false), "asked once only");
    // Upstream waits for empties: the recycle rings its doorbell.
    while out.take_empty().unwrap().is_some() {}
    assert_eq!(out.prepare_to_wait(), Ok(true));
    let got = inp.take_full().unwrap().unwrap().unwrap();
    assert_eq!(inp.recycle(&got, 1, 9), Ok(true));
}

#[test]
fn a_hostile_neighbour_cannot_hand_over_what_is_not_the_edge_s() {
    let (p, mut out, mut inp) = edge();
    // The upstream side writes descriptors by hand through its own ring.
    for d in [
        Descriptor {
            offset: 0,
            len: 16,
            id: 1,
        }, // before the span
        Descriptor {
            offset: 8192 + 1,
            len: 16,
            id: 2,
        }, // not a boundary
        Descriptor {
            offset: 8192 + 8 * 2048,
            len: 16,
            id: 3,
        }, // past the span
        Descriptor {
            offset: 8192,
            len: 4096,
            id: 4,
        }, // too long
        Descriptor {
            offset: POOL,
            len: 1,
            id: 5,
        }, // past the pool
    ] {
        out.tx.active.push(d).unwrap();
    }
    let mut refused = 0;
    while let Some(t) = inp.take_full().unwrap() {
        assert!(t.is_err(), "{t:?}");
        refused += 1;
    }
    assert_eq!(refused, 5);
    assert_eq!(stats(p).downstream[3], 5);
}

#[test]
fn a_broken_ring_is_an_error_not_a_loop() {
    let (p, _out, mut inp) = edge();
    // Safety: the leaked page; the tail of the full ring is at +64.
    unsafe { p.add(FULL_RING + 64).cast::<u32>().write_volatile(1 << 20) };
    assert!(matches!(
        inp.take_full(),
        Err(EdgeError::Link(LinkError::Corrupt))
    ));
    // Safety: as above.
    assert!(unsafe { observe(p, EDGE_BYTES) }.is_err());
}

#[test]
fn an_edge_of_max_buffers_holds_every_one_in_flight_at_once() {
    let full = Span {
        lo: 0,
        count: MAX_BUFFERS,
        size: 64,
    };
    let pool = u64::from(MAX_BUFFERS) * 64;
    let p = page();
    // Safety: a leaked page, used only through this crate.
    let (mut out, mut inp) = unsafe {
        format(p, EDGE_BYTES, pool, full).unwrap();
        (
            attach_output(p, EDGE_BYTES, pool, full).unwrap(),
            attach_input(p, EDGE_BYTES, pool, full).unwrap(),
        )
    };
    let mut bufs = Vec::new();
    while let Some(b) = out.take_empty().unwrap() {
        bufs.push(b.unwrap());
    }
    assert_eq!(bufs.len(), MAX_BUFFERS as usize);
    // Every buffer queued downstream at once: the full ring holds them.
    for (seq, b) in bufs.iter().enumerate() {
        out.send(b, 64, seq as u32, 0).unwrap();
    }
    assert_eq!(stats(p).queued, MAX_BUFFERS);
    for seq in 0..MAX_BUFFERS {
        let b = inp.take_full().unwrap().unwrap().unwrap();
        assert_eq!(b.seq, seq);
        inp.recycle(&b, 64, 0).unwrap();
    }
    assert!(inp.take_full().unwrap().is_none());
}

#[test]
fn spans_that_do_not_fit_the_pool_or_the_ring_are_refused() {
    let p = page();
    let too_many = Span {
        lo: 0,
        count: MAX_BUFFERS + 1,
        size: 16,
    };
    let past_pool = Span {
        lo: POOL - 2048,
        count: 2,
        size: 2048,
    };
    for s in [too_many, past_pool] {
        // Safety: the leaked page.
        let r = unsafe { format(p, EDGE_BYTES, POOL, s) };
        assert_eq!(r.err(), Some(EdgeError::BadSpan));
    }
    let raw = page();
    // Safety: a leaked page; an unformatted one is refused.
    let r = unsafe { attach_input(raw, EDGE_BYTES, POOL, SPAN) };
    assert!(r.is_err());
}
