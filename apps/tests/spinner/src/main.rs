//! Spinner: computes for a long while without yielding or making any
//! syscall. Only the timer can take the CPU away from it, so a witness that
//! finishes first proves preemption works.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Enough work to span many scheduling ticks under TCG and icount.
const ROUNDS: u64 = 20_000_000;

fn main() {
    println!("spinning without yielding");
    let mut x: u64 = 1;
    for i in 0..ROUNDS {
        x = core::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    println!("done spinning ({x:#x})");
}
