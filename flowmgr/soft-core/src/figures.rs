//! A check sink's tally in the two words a stage's STATS answer adds
//! (`conflux_flow_stage::Work::figures`): good records in the first, and
//! missing, repeated and damaged ones, 21 bits each, in the second. A
//! count past 21 bits shows as the largest value rather than wrapping.

use conflux_flow_protocol::record::Tally;

const FIELD: u32 = 21;
const MAX: u64 = (1 << FIELD) - 1;

/// The two words for `tally`.
pub fn pack(tally: &Tally) -> [u64; 2] {
    let f = |v: u64| v.min(MAX);
    [
        tally.good,
        f(tally.missing) | f(tally.repeated) << FIELD | f(tally.damaged) << (2 * FIELD),
    ]
}

/// `(good, missing, repeated, damaged)` from the two words.
pub fn unpack(words: [u64; 2]) -> (u64, u64, u64, u64) {
    let w = words[1];
    (words[0], w & MAX, w >> FIELD & MAX, w >> (2 * FIELD) & MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_saturation() {
        let t = Tally {
            good: 1 << 40,
            missing: 3,
            repeated: 5,
            damaged: 7,
            bytes: 0,
        };
        assert_eq!(unpack(pack(&t)), (1 << 40, 3, 5, 7));
        let big = Tally {
            missing: 1 << 30,
            ..t
        };
        assert_eq!(unpack(pack(&big)), (1 << 40, MAX, 5, 7));
    }
}
