//! Layouts checked when built, rings formatted and attached at their
//! offsets, each unusable region refused with its own error, and the
//! conversions protocols rely on.

use super::*;
use crate::{Consumer, Producer};

const AREA: usize = 0x400;
const LAYOUT: Layout<2> = Layout::new(
    [
        RingArea {
            offset: 0,
            size: AREA,
            capacity: 32,
        },
        RingArea {
            offset: AREA,
            size: AREA,
            capacity: 32,
        },
    ],
    0x1000,
    4096,
);
const LEN: usize = 0x1000 + 4 * 4096;

/// A leaked, zeroed, page-aligned region of `LEN` bytes.
fn region() -> *mut u8 {
    let layout = std::alloc::Layout::from_size_align(LEN, 4096).unwrap();
    // Safety: a fresh zeroed allocation, leaked so it outlives every ring.
    unsafe { std::alloc::alloc_zeroed(layout) }
}

fn ends(rings: Rings<'static, 2>) -> (Producer<'static>, Consumer<'static>) {
    let [a, b] = rings.rings;
    (a.into_producer(), b.into_consumer(rings.data))
}

#[test]
fn the_data_area_is_what_follows_the_layout() {
    assert_eq!(LAYOUT.data(), 0x1000);
    assert_eq!(LAYOUT.check_len(LEN), Ok(DataRegion::new(4 * 4096)));
    assert_eq!(LAYOUT.check_len(0x1000 + 4096), Ok(DataRegion::new(4096)));
    for short in [0, 0x1000, 0x1000 + 4095] {
        assert_eq!(LAYOUT.check_len(short), Err(LinkError::TooSmall), "{short}");
    }
}

#[test]
fn formatted_rings_attach_at_their_offsets() {
    let base = region();
    // Safety: the leaked region outlives the rings; no peer yet.
    let mine = unsafe { format(base, LEN, &LAYOUT) }.unwrap();
    // Safety: as above; the peer attaches to what was formatted.
    let theirs = unsafe { attach(base, LEN, &LAYOUT) }.unwrap();
    let (mut to_them, mut from_them) = ends(mine);
    let [r0, r1] = theirs.rings;
    let (mut from_me, mut to_me) = (r0.into_consumer(theirs.data), r1.into_producer());
    let d = Descriptor {
        offset: 8,
        len: 16,
        id: 3,
    };
    to_them.push(d).unwrap();
    assert_eq!(from_me.pop().unwrap().map(|v| v.get()), Some(d));
    to_me.push(d).unwrap();
    assert_eq!(from_them.pop().unwrap().map(|v| v.get()), Some(d));
    // Each ring's magic sits at its own offset.
    // Safety: inside the leaked region.
    let magic = |off: usize| unsafe { core::slice::from_raw_parts(base.add(off), 4) }.to_vec();
    assert_eq!(magic(0), b"CfxQ");
    assert_eq!(magic(AREA), b"CfxQ");
}

#[test]
fn unusable_regions_are_refused_with_their_reason() {
    let base = region();
    // Safety: the leaked region outlives every attempt below.
    let got = unsafe { attach(base, LEN, &LAYOUT) };
    assert_eq!(got.err(), Some(LinkError::NotFormatted));
    // Safety: as above.
    let got = unsafe { format(base, 0x1000, &LAYOUT) };
    assert_eq!(got.err(), Some(LinkError::TooSmall));
    // Safety: as above; one byte in, still inside the region.
    let got = unsafe { format(base.add(1), LEN - 1, &LAYOUT) };
    assert_eq!(got.err(), Some(LinkError::Misaligned));
    // Formatted for 16 slots, attached expecting 32.
    let small = Layout::new(
        [
            RingArea {
                offset: 0,
                size: AREA,
                capacity: 16,
            },
            RingArea {
                offset: AREA,
                size: AREA,
                capacity: 16,
            },
        ],
        0x1000,
        4096,
    );
    // Safety: as above.
    unsafe { format(base, LEN, &small) }.unwrap();
    // Safety: as above.
    let got = unsafe { attach(base, LEN, &LAYOUT) };
    assert_eq!(got.err(), Some(LinkError::NotFormatted));
}

#[test]
fn take_sorts_what_a_consumer_popped() {
    let d = Descriptor {
        offset: 100,
        len: 8,
        id: 1,
    };
    let inside = DataRegion::new(200).check(d).unwrap();
    assert_eq!(take(Ok(None), 9u8), Ok(None));
    assert_eq!(take(Ok(Some(inside)), 9u8), Ok(Some(Ok(d))));
    assert_eq!(
        take(Err(PopError::OutOfBounds(d)), 9u8),
        Ok(Some(Err(Refused {
            descriptor: d,
            status: 9
        })))
    );
    let c = Corrupt { head: 5, tail: 99 };
    assert_eq!(
        take(Err(PopError::Corrupt(c)), 9u8),
        Err(LinkError::Corrupt)
    );
}

#[test]
fn ring_errors_become_link_errors() {
    assert_eq!(LinkError::from(PushError::Full), LinkError::Full);
    let c = Corrupt { head: 0, tail: 64 };
    assert_eq!(LinkError::from(PushError::Corrupt(c)), LinkError::Corrupt);
    assert_eq!(LinkError::from(c), LinkError::Corrupt);
}

#[test]
fn every_error_says_what_to_do() {
    let all = [
        LinkError::TooSmall,
        LinkError::Misaligned,
        LinkError::Corrupt,
        LinkError::NotFormatted,
        LinkError::Full,
    ];
    let texts: Vec<String> = all.iter().map(|e| e.to_string()).collect();
    for (e, t) in all.iter().zip(&texts) {
        assert!(t.contains(": "), "{e:?} names no remedy: {t}");
    }
    let mut unique = texts.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), texts.len(), "two errors read the same");
}

#[test]
#[should_panic(expected = "two ring areas overlap")]
fn overlapping_ring_areas_are_refused() {
    let area = |offset| RingArea {
        offset,
        size: AREA,
        capacity: 32,
    };
    let _ = Layout::new([area(0), area(0x200)], 0x1000, 4096);
}

#[test]
#[should_panic(expected = "a ring does not fit its area")]
fn a_ring_larger_than_its_area_is_refused() {
    let big = RingArea {
        offset: 0,
        size: AREA,
        capacity: 64,
    };
    let _ = Layout::new([big], 0x1000, 4096);
}
