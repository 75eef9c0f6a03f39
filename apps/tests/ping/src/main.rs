//! Ping: thousands of IPC round trips whose answers it checks, while the
//! hostile task hammers the kernel.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const ROUNDS: u64 = 20_000;

fn main() {
    let pong = Endpoint(config::caps::PONG);
    let mut bad = 0;
    for i in 0..ROUNDS {
        match pong.call(&Message::new(1, &[i, !i])) {
            Ok(m) if m.words[0] == i * 3 + 1 && m.words[1] == !i => {}
            other => {
                bad += 1;
                if bad < 5 {
                    conflux_userlib::println!("round {i}: wrong answer {other:?}");
                }
            }
        }
    }
    let mut c = Checks::new();
    c.eq("wrong answers in 20000 round trips", bad, 0);
    c.eq(
        "pong stops",
        pong.call(&Message::new(9, &[])).map(|m| m.label),
        Ok(9),
    );
    c.finish();
}
