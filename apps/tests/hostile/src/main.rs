//! Hostile: a million syscalls with random numbers and arguments.
//!
//! The generator is seeded from the TSC, or from `CONFLUX_HOSTILE_SEED` at
//! build time to reproduce a run (the seed is printed first). Only `exit`
//! is never chosen (it would end the run early). The task holds a write-only
//! notification, a region and an endpoint whose server answers everything,
//! so no call can block it forever; it never deletes those initial
//! capabilities (minted ones are fair game). Everything else is random,
//! including pointers into the kernel and non-canonical addresses.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::layout::REGION_BASE;
use conflux_abi::{SysError, Sysno};
use conflux_userlib::println;
use conflux_userlib::sys::{rdtsc, syscall6};

conflux_userlib::entry!(main);

/// Syscalls to make; `CONFLUX_HOSTILE_CALLS` at build time overrides it.
const DEFAULT_CALLS: u64 = 1_000_000;

fn parse(s: Option<&str>) -> Option<u64> {
    let s = s?;
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// xorshift64*: small, fast, and good enough to spread arguments.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// An argument: small numbers (slots, lengths), addresses of every
    /// kind, or raw noise.
    fn arg(&mut self) -> u64 {
        let r = self.next();
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

fn main() {
    let seed = parse(option_env!("CONFLUX_HOSTILE_SEED")).unwrap_or_else(|| rdtsc() | 1);
    let calls = parse(option_env!("CONFLUX_HOSTILE_CALLS")).unwrap_or(DEFAULT_CALLS);
    println!("seed {seed:#x} ({calls} calls); reproduce with CONFLUX_HOSTILE_SEED={seed:#x}");
    let mut rng = Rng(seed);
    let span = Sysno::ALL.len() as u64 + 3; // a few numbers past the last syscall
    let mut ok = 0u64;
    let mut by_error = [0u64; 16];
    for i in 0..calls {
        let mut num = rng.next() % span;
        if num == Sysno::Exit as u64 {
            num = Sysno::Yield as u64;
        }
        let mut a = [
            rng.arg(),
            rng.arg(),
            rng.arg(),
            rng.arg(),
            rng.arg(),
            rng.arg(),
        ];
        if num == Sysno::DebugWrite as u64 {
            // Never a pointer into our own memory: that would print it.
            a[0] |= 0xffff_0000_0000_0000;
        }
        if num == Sysno::CapDelete as u64 && a[0] < config::caps::FIRST_FREE as u64 {
            // Keep the initial capabilities, so calls keep reaching the deep
            // paths (IPC, mapping, minting) instead of failing at lookup.
            a[0] += config::caps::FIRST_FREE as u64;
        }
        if matches!(Sysno::from_raw(num), Some(Sysno::Call | Sysno::Send))
            && rng.next().is_multiple_of(2)
        {
            a[0] = config::caps::SINK as u64; // reach the sink often, not just by chance
        }
        let r = syscall6(num, a[0], a[1], a[2], a[3], a[4], a[5]);
        match SysError::from_code(r.rax) {
            None if r.rax == 0 => ok += 1,
            Some(e) => by_error[(e.code() as usize).min(15)] += 1,
            None => {
                println!(
                    "call {i}: syscall {num} returned unknown status {:#x}",
                    r.rax
                );
            }
        }
    }
    println!("{calls} syscalls done: {ok} succeeded");
    for e in SysError::ALL {
        let n = by_error[(e.code() as usize).min(15)];
        if n > 0 {
            println!("  {n:>8} x {e:?}");
        }
    }
}
