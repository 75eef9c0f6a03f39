//! Byte ranges (RFC 9110, section 14): the `Range` header parsed once
//! into a [`RangeSet`], and the part of a file it selects.
//!
//! [`RangeSet::parse`] takes the header's value, untrusted: `bytes=`
//! (the unit in any case) and a comma-separated list (empty elements and
//! whitespace around commas allowed, as for any list) of `first-last`,
//! `first-` and `-suffix`, with decimal numbers. A `last` below its
//! `first`, another unit, anything else, or more than [`MAX_RANGES`]
//! elements make the whole header `None`: a server may ignore a Range
//! header, and one it cannot read is best ignored (the client gets the
//! whole file). Numbers too large for 64 bits are read as the largest
//! (a range starting there is past any file's end).
//!
//! [`RangeSet::select`] then decides, for a file of a given length:
//! one satisfiable range is a part (206 with `Content-Range`); none
//! satisfiable is 416 (with `Content-Range: bytes */length`); several
//! are answered with the whole file (200), which the RFC allows and
//! spares httpd multipart bodies. A zero-length file is always sent
//! whole: no range of it can be named.

use alloc::vec::Vec;

/// Most elements a Range header may list before it is ignored.
pub const MAX_RANGES: usize = 64;

/// One element of a range set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `first-last` or, with `last` `None`, `first-`.
    From { first: u64, last: Option<u64> },
    /// `-n`: the last `n` bytes.
    Suffix(u64),
}

/// A `bytes` Range header that passed the checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeSet {
    specs: Vec<Spec>,
}

/// What a range set selects from a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected {
    /// The whole file, 200.
    Whole,
    /// Bytes `first..=last`, 206.
    Part { first: u64, last: u64 },
    /// Nothing the file has, 416.
    Unsatisfiable,
}

impl RangeSet {
    /// The header's value (trimmed), or `None` to ignore the header.
    pub fn parse(value: &str) -> Option<RangeSet> {
        let (unit, set) = value.split_once('=')?;
        if !unit.eq_ignore_ascii_case("bytes") {
            return None;
        }
        let mut specs = Vec::new();
        for element in set.split(',') {
            let element = element.trim_matches([' ', '\t']);
            if element.is_empty() {
                continue;
            }
            if specs.len() == MAX_RANGES {
                return None;
            }
            specs.push(spec(element)?);
        }
        (!specs.is_empty()).then_some(RangeSet { specs })
    }

    /// The elements, in the order sent.
    pub fn specs(&self) -> &[Spec] {
        &self.specs
    }

    /// What the set selects from a file of `len` bytes.
    pub fn select(&self, len: u64) -> Selected {
        if len == 0 {
            return Selected::Whole;
        }
        let mut satisfiable = self.specs.iter().filter_map(|s| part(*s, len));
        match (satisfiable.next(), satisfiable.next()) {
            (None, _) => Selected::Unsatisfiable,
            (Some((first, last)), None) => Selected::Part { first, last },
            (Some(_), Some(_)) => Selected::Whole,
        }
    }
}

/// The bytes `spec` names in a file of `len` (> 0) bytes, if any.
fn part(spec: Spec, len: u64) -> Option<(u64, u64)> {
    match spec {
        Spec::From { first, .. } if first >= len => None,
        Spec::From { first, last } => Some((first, last.unwrap_or(u64::MAX).min(len - 1))),
        Spec::Suffix(0) => None,
        Spec::Suffix(n) => Some((len - n.min(len), len - 1)),
    }
}

/// One element: `first-last`, `first-` or `-suffix`.
fn spec(element: &str) -> Option<Spec> {
    let (first, last) = element.split_once('-')?;
    if first.is_empty() {
        return Some(Spec::Suffix(number(last)?));
    }
    let first = number(first)?;
    if last.is_empty() {
        return Some(Spec::From { first, last: None });
    }
    let last = number(last)?;
    (last >= first).then_some(Spec::From {
        first,
        last: Some(last),
    })
}

/// Decimal digits, saturating at `u64::MAX`.
fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.bytes().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}
