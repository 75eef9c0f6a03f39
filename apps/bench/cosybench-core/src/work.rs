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

/// What a run of `w` must answer in every configuration and path: the
/// bytes read and written plus the sum of the blocks' offsets (every
/// block is whole: the file is `blocks` blocks long).
pub fn expected(w: Work) -> u64 {
    let mut x = w.seed;
    (0..w.reads).fold(0, |total, i| {
        x = next(x);
        let at = x % w.blocks * BLOCK;
        let written = if i & 1 == 1 { BLOCK } else { 0 };
        total + BLOCK + at + written
    })
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

    #[test]
    fn the_expected_answer_is_the_smoke_tests_worked_out_by_hand() {
        // cosybench-smoke's dbsim: 40 reads and 20 writes of 4 KiB in a
        // 256 KiB file, 245,760 bytes plus 5,181,440 of offsets; the
        // figure its test expects of the guest.
        let w = Work {
            reads: 40,
            blocks: 64,
            seed: SEED,
        };
        assert_eq!(expected(w), 5_427_200);
        assert_eq!(expected(Work { reads: 0, ..w }), 0);
        // One read: its block and its offset, nothing written.
        let at = next(SEED) % 64 * BLOCK;
        assert_eq!(expected(Work { reads: 1, ..w }), BLOCK + at);
    }
}
