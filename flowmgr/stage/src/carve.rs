//! Many disjoint pieces of one pool at once, for a stage that hands its
//! device several buffers together.
//!
//! The ranges come from descriptors a neighbour wrote: each passed its
//! edge's span check, so it lies inside the pool, but a hostile
//! neighbour may still name the same buffer twice. The pool is split in
//! address order, and a range that overlaps one already carved gets
//! nothing (its buffer is then given up), so no byte is ever lent twice.

use core::ops::Range;

/// `out[i]` is `pool[ranges[i]]`, or `None` when that range leaves the
/// pool or overlaps an earlier-starting one. `ranges` and `out` are as
/// long (at most `N`).
pub(crate) fn carve<'p, const N: usize>(
    pool: &'p mut [u8],
    ranges: &[Range<usize>],
    out: &mut [Option<&'p mut [u8]>; N],
) {
    let n = ranges.len().min(N);
    let mut order = [0usize; N];
    for (i, o) in order.iter_mut().enumerate().take(n) {
        *o = i;
    }
    order[..n].sort_unstable_by_key(|&i| (ranges[i].start, ranges[i].end));
    let mut rest = pool;
    let mut at = 0usize;
    for &i in &order[..n] {
        let r = &ranges[i];
        if r.start < at || r.end < r.start || r.end - at > rest.len() {
            continue;
        }
        let (_, tail) = core::mem::take(&mut rest).split_at_mut(r.start - at);
        let (piece, tail) = tail.split_at_mut(r.end - r.start);
        out[i] = Some(piece);
        rest = tail;
        at = r.end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pieces_come_back_in_the_order_asked() {
        let mut pool: [u8; 256] = core::array::from_fn(|i| i as u8);
        let mut out: [Option<&mut [u8]>; 4] = Default::default();
        carve(&mut pool, &[128..192, 0..64, 64..128, 192..256], &mut out);
        let firsts: [Option<u8>; 4] = core::array::from_fn(|i| out[i].as_ref().map(|p| p[0]));
        assert_eq!(firsts, [Some(128), Some(0), Some(64), Some(192)]);
    }

    #[test]
    fn a_buffer_named_twice_is_lent_once() {
        let mut pool = [0u8; 256];
        let mut out: [Option<&mut [u8]>; 3] = Default::default();
        carve(&mut pool, &[64..128, 64..128, 100..300], &mut out);
        assert!(out[0].is_some());
        assert!(out[1].is_none(), "the same range again");
        assert!(out[2].is_none(), "overlaps and leaves the pool");
    }

    proptest! {
        /// Whatever the ranges, the pieces handed out are exactly the
        /// ranges asked, inside the pool, and never overlap.
        #[test]
        fn pieces_are_the_ranges_and_disjoint(
            ranges in proptest::collection::vec((0usize..600, 0usize..200), 0..8)
        ) {
            let mut pool = [0u8; 512];
            let base = pool.as_ptr() as usize;
            let ranges: Vec<Range<usize>> = ranges.iter().map(|&(s, l)| s..s + l).collect();
            let mut out: [Option<&mut [u8]>; 8] = Default::default();
            carve(&mut pool, &ranges, &mut out);
            let mut lent: Vec<Range<usize>> = Vec::new();
            for (i, piece) in out.iter().enumerate().take(ranges.len()) {
                if let Some(p) = piece {
                    let start = p.as_ptr() as usize - base;
                    prop_assert_eq!(start..start + p.len(), ranges[i].clone());
                    prop_assert!(ranges[i].end <= 512);
                    for l in &lent {
                        prop_assert!(l.end <= start || start + p.len() <= l.start || p.is_empty() || l.is_empty());
                    }
                    lent.push(start..start + p.len());
                }
            }
        }
    }
}
