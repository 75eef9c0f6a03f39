//! Hostile: a million syscalls with random numbers and arguments.
//!
//! The generator is seeded from the TSC, or from `CONFLUX_HOSTILE_SEED` at
//! build time to reproduce a run (the seed is printed first). Only `exit`
//! and `panic` are never chosen (either would end the run early). The task
//! holds a write-only notification, a region and an endpoint whose server
//! answers everything, so no call can block it forever; it never deletes
//! those initial capabilities (minted ones are fair game). Everything else
//! is random, including pointers into the kernel and non-canonical
//! addresses.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::{SysError, Sysno};
use conflux_userlib::hostile::{parse_knob as parse, Rng};
use conflux_userlib::println;
use conflux_userlib::sys::{rdtsc, syscall6};

conflux_userlib::entry!(main);

/// Syscalls to make; `CONFLUX_HOSTILE_CALLS` at build time overrides it.
const DEFAULT_CALLS: u64 = 1_000_000;

fn main() {
    let seed = parse(option_env!("CONFLUX_HOSTILE_SEED")).unwrap_or_else(|| rdtsc() | 1);
    let calls = parse(option_env!("CONFLUX_HOSTILE_CALLS")).unwrap_or(DEFAULT_CALLS);
    println!("seed {seed:#x} ({calls} calls); reproduce with CONFLUX_HOSTILE_SEED={seed:#x}");
    let mut rng = Rng(seed);
    let span = Sysno::ALL.len() as u64 + 3; // a few numbers past the last syscall
    let mut ok = 0u64;
    let mut by_error = [0u64; 16];
    for i in 0..calls {
        let mut num = rng.next_u64() % span;
        if num == Sysno::Exit as u64 || num == Sysno::Panic as u64 {
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
            && rng.next_u64().is_multiple_of(2)
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
