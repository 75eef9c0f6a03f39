//! Poker: keeps a call pending on endpoint `mine`, each with a capability
//! attached, until an answer has label 2 (`STOP`). A task testing hostile
//! `recv` encodings on `mine` then never blocks for want of a sender, even
//! when the kernel wrongly accepts an encoding.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

conflux_userlib::entry!(main);

use config::caps;

const STOP: u32 = 2;

fn main() {
    let mine = Endpoint(caps::MINE);
    let mut calls = 0u64;
    loop {
        calls += 1;
        match mine.call(&Message::new(1, &[calls]).with_cap(caps::TOKEN)) {
            Ok(m) if m.label == STOP => break,
            Ok(_) => {}
            Err(e) => {
                println!("call {calls} failed: {e:?}");
                break;
            }
        }
    }
    println!("done after {calls} calls");
}
