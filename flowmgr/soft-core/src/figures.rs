//! A check sink's tally in the two words a stage's STATS answer adds
//! (`conflux_flow_stage::Work::figures`); the packing is the protocol's
//! ([`Tally::to_words`]), so applications and the shell read it without
//! this crate. Kept as functions for the stage and the tests that use them.

use conflux_flow_protocol::record::Tally;

/// The two words for `tally`.
pub fn pack(tally: &Tally) -> [u64; 2] {
    tally.to_words()
}

/// `(good, missing, repeated, damaged)` from the two words.
pub fn unpack(words: [u64; 2]) -> (u64, u64, u64, u64) {
    Tally::from_words(words)
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
        assert_eq!(unpack(pack(&big)), (1 << 40, (1 << 21) - 1, 5, 7));
    }
}
