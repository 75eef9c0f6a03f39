//! Panicker: a panic must be a fault, not an exit. The first
//! [`PANICS`] incarnations panic; init must report each panic as one and
//! restart the task (its manifest says `restart = "on-fault"`), so a later
//! incarnation runs to the end. A restarted task remembers nothing, so the
//! counter server (endpoint `count`) carries the incarnation number.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Labels understood by test-counter.
const NEXT: u32 = 1;
const STOP: u32 = 2;
/// Incarnations that panic before one runs to the end.
const PANICS: u64 = 2;

fn main() {
    let count = Endpoint(config::caps::COUNT);
    let incarnation = match count.call(&Message::new(NEXT, &[0])) {
        Ok(m) => m.words[0],
        Err(e) => {
            println!("CHECK FAILED: the counter answers: {e}");
            return;
        }
    };
    if incarnation < PANICS {
        panic!("on purpose in incarnation {incarnation}");
    }
    let _ = count.call(&Message::new(STOP, &[0]));
    let mut c = Checks::new();
    c.eq("the incarnation after the panics runs", incarnation, PANICS);
    c.finish();
}
