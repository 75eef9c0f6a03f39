//! The builtin data ops on shared regions: copy, fill, compare, search and
//! count, CRC-32C (spec §6, codes `0x30`..`0x34`).
//!
//! Each gets spans the executor already checked against the regions, a
//! byte count `n` it checks against them, and the steps left, so it can
//! refuse work it may not afford (spec §7) before doing any.

use core::cmp::Ordering;

use super::Fail;
use crate::args::Span;
use crate::code;
use crate::crc32c::crc32c;
use crate::program::DataOp;
use crate::wire::{BYTES_PER_STEP, MAX_NEEDLE};

/// The second operand: a buffer for copy, compare and search, a value for
/// fill (the byte) and CRC (the count).
#[derive(Clone, Copy, Debug)]
pub(super) enum Second {
    Buf(Span),
    Value(u64),
}

/// Runs a data op. Returns its result and the extra steps it cost.
pub(super) fn execute(
    op: DataOp,
    first: Span,
    second: Second,
    third: u64,
    regions: &mut [&mut [u8]],
    steps_left: u32,
) -> Result<(u64, u32), Fail> {
    // The byte count is the third operand, except for CRC where it is the
    // second and the third is the seed.
    let n = match (op, second) {
        (DataOp::Crc32c, Second::Value(n)) => n,
        _ => third,
    };
    let fits = |span: Span| n <= u64::from(span.len);
    let counted_second = matches!(op, DataOp::Copy | DataOp::Memcmp);
    let second_fits = match second {
        Second::Buf(span) if counted_second => fits(span),
        _ => true,
    };
    if !fits(first) || !second_fits {
        return Err(Fail::Code(code::COUNT_TOO_LARGE));
    }
    // n fits in a region, so it fits in usize.
    let n = n as usize;
    let extra = (n as u64 / BYTES_PER_STEP) as u32;
    if extra > steps_left {
        return Err(Fail::Budget);
    }
    let out_of_bounds = Fail::Code(code::REF_OUT_OF_BOUNDS);
    let value = match (op, second) {
        (DataOp::Copy, Second::Buf(src)) => copy(regions, first, src, n).ok_or(out_of_bounds)?,
        (DataOp::Fill, Second::Value(byte)) => {
            let dst = first.get_mut(regions).ok_or(out_of_bounds)?;
            dst.get_mut(..n).ok_or(out_of_bounds)?.fill(byte as u8);
            n as u64
        }
        (DataOp::Memcmp, Second::Buf(b)) => {
            let a = first
                .get(regions)
                .and_then(|s| s.get(..n))
                .ok_or(out_of_bounds)?;
            let b = b
                .get(regions)
                .and_then(|s| s.get(..n))
                .ok_or(out_of_bounds)?;
            match a.cmp(b) {
                Ordering::Less => u64::MAX,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            }
        }
        (DataOp::Search, Second::Buf(needle)) => {
            let hay = first
                .get(regions)
                .and_then(|s| s.get(..n))
                .ok_or(out_of_bounds)?;
            let needle = needle.get(regions).ok_or(out_of_bounds)?;
            count_matches(hay, needle)
        }
        (DataOp::Crc32c, _) => {
            let data = first
                .get(regions)
                .and_then(|s| s.get(..n))
                .ok_or(out_of_bounds)?;
            u64::from(crc32c(third as u32, data))
        }
        // The verifier pairs each op with the right operand kinds, so no
        // other combination reaches here; refusing it is the safe answer.
        _ => return Err(Fail::Code(code::NOT_A_BUFFER)),
    };
    Ok((value, extra))
}

/// Copies `n` bytes from `src` to `dst`; overlap within a region is fine.
fn copy(regions: &mut [&mut [u8]], dst: Span, src: Span, n: usize) -> Option<u64> {
    let src_range = src.start..src.start.checked_add(n)?;
    if dst.region == src.region {
        let region = regions.get_mut(usize::from(dst.region))?;
        // copy_within panics on bad ranges; check them first.
        region.get(src_range.clone())?;
        region.get(dst.start..dst.start.checked_add(n)?)?;
        region.copy_within(src_range, dst.start);
    } else {
        let [d, s] = regions
            .get_disjoint_mut([usize::from(dst.region), usize::from(src.region)])
            .ok()?;
        let from = s.get(src_range)?;
        d.get_mut(dst.start..dst.start.checked_add(n)?)?
            .copy_from_slice(from);
    }
    Some(n as u64)
}

/// Counts non-overlapping occurrences of `needle` in `hay`, left to right:
/// after a match the search resumes at the byte after it, so `aa` occurs
/// twice in `aaaa`. An empty needle or one above [`MAX_NEEDLE`] counts 0
/// (the verifier refuses both; this is the safe answer if one got here).
///
/// `memmem`'s Two-Way search is linear in `hay.len() + needle.len()` in the
/// worst case, so the work stays proportional to the bytes the step budget
/// charged for; its prefilter skips to candidates for a rare needle byte a
/// word (or a vector) at a time instead of stepping through every byte.
/// A match right where the last one ended is checked directly: dense
/// matches (`aa` in `aaaa…`) would otherwise pay a searcher call each.
pub(crate) fn count_matches(hay: &[u8], needle: &[u8]) -> u64 {
    let m = needle.len();
    if m == 0 || m > MAX_NEEDLE {
        return 0;
    }
    let finder = memchr::memmem::Finder::new(needle);
    let (mut at, mut count) = (0usize, 0u64);
    // `at` never passes `hay.len()`: a match ends at most there.
    while let Some(rest) = hay.get(at..) {
        let found = if rest.starts_with(needle) {
            0
        } else {
            match finder.find(rest) {
                Some(found) => found,
                None => break,
            }
        };
        count += 1;
        at += found + m;
    }
    count
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn counts_non_overlapping_matches() {
        assert_eq!(count_matches(b"aaaa", b"aa"), 2);
        assert_eq!(count_matches(b"abababab", b"abab"), 2);
        assert_eq!(count_matches(b"xyz", b"xyzw"), 0);
        assert_eq!(count_matches(b"aabaabaab", b"aab"), 3);
        assert_eq!(count_matches(b"abcabdabcabd", b"abcabd"), 2);
        assert_eq!(count_matches(b"anything", b""), 0);
    }

    /// The rule `SEARCH` has always had, one window at a time: leftmost
    /// match first, the next search starting after it; 0 for an empty or
    /// over-long needle.
    fn naive_count(hay: &[u8], needle: &[u8]) -> u64 {
        let len = needle.len();
        if len == 0 || len > MAX_NEEDLE {
            return 0;
        }
        let (mut count, mut i) = (0, 0);
        while i + len <= hay.len() {
            if &hay[i..i + len] == needle {
                count += 1;
                i += len;
            } else {
                i += 1;
            }
        }
        count
    }

    #[test]
    fn search_agrees_with_a_naive_count() {
        let hay = b"abaababaabaababaababaabaababaabab";
        for len in 1..6 {
            for start in 0..hay.len() - len {
                let needle = &hay[start..start + len];
                let naive = naive_count(hay, needle);
                assert_eq!(count_matches(hay, needle), naive, "needle {needle:?}");
            }
        }
    }

    #[test]
    fn edge_lengths() {
        let long = [b'a'; MAX_NEEDLE + 1];
        assert_eq!(count_matches(&long, &long), 0, "needle above MAX_NEEDLE");
        assert_eq!(count_matches(&long, &long[..MAX_NEEDLE]), 1);
        assert_eq!(count_matches(&long[..MAX_NEEDLE], &long[..MAX_NEEDLE]), 1);
        assert_eq!(count_matches(&long[..3], &long[..4]), 0, "needle longer");
        assert_eq!(count_matches(b"", b"a"), 0);
        assert_eq!(count_matches(b"", b""), 0);
        assert_eq!(count_matches(&[b'a'; 4096], b"a"), 4096);
        assert_eq!(count_matches(&[b'a'; 4096], b"aaa"), 1365);
    }

    /// Bytes from a small alphabet, so that matches, near misses and
    /// self-overlapping needles are common.
    fn text(max: usize) -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(&b"aabc\x00\xff"[..]), 0..max)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4_000, ..ProptestConfig::default() })]

        #[test]
        fn agrees_with_the_naive_count(hay in text(700), needle in text(12)) {
            prop_assert_eq!(count_matches(&hay, &needle), naive_count(&hay, &needle));
        }

        #[test]
        fn agrees_on_needles_cut_from_the_haystack(
            hay in text(1200),
            start in 0usize..1200,
            len in 0usize..=MAX_NEEDLE + 2,
        ) {
            let start = start.min(hay.len());
            let needle = &hay[start..(start + len).min(hay.len())];
            prop_assert_eq!(count_matches(&hay, needle), naive_count(&hay, needle));
        }

        #[test]
        fn agrees_on_arbitrary_bytes(
            hay in prop::collection::vec(any::<u8>(), 0..300),
            needle in prop::collection::vec(any::<u8>(), 0..3),
        ) {
            prop_assert_eq!(count_matches(&hay, &needle), naive_count(&hay, &needle));
        }
    }
}
