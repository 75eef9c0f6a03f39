//! Timer server: bound to notification `ev`, it receives the client's
//! calls and its own timer expiries through one receive loop.
//!
//! The client is more urgent, so its first call waits before the server
//! ever receives; after that it paces its calls with its own timer (60
//! ticks, then 10 and 10), which fixes the order against the server's
//! timers in ticks, not in host time: call 1 before a 30-tick timer, a
//! 3-tick timer before call 2, a cancelled 2-tick timer that must not
//! come before call 3, and, once revoking the capability the binding was
//! made through has unbound the notification, a 2-tick timer whose signal
//! waits in the word instead of ending the receive of call 4.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::SysError;
use conflux_userlib::ipc::{reply, Endpoint, Message, Notification, Received, Slot};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const COPY: usize = config::caps::FIRST_FREE;
const REPLY: usize = config::caps::FIRST_FREE + 1;

/// True for the client's call with `label`.
fn is_call(got: &Result<Received, SysError>, label: u32) -> bool {
    matches!(got, Ok(r) if r.notified().is_none() && r.msg.label == label)
}

/// True for a timer expiry (the unbadged capability signals bit 0).
fn is_expiry(got: &Result<Received, SysError>) -> bool {
    matches!(got, Ok(r) if r.notified() == Some(1))
}

/// Checks (as `what`) that a timer armed at `start` for `ticks` fired no
/// earlier. The clock is read with `timer(0)`, which has nothing left to
/// cancel: the timer already fired.
fn check_elapsed(
    c: &mut Checks,
    what: &str,
    ev: &Notification,
    start: Result<u64, SysError>,
    ticks: u64,
) {
    let now = ev.timer(0);
    let waited = start.and_then(|s| Ok(now? - s));
    c.that(what, waited.is_ok_and(|w| w >= ticks), waited);
}

fn main() {
    let ep = Endpoint(config::caps::SVC);
    let ev = Notification(config::caps::EV);
    let mut c = Checks::new();
    c.eq("bound ev to the receive loop", ev.bind(&ep), Ok(()));
    let _ = Slot(config::caps::EV).copy(COPY);
    c.eq(
        "a second binding is refused",
        Notification(COPY).bind(&ep),
        Err(SysError::TaskBound),
    );

    // Call 1 is already waiting when the 30-tick timer starts.
    let start = ev.timer(30);
    let got = ep.recv(REPLY, 0);
    c.that("call first while the timer runs", is_call(&got, 1), got);
    let got = ep.reply_recv(REPLY, 0, &Message::new(1, &[]));
    c.that(
        "then the timer expiry through the same receive",
        is_expiry(&got),
        got,
    );
    check_elapsed(
        &mut c,
        "30-tick timer fired after at least 30 ticks",
        &ev,
        start,
        30,
    );

    // The client sleeps 60 ticks before call 2.
    let start = ev.timer(3);
    let got = ep.recv(REPLY, 0);
    c.that("timer first", is_expiry(&got), got);
    check_elapsed(
        &mut c,
        "3-tick timer fired after at least 3 ticks",
        &ev,
        start,
        3,
    );
    let got = ep.recv(REPLY, 0);
    c.that(
        "then the call through the same receive",
        is_call(&got, 2),
        got,
    );

    let _ = ev.timer(2);
    let _ = ev.timer(0);
    let got = ep.reply_recv(REPLY, 0, &Message::new(2, &[]));
    c.that(
        "cancelled timer stayed quiet",
        is_call(&got, 3) && ev.poll() == Ok(0),
        got,
    );

    c.eq("unbind", Notification::unbind(), Ok(()));
    c.eq(
        "rebound through a copy",
        Notification(COPY).bind(&ep),
        Ok(()),
    );
    c.eq(
        "revoke the original",
        Slot(config::caps::EV).revoke(),
        Ok(1),
    );
    c.eq(
        "revoking the capability unbound the notification",
        Notification::unbind(),
        Err(SysError::NotBound),
    );
    let _ = ev.timer(2);
    let got = ep.reply_recv(REPLY, 0, &Message::new(3, &[]));
    c.that(
        "unbound: the timer's signal waited in the word",
        is_call(&got, 4) && ev.poll() == Ok(1),
        got,
    );
    let _ = reply(REPLY, &Message::new(9, &[]));
    c.finish();
}
