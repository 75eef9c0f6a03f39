//! Revoker: holds root `r`, hands a copy to the sender, and revokes `r`
//! while the sender is blocked sending that copy on to a server that does
//! not receive yet. Then it lets the server receive (notification `go`):
//! the message must arrive without a usable capability.
//!
//! Order comes from priorities, not timing: the sender is more urgent, so
//! once it has the copy it runs until it blocks in `send`, and only then
//! does this task continue.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message, Notification, Slot};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

const X: usize = caps::FIRST_FREE;

fn main() {
    let mut c = Checks::new();
    c.eq("copy r to x", Slot(caps::R).copy(X), Ok(()));
    let given = Endpoint(caps::GIVE).call(&Message::new(1, &[]).with_cap(X));
    c.that("hand x to the sender", given.is_ok(), given);
    let revoked = Slot(caps::R).revoke();
    c.that(
        "revoke r while the copy is in flight",
        revoked.is_ok(),
        revoked,
    );
    c.eq(
        "let the server receive",
        Notification(caps::GO).signal(),
        Ok(()),
    );
    c.finish();
}
