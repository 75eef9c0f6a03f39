//! The crash test's randomness: one seed per run, printed so that a
//! failure can be replayed (`CONFLUX_CRASH_SEED`), and the kill delays
//! drawn from it; `CONFLUX_CRASH_ROUNDS` overrides the manifest's rounds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Replays a run: the seed it printed.
pub const SEED_ENV: &str = "CONFLUX_CRASH_SEED";
/// Overrides `test.crash.rounds`.
pub const ROUNDS_ENV: &str = "CONFLUX_CRASH_ROUNDS";

/// The seed from `CONFLUX_CRASH_SEED`, or a new one from the clock.
pub fn seed() -> Result<u64, String> {
    match std::env::var(SEED_ENV) {
        Ok(text) => text.trim().parse().map_err(|_| {
            format!(
                "{SEED_ENV}={text:?} is not a seed: give the decimal number a crash test printed"
            )
        }),
        Err(_) => Ok(SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)),
    }
}

/// The rounds to run: `CONFLUX_CRASH_ROUNDS` if set (at least 2), else
/// the manifest's.
pub fn rounds(manifest: u32) -> Result<u32, String> {
    match std::env::var(ROUNDS_ENV) {
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(n) if n >= 2 => Ok(n),
            _ => Err(format!(
                "{ROUNDS_ENV}={text:?} is not a round count: give a whole number of at least 2 \
                 (one killed boot and the final one)"
            )),
        },
        Err(_) => Ok(manifest),
    }
}

/// SplitMix64: a small, well-mixed generator; the same seed gives the
/// same delays.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `min..=max` (`min <= max`).
    pub fn between(&mut self, min: u32, max: u32) -> u32 {
        let span = u64::from(max - min) + 1;
        min + (self.next() % span) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_same_seed_gives_the_same_delays_inside_the_window() {
        let draw = |seed| {
            let mut rng = Rng::new(seed);
            (0..100).map(|_| rng.between(200, 1500)).collect::<Vec<_>>()
        };
        assert_eq!(draw(42), draw(42));
        assert_ne!(draw(42), draw(43));
        assert!(draw(7).iter().all(|d| (200..=1500).contains(d)));
        assert_eq!(Rng::new(1).between(300, 300), 300);
    }
}
