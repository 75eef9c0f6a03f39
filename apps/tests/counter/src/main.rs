//! Counter: the memory of a task that is restarted on purpose.
//!
//! A restarted task starts from a fresh image, so it cannot remember how
//! often it ran. It calls this server (endpoint `count`): every call adds
//! the caller's word 0 (checks that failed) to a total and is answered
//! `[incarnation, failures so far]`; label 1 (`NEXT`) then counts one more
//! incarnation, label 2 (`STOP`) ends the server, any other label only
//! reports.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
/// Label of the call a new incarnation makes first.
const NEXT: u32 = 1;
/// Label of a call that ends the server after its answer.
const STOP: u32 = 2;

fn main() {
    let ep = Endpoint(config::caps::COUNT);
    let (mut next, mut failures) = (0u64, 0u64);
    let Ok(mut got) = ep.recv(REPLY, 0) else {
        println!("cannot receive");
        return;
    };
    loop {
        failures += got.msg.words[0];
        let answer = Message::new(0, &[next, failures]);
        if got.msg.label == NEXT {
            next += 1;
        }
        if got.msg.label == STOP {
            let _ = conflux_userlib::ipc::reply(REPLY, &answer);
            println!("stopped after {next} incarnations");
            return;
        }
        match ep.reply_recv(REPLY, 0, &answer) {
            Ok(g) => got = g,
            Err(e) => {
                println!("cannot receive: {e:?}");
                return;
            }
        }
    }
}
