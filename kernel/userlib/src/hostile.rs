//! Random syscall arguments for hostile tests: a seeded generator that
//! spreads values over every interesting range (slots, the slot limit,
//! the region window, the kernel half, unmapped user memory, zero, noise),
//! and the parsing of the build-time knobs that reproduce a run.

use conflux_abi::layout::REGION_BASE;

/// xorshift64*: small, fast, and good enough to spread arguments.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// An argument: small numbers (slots, lengths), addresses of every
    /// kind, or raw noise.
    pub fn arg(&mut self) -> u64 {
        let r = self.next_u64();
        match r % 8 {
            0 | 1 => r >> 58,                           // 0..63: slots
            2 => (r >> 56) + 60,                        // around the slot limit
            3 => REGION_BASE + ((r >> 40) % 64) * 4096, // region window
            4 => 0xffff_8000_0000_0000 | (r >> 20),     // kernel half
            5 => r >> 17,                               // user half, mostly unmapped
            6 => 0,
            _ => r, // anything
        }
    }
}

/// A build-time number (`option_env!`), decimal or `0x` hexadecimal.
pub fn parse_knob(s: Option<&str>) -> Option<u64> {
    let s = s?;
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}
