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

/// Counts non-overlapping occurrences of `needle` in `hay`, left to right,
/// in linear time (Knuth–Morris–Pratt with a table on the stack).
pub(crate) fn count_matches(hay: &[u8], needle: &[u8]) -> u64 {
    let m = needle.len();
    if m == 0 || m > MAX_NEEDLE {
        return 0;
    }
    // fail[i]: length of the longest proper prefix of needle[..=i] that is
    // also its suffix. Always < m <= 256, so it fits a u8.
    let mut fail = [0u8; MAX_NEEDLE];
    let mut k = 0usize;
    for i in 1..m {
        while k > 0 && needle[i] != needle[k] {
            k = usize::from(fail[k - 1]);
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        fail[i] = k as u8;
    }
    let (mut q, mut count) = (0usize, 0u64);
    for &byte in hay {
        while q > 0 && byte != needle[q] {
            q = usize::from(fail[q - 1]);
        }
        if byte == needle[q] {
            q += 1;
        }
        if q == m {
            count += 1;
            q = 0;
        }
    }
    count
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn search_agrees_with_a_naive_count() {
        let hay = b"abaababaabaababaababaabaababaabab";
        for len in 1..6 {
            for start in 0..hay.len() - len {
                let needle = &hay[start..start + len];
                let (mut naive, mut i) = (0, 0);
                while i + len <= hay.len() {
                    if &hay[i..i + len] == needle {
                        naive += 1;
                        i += len;
                    } else {
                        i += 1;
                    }
                }
                assert_eq!(count_matches(hay, needle), naive, "needle {needle:?}");
            }
        }
    }
}
