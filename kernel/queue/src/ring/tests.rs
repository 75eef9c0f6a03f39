//! Byte-literal layouts, hostile peers, the signal-me flag, and proptests
//! of random single-thread operation sequences.

use super::*;
use crate::layout::{ring_bytes, MAGIC};
use proptest::prelude::*;
use std::collections::VecDeque;

const CAP: u32 = 4;
const DATA: DataRegion = DataRegion::new(4096);

/// Ring memory with the alignment shared memory has (page-aligned there).
#[repr(C, align(64))]
struct Mem([u8; 192 + 16 * CAP as usize]);

fn mem() -> Box<Mem> {
    Box::new(Mem([0; 192 + 16 * CAP as usize]))
}

fn put_u32(m: &mut Mem, at: usize, v: u32) {
    m.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_slot(m: &mut Mem, i: usize, offset: u64, len: u32, id: u32) {
    let at = 192 + 16 * i;
    m.0[at..at + 8].copy_from_slice(&offset.to_le_bytes());
    put_u32(m, at + 8, len);
    put_u32(m, at + 12, id);
}

fn d(offset: u64, len: u32, id: u32) -> Descriptor {
    Descriptor { offset, len, id }
}

/// A formatted 4-slot ring whose producer has published `slots` with the
/// given tail (bytes written by hand, as a hostile producer would).
fn hand_written(tail: u32, slots: &[(u64, u32, u32)]) -> Box<Mem> {
    let mut m = mem();
    put_u32(&mut m, 0, MAGIC);
    put_u32(&mut m, 4, CAP);
    put_u32(&mut m, 64, tail);
    for (i, &(o, l, id)) in slots.iter().enumerate() {
        put_slot(&mut m, i, o, l, id);
    }
    m
}

#[test]
fn format_writes_the_documented_bytes() {
    let mut m = mem();
    m.0.fill(0xAA);
    let (mut p, _c) = Ring::format(&mut m.0, CAP).unwrap().split(DATA);
    p.push(d(0x1122_3344_5566_7788, 0x99, 0xABCD)).unwrap();
    assert_eq!(&m.0[0..8], b"CfxQ\x04\0\0\0");
    assert_eq!(&m.0[64..68], &[1, 0, 0, 0]); // tail
    assert_eq!(&m.0[128..136], &[0; 8]); // head, signal_me
    assert_eq!(
        &m.0[192..208],
        &[0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x99, 0, 0, 0, 0xCD, 0xAB, 0, 0]
    );
    assert_eq!(&m.0[208..256], &[0; 48]);
}

#[test]
fn consumer_reads_hand_written_bytes() {
    let mut m = hand_written(2, &[(16, 32, 1), (100, 0, 2)]);
    let mut c = Ring::attach(&mut m.0, CAP).unwrap().into_consumer(DATA);
    assert_eq!(c.len(), Ok(2));
    assert_eq!(c.pop().unwrap().unwrap().get(), d(16, 32, 1));
    assert_eq!(c.pop().unwrap().unwrap().range(), 100..100);
    assert_eq!(c.pop(), Ok(None));
    assert_eq!(&m.0[128..132], &[2, 0, 0, 0]); // head stored back
}

#[test]
fn layout_errors() {
    let mut m = mem();
    assert_eq!(
        Ring::attach(&mut m.0, CAP).err(),
        Some(LayoutError::NotFormatted)
    );
    assert_eq!(
        Ring::format(&mut m.0, 3).err(),
        Some(LayoutError::BadCapacity(3))
    );
    assert_eq!(
        Ring::format(&mut m.0, 0).err(),
        Some(LayoutError::BadCapacity(0))
    );
    assert_eq!(
        Ring::format(&mut m.0, 8).err(),
        Some(LayoutError::TooSmall {
            need: ring_bytes(8).unwrap(),
            have: 256
        })
    );
    assert_eq!(
        Ring::format(&mut m.0[8..], 1).err(),
        Some(LayoutError::Misaligned)
    );
    Ring::format(&mut m.0, 2).unwrap();
    assert_eq!(
        Ring::attach(&mut m.0, CAP).err(),
        Some(LayoutError::CapacityMismatch {
            expected: 4,
            found: 2
        })
    );
    // A larger region than needed is fine (regions come in pages).
    assert_eq!(Ring::attach(&mut m.0, 2).unwrap().capacity(), 2);
}

#[test]
fn hostile_producer_indices_are_corrupt_not_a_hang() {
    // Our head is 0; any tail more than CAP ahead (or behind) is impossible.
    for tail in [5, 1000, u32::MAX, 1 << 31, u32::MAX - 3] {
        let mut m = hand_written(tail, &[]);
        let mut c = Ring::attach(&mut m.0, CAP).unwrap().into_consumer(DATA);
        let corrupt = Corrupt { head: 0, tail };
        assert_eq!(c.pop(), Err(PopError::Corrupt(corrupt)), "{tail}");
        assert_eq!(c.len(), Err(corrupt));
        assert_eq!(c.prepare_to_wait(), Err(corrupt));
        // Nothing consumed: head unchanged.
        assert_eq!(&m.0[128..132], &[0; 4]);
    }
}

#[test]
fn hostile_producer_descriptors_are_refused_and_skipped() {
    let bad = [
        (4096, 1, 1),     // starts at the end
        (0, 4097, 2),     // longer than the region
        (u64::MAX, 1, 3), // offset + len wraps
        (u64::MAX - 10, u32::MAX, 4),
    ];
    let mut m = hand_written(4, &bad);
    let mut c = Ring::attach(&mut m.0, CAP).unwrap().into_consumer(DATA);
    for (o, l, id) in bad {
        assert_eq!(c.pop(), Err(PopError::OutOfBounds(d(o, l, id))));
    }
    assert_eq!(c.pop(), Ok(None));

    // u32::MAX length and zero lengths, against a region that allows the
    // former: only the one that fits passes.
    let big = DataRegion::new(u32::MAX as usize);
    let mut m = hand_written(3, &[(0, u32::MAX, 1), (1, u32::MAX, 2), (5, 0, 3)]);
    let mut c = Ring::attach(&mut m.0, CAP).unwrap().into_consumer(big);
    assert_eq!(c.pop().unwrap().unwrap().len(), u32::MAX);
    assert_eq!(c.pop(), Err(PopError::OutOfBounds(d(1, u32::MAX, 2))));
    assert!(c.pop().unwrap().unwrap().is_empty());
}

#[test]
fn hostile_producer_rewriting_a_slot_cannot_change_a_checked_copy() {
    let mut m = hand_written(1, &[(0, 8, 1)]);
    let ring = Ring::attach(&mut m.0, CAP).unwrap();
    let slot0: &Slot = &ring.slots[0];
    let mut c = ring.into_consumer(DATA);
    let v = c.pop().unwrap().unwrap();
    // The slot is rewritten after the check; the copy we hold is unaffected.
    slot0.store(d(u64::MAX, u32::MAX, 9));
    assert_eq!(v.range(), 0..8);
}

#[test]
fn hostile_consumer_indices_are_corrupt() {
    let mut m = mem();
    let ring = Ring::format(&mut m.0, CAP).unwrap();
    let head = &ring.header.consumer.0.head;
    let mut p = Ring {
        header: ring.header,
        slots: ring.slots,
    }
    .into_producer();
    p.push(d(0, 1, 0)).unwrap();
    // A head ahead of the tail, or far behind it.
    for h in [2, u32::MAX - 4, 1 << 31] {
        head.store(h, Relaxed);
        let corrupt = Corrupt { head: h, tail: 1 };
        assert_eq!(p.push(d(0, 1, 0)), Err(PushError::Corrupt(corrupt)));
        assert_eq!(p.free(), Err(corrupt));
    }
    // Moving head back within the capacity only makes the ring look fuller.
    head.store(u32::MAX, Relaxed);
    assert_eq!(p.free(), Ok(2));
}

#[test]
fn full_and_wraparound() {
    let mut m = mem();
    // Start near the u32 wrap to cover free-running indices.
    let ring = Ring::format(&mut m.0, CAP).unwrap();
    ring.header.tail.0.store(u32::MAX - 1, Relaxed);
    ring.header.consumer.0.head.store(u32::MAX - 1, Relaxed);
    let (mut p, mut c) = ring.split(DATA);
    for round in 0..3u32 {
        for i in 0..CAP {
            p.push(d(u64::from(i), 1, round * 10 + i)).unwrap();
        }
        assert_eq!(p.push(d(0, 0, 0)), Err(PushError::Full));
        assert_eq!(p.free(), Ok(0));
        for i in 0..CAP {
            assert_eq!(c.pop().unwrap().unwrap().id(), round * 10 + i);
        }
        assert_eq!(c.pop(), Ok(None));
    }
}

#[test]
fn signal_me_protocol() {
    let header = Header::new(CAP);
    let slots: Vec<Slot> = (0..CAP).map(|_| Slot::new()).collect();
    let (mut p, mut c) = Ring::from_parts(&header, &slots).unwrap().split(DATA);
    // Busy: nobody asked, no signal.
    p.push(d(0, 0, 0)).unwrap();
    assert!(!p.needs_signal());
    // Consumer finds work on its last look: it must not sleep, and the
    // request is withdrawn.
    assert_eq!(c.prepare_to_wait(), Ok(false));
    assert!(!p.needs_signal());
    c.pop().unwrap();
    // Empty: it may sleep, and the next publish signals exactly once.
    assert_eq!(c.prepare_to_wait(), Ok(true));
    p.push(d(0, 0, 1)).unwrap();
    assert!(p.needs_signal());
    assert!(!p.needs_signal());
}

#[test]
fn queue_hands_buffers_back_and_forth() {
    let mut free = mem();
    let mut active = mem();
    let q = crate::Queue {
        free: Ring::format(&mut free.0, CAP).unwrap(),
        active: Ring::format(&mut active.0, CAP).unwrap(),
        data: DataRegion::new(4 * 1024),
    };
    let (mut tx, mut rx) = q.split();
    for i in 0..CAP {
        rx.offer(d(u64::from(i) * 1024, 1024, i)).unwrap();
    }
    assert!(!rx.needs_signal());
    let buf = tx.take_buffer().unwrap().unwrap();
    assert_eq!(tx.send(buf, 1025), Err(crate::SendError::TooLong));
    assert_eq!(rx.prepare_to_wait(), Ok(true));
    tx.send(buf, 60).unwrap();
    assert!(tx.needs_signal());
    let got = rx.recv().unwrap().unwrap();
    assert_eq!((got.range(), got.id()), (0..60, 0));
    assert_eq!(rx.recv(), Ok(None));
}

/// One step of a random single-thread schedule.
#[derive(Clone, Debug)]
enum Op {
    Push(u32),
    Pop,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![any::<u32>().prop_map(Op::Push), Just(Op::Pop)],
        0..200,
    )
}

proptest! {
    /// Any interleaving of pushes and pops behaves like a bounded FIFO:
    /// same order, refused exactly when full, empty exactly when empty.
    #[test]
    fn behaves_like_a_bounded_fifo(ops in ops(), start in any::<u32>(), cap_log in 0u32..4) {
        let cap = 1u32 << cap_log;
        let header = Header::new(cap);
        let slots: Vec<Slot> = (0..cap).map(|_| Slot::new()).collect();
        header.tail.0.store(start, Relaxed);
        header.consumer.0.head.store(start, Relaxed);
        let (mut p, mut c) = Ring::from_parts(&header, &slots).unwrap().split(DATA);
        let mut model = VecDeque::new();
        for op in ops {
            match op {
                Op::Push(id) => {
                    let r = p.push(d(u64::from(id % 4096), 0, id));
                    if model.len() == cap as usize {
                        prop_assert_eq!(r, Err(PushError::Full));
                    } else {
                        prop_assert_eq!(r, Ok(()));
                        model.push_back(id);
                    }
                }
                Op::Pop => {
                    let got = c.pop().unwrap().map(|v| v.id());
                    prop_assert_eq!(got, model.pop_front());
                }
            }
            prop_assert_eq!(c.len(), Ok(model.len() as u32));
            prop_assert_eq!(p.free(), Ok(cap - model.len() as u32));
        }
    }

    /// Whatever a hostile producer writes into the header and slots, the
    /// consumer returns an error or a descriptor inside the region, and
    /// never panics.
    #[test]
    fn consumer_survives_any_bytes(bytes in prop::collection::vec(any::<u8>(), 256), pops in 1usize..10) {
        let mut m = mem();
        m.0.copy_from_slice(&bytes);
        m.0[0..8].copy_from_slice(b"CfxQ\x04\0\0\0");
        let mut c = Ring::attach(&mut m.0, CAP).unwrap().into_consumer(DATA);
        for _ in 0..pops {
            if let Ok(Some(v)) = c.pop() {
                prop_assert!(v.range().end <= 4096);
            }
            let _ = c.prepare_to_wait();
        }
    }
}

#[test]
fn occupancy_is_what_an_onlooker_sees_and_catches_impossible_indices() {
    let mut m = hand_written(3, &[(0, 1, 1), (1, 1, 2), (2, 1, 3)]);
    assert_eq!(Ring::attach(&mut m.0, CAP).unwrap().occupancy(), Ok(3));
    put_u32(&mut m, 128, 1); // the consumer took one
    assert_eq!(Ring::attach(&mut m.0, CAP).unwrap().occupancy(), Ok(2));
    put_u32(&mut m, 64, 100); // a hostile producer's tail
    assert_eq!(
        Ring::attach(&mut m.0, CAP).unwrap().occupancy(),
        Err(Corrupt { head: 1, tail: 100 })
    );
}
