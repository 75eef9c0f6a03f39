//! Ticker: wakes on its own timer many times through a notification bound
//! to its receive loop. Each expiry is an interrupt that finds the other
//! task (the flagger) running, so the kernel delivers this task's message
//! from inside an interrupt taken with that task's flags.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Notification};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const WAKES: usize = 50;

fn main() {
    let ep = Endpoint(config::caps::SVC);
    let ev = Notification(config::caps::EV);
    let mut c = Checks::new();
    c.eq("bound ev to the receive loop", ev.bind(&ep), Ok(()));
    let mut woke = 0;
    for _ in 0..WAKES {
        if ev.timer(1).is_err() {
            break;
        }
        match ep.recv(config::caps::FIRST_FREE, 0) {
            Ok(r) if r.notified() == Some(1) => woke += 1,
            other => {
                c.that("each receive ends with the timer's expiry", false, other);
                break;
            }
        }
    }
    c.eq("woke on every expiry", woke, WAKES);
    c.finish();
}
