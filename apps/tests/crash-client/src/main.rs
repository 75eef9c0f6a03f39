//! Crashes the server, then keeps calling until the restarted instance answers.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::sys::yield_now;
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

fn main() {
    let ep = Endpoint(config::caps::SERVICE);
    let mut c = Checks::new();
    c.eq(
        "first call",
        ep.call(&Message::new(1, &[])).map(|m| m.words[0]),
        Ok(42),
    );
    c.eq(
        "call that crashes the server",
        ep.call(&Message::new(2, &[])).map(|m| m.words[0]),
        Err(SysError::DeadPeer),
    );
    let mut dead_peers = 0;
    let mut answer = None;
    for _ in 0..1000 {
        match ep.call(&Message::new(1, &[])) {
            Err(SysError::DeadPeer) => {
                dead_peers += 1;
                yield_now();
            }
            other => {
                answer = Some(other.map(|m| m.words[0]));
                break;
            }
        }
    }
    c.eq("call after restart", answer, Some(Ok(42)));
    c.that(
        "calls in between saw dead-peer",
        dead_peers >= 1,
        dead_peers,
    );
    c.finish();
}
