//! IPC benchmark, peer side (task `peer`): serves phase 1 and measures
//! phases 2 and 3 (see the driver's documentation).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::bench::{Samples, ROUNDS, WARMUP};
use conflux_userlib::ipc::{Endpoint, Message, Notification, Region};
use conflux_userlib::sys::{rdtsc, yield_now};

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;

fn main() {
    let rpc = Endpoint(caps::RPC);
    let mut answer = Message::default();
    loop {
        let Ok(got) = rpc.reply_recv(REPLY, 0, &answer) else {
            return;
        };
        if got.msg.label == 9 {
            let _ = conflux_userlib::ipc::reply(REPLY, &Message::default());
            break;
        }
        answer = got.msg;
    }

    let stamp = Region(caps::STAMP).premapped(caps::STAMP_ADDR, caps::STAMP_SIZE);
    let (go, back) = (Notification(caps::GO), Notification(caps::BACK));
    let mut notify = Samples::new("notify_wait", ROUNDS);
    for i in 0..WARMUP + ROUNDS {
        let _ = go.wait();
        let dt = rdtsc() - stamp.read_u64(0).expect("stamp word 0");
        if i >= WARMUP {
            notify.push(dt);
        }
        let _ = back.signal();
    }
    let mut switch = Samples::new("yield_switch", ROUNDS);
    for i in 0..WARMUP + ROUNDS {
        yield_now();
        let dt = rdtsc().wrapping_sub(stamp.read_u64(8).expect("stamp word 1"));
        if i >= WARMUP {
            switch.push(dt);
        }
    }
    notify.report();
    switch.report();
}
