//! Late server: starts receiving on `srv` only when told (`go`), after the
//! capability in the pending message was revoked at its source. The
//! message must arrive, but without a usable capability.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Notification, Slot};
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;

fn main() {
    let mut c = Checks::new();
    c.that("told to receive", Notification(caps::GO).wait().is_ok(), ());
    let got = Endpoint(caps::SRV).recv(REPLY, GOT);
    c.eq(
        "the pending message arrives",
        got.map(|r| r.msg.label),
        Ok(5),
    );
    let cap = got.ok().and_then(|r| r.msg.cap);
    let usable = cap.map(|s| Slot(s).info());
    c.that(
        "no usable capability came with it (none, Revoked or EmptySlot)",
        matches!(
            usable,
            None | Some(Err(SysError::Revoked | SysError::EmptySlot))
        ),
        usable,
    );
    let signal = Notification(GOT).signal();
    c.that(
        "signalling through the receive slot fails",
        signal.is_err(),
        signal,
    );
    c.finish();
}
