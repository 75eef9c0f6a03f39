//! NMI pinger: many IPC round trips with `test-pong`, each answer checked,
//! plus a running checksum carried in registers across the calls, while
//! the runner injects NMIs. An NMI landing in the IPC path (user or
//! kernel side) must not lose or change a message or a register.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const ROUNDS: u64 = 200_000;

fn main() {
    let pong = Endpoint(config::caps::PONG);
    conflux_userlib::println!("calling pong {ROUNDS} times");
    let (mut bad, mut sum) = (0u64, 0u64);
    for i in 0..ROUNDS {
        match pong.call(&Message::new(1, &[i, !i])) {
            Ok(m) if m.words[0] == i * 3 + 1 && m.words[1] == !i => {
                sum = sum.wrapping_add(m.words[0]);
            }
            other => {
                bad += 1;
                if bad < 5 {
                    conflux_userlib::println!("round {i}: wrong answer {other:?}");
                }
            }
        }
    }
    let mut c = Checks::new();
    c.eq("wrong answers", bad, 0);
    // Σ (3i + 1) for i in 0..ROUNDS.
    c.eq(
        "sum of answers",
        sum,
        3 * (ROUNDS * (ROUNDS - 1) / 2) + ROUNDS,
    );
    c.eq(
        "pong stops",
        pong.call(&Message::new(9, &[])).map(|m| m.label),
        Ok(9),
    );
    c.finish();
}
