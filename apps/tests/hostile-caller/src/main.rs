//! Caller: keeps a call pending on the hostile task's endpoint `hin`, each
//! with one of its capabilities attached in turn (a notification, a region,
//! an endpoint), so the hostile task receives transferred capabilities and
//! holds reply capabilities. A `DeadPeer` (the hostile task died or was
//! restarted) is retried; an answer with label 2 (`STOP`) and word 0
//! `STOP_WORD` ends the task (random replies from the hostile task carry
//! random labels, so the label alone could be forged by chance).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::sys::yield_now;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const STOP: u32 = 2;
const STOP_WORD: u64 = 0x5709_5709_5709_5709;
/// Consecutive failed calls after which the hostile task is taken to be gone.
const PATIENCE: u64 = 100_000;

fn main() {
    let hin = Endpoint(caps::HIN);
    let gifts = [caps::CN, caps::CR, caps::CSINK];
    let (mut calls, mut answered, mut failing) = (0u64, 0u64, 0u64);
    while failing < PATIENCE {
        let gift = gifts[(calls % gifts.len() as u64) as usize];
        calls += 1;
        match hin.call(&Message::new(1, &[calls]).with_cap(gift)) {
            Ok(m) if m.label == STOP && m.words[0] == STOP_WORD => {
                println!("told to stop after {answered} answered calls");
                return;
            }
            Ok(_) => {
                answered += 1;
                failing = 0;
            }
            Err(SysError::DeadPeer) => {
                failing += 1;
                yield_now();
            }
            Err(e) => {
                println!("call {calls} failed: {e:?}");
                return;
            }
        }
    }
    println!("the hostile task stayed unreachable; giving up after {answered} answered calls");
}
