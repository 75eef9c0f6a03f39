//! The soak's random choices (what to kill, when, which file to fetch)
//! come from one printed seed, so a run can be repeated: xorshift64.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x2545_f491_4f6c_dd1d | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// Another generator drawn from this one (a client's own).
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next())
    }
}

/// A seed from the clock, for a run not asked to repeat one.
pub fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64 ^ u64::from(std::process::id()))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_repeats_its_choices_and_stays_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            let x = a.between(20, 40);
            assert_eq!(x, b.between(20, 40));
            assert!((20..=40).contains(&x));
        }
        assert_ne!(Rng::new(7).next(), Rng::new(8).next());
    }
}
