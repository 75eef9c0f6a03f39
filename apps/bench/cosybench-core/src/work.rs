//! dbsim's work, apart from the file server: the block sequence
//! (xorshift64, shifts 13, 7, 17) and what one process runs
//! ([`crate::dbsim`] runs it).

/// Where process 0's block sequence starts (never 0: xorshift would stay
/// there).
pub const SEED: u64 = 0x2545_f491_4f6c_dd1d;
/// The block size.
pub const BLOCK: u64 = crate::layout::CHUNK_LEN as u64;

/// The next state of xorshift64.
pub fn next(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// Where process `k`'s block sequence starts: [`SEED`] for the first
/// (the single-process run's sequence), a different non-zero state for
/// each other.
pub fn seed(k: u64) -> u64 {
    match SEED ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15) {
        0 => SEED,
        s => s,
    }
}

/// What one process runs: `reads` transactions over a file of `blocks`
/// blocks from block-sequence state `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    pub reads: u64,
    pub blocks: u64,
    pub seed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_process_starts_its_own_sequence_and_the_first_is_the_single_runs() {
        assert_eq!(seed(0), SEED);
        let seeds = [seed(0), seed(1), seed(2), seed(3)];
        for (i, a) in seeds.iter().enumerate() {
            assert_ne!(*a, 0);
            assert!(seeds[i + 1..].iter().all(|b| b != a));
        }
        // xorshift64's first step from 1, by hand: 1 ^ 1 << 13 = 0x2001;
        // ^ 0x2001 >> 7 = 0x2041; ^ 0x2041 << 17.
        assert_eq!(next(1), 0x2041 | (0x2041 << 17));
    }
}
