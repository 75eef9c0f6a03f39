//! Rightful server of `ep`: lends a copy of its receive capability to the
//! usurper and a copy of its notification capability `nt` to the waiter;
//! both block on their copy (they are more urgent, so they block before
//! this task continues). Revoking `ep` and `nt` must wake them with
//! `Revoked`, and this task's own `recv` on `ep` must then work: no stale
//! receiver may hold the endpoint (no `Busy`). Notification `now` tells the
//! client to call.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{self, Endpoint, Message, Notification, Slot};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

const EP_COPY: usize = caps::FIRST_FREE;
const NT_COPY: usize = caps::FIRST_FREE + 1;
const REPLY: usize = caps::FIRST_FREE + 2;

fn main() {
    let mut c = Checks::new();
    c.eq(
        "copy the receive capability",
        Slot(caps::EP).copy(EP_COPY),
        Ok(()),
    );
    let lent = Endpoint(caps::U).call(&Message::new(1, &[]).with_cap(EP_COPY));
    c.that("lend it to the usurper", lent.is_ok(), lent);
    c.eq("copy nt", Slot(caps::NT).copy(NT_COPY), Ok(()));
    let lent = Endpoint(caps::W).call(&Message::new(1, &[]).with_cap(NT_COPY));
    c.that("lend it to the waiter", lent.is_ok(), lent);
    let revoked = Slot(caps::EP).revoke();
    c.that(
        "revoke ep under the blocked usurper",
        revoked.is_ok(),
        revoked,
    );
    let revoked = Slot(caps::NT).revoke();
    c.that(
        "revoke nt under the blocked waiter",
        revoked.is_ok(),
        revoked,
    );
    c.eq(
        "tell the client to call",
        Notification(caps::NOW).signal(),
        Ok(()),
    );
    let got = Endpoint(caps::EP).recv(REPLY, 0).map(|r| r.msg.label);
    c.eq("receive on ep after the revocation (not Busy)", got, Ok(7));
    c.eq("answer", ipc::reply(REPLY, &Message::new(0, &[42])), Ok(()));
    c.finish();
}
