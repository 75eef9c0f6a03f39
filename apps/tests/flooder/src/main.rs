//! Flooder: writes lines to the console as fast as it can, the way a
//! server retrying a failing call in a loop would, and checks what the
//! kernel's console budget promises: every write is either taken whole or
//! dropped whole (0 bytes written), no more gets through than the burst
//! plus the rate for the time the flood took, and after a quiet spell the
//! task prints normally again. It signals `flooding` once its writes are
//! being dropped, for the bystander to print beside it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::syscall::{CONSOLE_BURST_BYTES, CONSOLE_BYTES_PER_TICK};
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::Checks;
use conflux_userlib::{println, sys};

conflux_userlib::entry!(main);

/// How long the flood lasts, in ticks (far longer than the burst lasts).
const FLOOD_TICKS: u64 = 60;
const LINE: &[u8] = b"flooding the console with line after line ....\n";

fn main() {
    let clock = Notification(config::caps::CLOCK);
    let flooding = Notification(config::caps::FLOODING);
    let mut c = Checks::new();
    let start = clock.timer(0).unwrap_or(0);
    let (mut taken, mut dropped, mut other) = (0u64, 0u64, 0u64);
    let mut now = start;
    while now < start + FLOOD_TICKS {
        for _ in 0..100 {
            match sys::debug_write(LINE) {
                Ok(0) => {
                    if dropped == 0 {
                        // Cut off: the bystander prints beside the flood.
                        let _ = flooding.signal();
                    }
                    dropped += 1;
                }
                Ok(n) if n == LINE.len() => taken += 1,
                _ => other += 1,
            }
        }
        now = clock.timer(0).unwrap_or(u64::MAX);
    }
    // Quiet for a while: the budget fills again (32 KiB at 256 B a tick
    // takes 128 ticks), which ends the spell.
    let _ = clock.timer(150);
    let _ = clock.wait();
    println!(
        "{taken} writes taken and {dropped} dropped in {} ticks",
        now - start
    );
    c.eq("every write taken whole or dropped whole", other, 0);
    c.that("the flood was cut", dropped > 0, dropped);
    let allowed =
        u64::from(CONSOLE_BURST_BYTES) + u64::from(CONSOLE_BYTES_PER_TICK) * (now - start + 1);
    c.that(
        "no more than the burst and the rate got through",
        taken * LINE.len() as u64 <= allowed,
        (taken * LINE.len() as u64, allowed),
    );
    c.finish();
}
