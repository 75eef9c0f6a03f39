//! Timer client: calls the timer server four times, pacing the calls with
//! its own timer (so the server sees them in a known order against its
//! timers), and checks that each of its timers waited at least as long as
//! asked.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Waits `ticks` kernel ticks on the client's own timer; returns the ticks
/// that passed.
fn sleep(cev: &Notification, ticks: u64) -> Result<u64, conflux_abi::SysError> {
    let start = cev.timer(ticks)?;
    cev.wait()?;
    Ok(cev.timer(0)? - start)
}

fn main() {
    let svc = Endpoint(config::caps::SVC);
    let cev = Notification(config::caps::CEV);
    let mut c = Checks::new();
    // Call 1 comes before the server receives: it is first in its loop.
    c.eq(
        "call 1",
        svc.call(&Message::new(1, &[])).map(|m| m.label),
        Ok(1),
    );
    // Long enough for the server's 30-tick and then 3-tick timers to fire.
    let slept = sleep(&cev, 60);
    c.that(
        "slept at least 60 ticks",
        slept.is_ok_and(|t| t >= 60),
        slept,
    );
    c.eq(
        "call 2",
        svc.call(&Message::new(2, &[])).map(|m| m.label),
        Ok(2),
    );
    // Each 10 ticks after the server's reply, so its 2-tick timers come first.
    let _ = sleep(&cev, 10);
    c.eq(
        "call 3",
        svc.call(&Message::new(3, &[])).map(|m| m.label),
        Ok(3),
    );
    let _ = sleep(&cev, 10);
    c.eq(
        "call 4 ends the test",
        svc.call(&Message::new(4, &[])).map(|m| m.label),
        Ok(9),
    );
    c.finish();
}
