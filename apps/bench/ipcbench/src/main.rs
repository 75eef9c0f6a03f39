//! IPC benchmark, driver side (task `bench`). Three phases, each with
//! warm-up rounds that are not recorded:
//!
//! 1. `call_reply_roundtrip`: `call` to the peer, which answers with
//!    `reply_recv`; the driver times each round trip.
//! 2. `notify_wait`: the driver stamps the TSC into shared memory and
//!    signals; the peer, woken from `wait`, records now − stamp.
//! 3. `yield_switch`: the driver stamps and yields; the peer, returning from
//!    its own yield, records now − stamp: one context switch.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::bench::{Samples, ROUNDS, WARMUP};
use conflux_userlib::ipc::{Endpoint, Message, Notification, Region};
use conflux_userlib::sys::{rdtsc, yield_now};

conflux_userlib::entry!(main);

use config::caps;

fn main() {
    let rpc = Endpoint(caps::RPC);
    let msg = Message::new(1, &[1, 2, 3, 4]);
    let mut calls = Samples::new("call_reply_roundtrip", ROUNDS);
    for i in 0..WARMUP + ROUNDS {
        let t0 = rdtsc();
        let r = rpc.call(&msg);
        let dt = rdtsc() - t0;
        if r.is_err() {
            conflux_userlib::println!("call failed: {r:?}");
            return;
        }
        if i >= WARMUP {
            calls.push(dt);
        }
    }
    let _ = rpc.call(&Message::new(9, &[]));
    calls.report();

    let stamp = Region(caps::STAMP).premapped(caps::STAMP_ADDR, caps::STAMP_SIZE);
    // Words 0 and 8 of the 4 KiB region: always inside, so `expect` never fires.
    let (go, back) = (Notification(caps::GO), Notification(caps::BACK));
    for _ in 0..WARMUP + ROUNDS {
        stamp.write_u64(0, rdtsc()).expect("stamp word 0");
        let _ = go.signal();
        let _ = back.wait();
    }
    for _ in 0..WARMUP + ROUNDS {
        stamp.write_u64(8, rdtsc()).expect("stamp word 1");
        yield_now();
    }
}
