//! Flagger: spins with RFLAGS.DF and AC set, the state of a task caught
//! inside a backward `rep movs` (DF) or one that lifted SMAP for itself
//! (AC). Interrupt gates do not clear either flag, so every timer and
//! device interrupt taken here enters the kernel with them; the kernel
//! must clear them for itself (compiled Rust assumes DF clear) and give
//! them back untouched when the task resumes. After each round the task
//! checks its flags survived the interrupts.
#![no_std]
#![no_main]

use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const DF: u64 = 1 << 10;
const AC: u64 = 1 << 18;
/// Rounds of spinning, each long enough to span several ticks.
const ROUNDS: usize = 200;
const SPIN: u64 = 3_000_000;

/// Sets DF and AC, spins `SPIN` iterations, and returns RFLAGS as they
/// were at the end of the spin (before the flags are cleared again).
fn spin_with_flags() -> u64 {
    let flags: u64;
    // Safety: only the flags change; `std` and AC are cleared again before
    // the block ends, so the compiled code after it sees DF clear, as the
    // ABI requires. No memory is touched but the stack slot of pushfq.
    unsafe {
        core::arch::asm!(
            "pushfq",
            "or qword ptr [rsp], {ac}",
            "popfq",
            "std",
            "2:",
            "dec {n}",
            "jnz 2b",
            "pushfq",
            "pop {f}",
            "cld",
            "pushfq",
            "and qword ptr [rsp], {not_ac}",
            "popfq",
            ac = const AC as i32,
            not_ac = const !AC as i32,
            n = inout(reg) SPIN => _,
            f = out(reg) flags,
        );
    }
    flags
}

fn main() {
    println!("spinning with DF and AC set");
    let mut c = Checks::new();
    let mut kept = 0;
    for _ in 0..ROUNDS {
        let f = spin_with_flags();
        if f & (DF | AC) == DF | AC {
            kept += 1;
        }
    }
    c.eq(
        "DF and AC kept through every round's interrupts",
        kept,
        ROUNDS,
    );
    c.finish();
}
