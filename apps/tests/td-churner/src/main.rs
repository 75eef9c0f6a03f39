//! Churner: makes the frame allocator hand out (nearly) all free memory,
//! several times over, after another task ended.
//!
//! Tasks cannot allocate at run time, but a restart reloads a task with
//! fresh zeroed memory. This task has the largest heap the manifest allows
//! and `restart = "on-fault"`: each incarnation waits until the holder has
//! ended (its `bye` endpoint answers `DeadPeer`), learns its incarnation
//! from the counter, fills its whole heap with a pattern, checks every word
//! reads back, and faults on purpose. A frame wrongly freed at the holder's
//! teardown (a shared region's RAM, or a device page that is not RAM at
//! all) ends up in this heap: the holder's region changes under the
//! survivor, or a device page does not read back what was written.
//! The last incarnation signals `churned` and stops the counter.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::println;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

/// Incarnations that churn before the last one reports.
const ROUNDS: u64 = 6;
/// Labels understood by test-counter.
const NEXT: u32 = 1;
const STOP: u32 = 2;
const REPORT: u32 = 3;
/// Heap left to the allocator's own bookkeeping.
const SLACK: usize = 4096;

fn pattern(incarnation: u64, i: usize) -> u64 {
    0x5a5a_0000_0000_0000 ^ incarnation << 48 ^ i as u64
}

/// The first word that did not read back: its address, value and pattern.
#[derive(Debug, Default)]
struct Mismatch {
    at: u64,
    got: u64,
    want: u64,
}

/// Fills a heap-sized vector; returns how many words did not read back,
/// and the first of them.
fn churn(incarnation: u64) -> (usize, Mismatch) {
    let n = (config::HEAP_SIZE - SLACK) / 8;
    let mut v: Vec<u64> = Vec::with_capacity(n);
    v.extend((0..n).map(|i| pattern(incarnation, i)));
    // Make the compiler read the memory back instead of trusting its copy.
    let v = core::hint::black_box(v);
    let mut bad = v
        .iter()
        .enumerate()
        .filter(|&(i, &w)| w != pattern(incarnation, i));
    let first = bad.next().map(|(i, &got)| Mismatch {
        at: v.as_ptr() as u64 + 8 * i as u64,
        got,
        want: pattern(incarnation, i),
    });
    let count = first.is_some() as usize + bad.count();
    (count, first.unwrap_or_default())
}

fn main() {
    let count = Endpoint(caps::COUNT);
    let gone = Endpoint(caps::BYE).call(&Message::new(1, &[]));
    if gone.map(drop) != Err(SysError::DeadPeer) {
        println!("CHECK FAILED: the holder has ended: got {gone:?}, expected Err(DeadPeer)");
    }
    let Ok(m) = count.call(&Message::new(NEXT, &[0])) else {
        println!("CHECK FAILED: the counter answers");
        return;
    };
    let (incarnation, failed) = (m.words[0], m.words[1]);
    if incarnation < ROUNDS {
        let (bad, first) = churn(incarnation);
        let what = "whole heap reads back its pattern";
        if bad == 0 {
            let bytes = config::HEAP_SIZE - SLACK;
            println!("ok: incarnation {incarnation}: {what} ({bytes} bytes)");
        } else {
            let Mismatch { at, got, want } = first;
            println!(
                "CHECK FAILED: incarnation {incarnation}: {what}: {bad} words differ; \
                 first at {at:#x}: got {got:#x}, expected {want:#x}"
            );
        }
        let _ = count.call(&Message::new(REPORT, &[(bad != 0) as u64]));
        println!("faulting on purpose to be restarted");
        conflux_userlib::testing::fault_on_purpose();
    }
    let _ = Notification(caps::CHURNED).signal();
    let _ = count.call(&Message::new(STOP, &[0]));
    if failed == 0 {
        println!("all {ROUNDS} checks passed");
    } else {
        println!("{failed} of {ROUNDS} checks FAILED");
    }
    conflux_userlib::sys::exit(failed);
}
