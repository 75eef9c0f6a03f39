//! NMI spinner: sums i, i² and i³ over a long loop without any syscall,
//! then checks the sums against their closed forms. NMIs the runner
//! injects meanwhile land on it (or on whatever else runs); if the kernel
//! lost or changed any of its registers, a sum would be wrong (or the task
//! would fault).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Enough work to span several seconds under TCG.
const ROUNDS: u64 = 400_000_000;

/// Σ i, Σ i², Σ i³ for i in 0..n, modulo 2^64.
fn closed_forms(n: u64) -> (u64, u64, u64) {
    let n = u128::from(n);
    let s1 = n * (n - 1) / 2;
    let s2 = (n - 1) * n * (2 * n - 1) / 6;
    // s1² overflows u128 for large n: square modulo 2^64 instead.
    let s1_low = s1 as u64;
    (s1 as u64, s2 as u64, s1_low.wrapping_mul(s1_low))
}

fn main() {
    println!("spinning without syscalls");
    let (mut s1, mut s2, mut s3) = (0u64, 0u64, 0u64);
    for i in 0..ROUNDS {
        let i = core::hint::black_box(i);
        s1 = s1.wrapping_add(i);
        s2 = s2.wrapping_add(i.wrapping_mul(i));
        s3 = s3.wrapping_add(i.wrapping_mul(i).wrapping_mul(i));
    }
    let (w1, w2, w3) = closed_forms(ROUNDS);
    let mut c = Checks::new();
    c.eq("checksum sum of i", s1, w1);
    c.eq("checksum sum of i^2", s2, w2);
    c.eq("checksum sum of i^3", s3, w3);
    c.finish();
}
