//! Restart: a capability copied from a task's initial capability must stay
//! reachable by revocation across the task's restart. The first
//! incarnation copies its initial notification capability `e`, hands the
//! copy to the keeper and faults; init restarts it; the second incarnation
//! revokes `e` (the same slot, refilled at restart) and the keeper's copy
//! must be gone. The keeper's `HELLO` tells each incarnation which it is.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message, Slot};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const COPY: usize = caps::FIRST_FREE;
/// Labels understood by test-rv-keeper.
const GIVE: u32 = 1;
const PROBE: u32 = 2;
const HELLO: u32 = 3;

fn main() {
    let mut c = Checks::new();
    let keep = Endpoint(caps::KEEP);
    let Ok(hello) = keep.call(&Message::new(HELLO, &[])) else {
        c.that("the keeper answers", false, ());
        c.finish();
    };
    let (incarnation, kept) = (hello.words[0], hello.words[1]);
    let probe = || keep.call(&Message::new(PROBE, &[kept])).map(|m| m.words[0]);
    if incarnation == 0 {
        c.eq(
            "copy the initial capability e",
            Slot(caps::E).copy(COPY),
            Ok(()),
        );
        let given = keep.call(&Message::new(GIVE, &[]).with_cap(COPY));
        c.that("hand the copy to the keeper", given.is_ok(), given);
        println!("faulting with a copy of e in the keeper's hands");
        conflux_userlib::testing::fault_on_purpose();
    }
    let revoked = Slot(caps::E).revoke();
    c.that("after restart: revoke e", revoked.is_ok(), revoked);
    let after = probe();
    let codes = [SysError::Revoked.code(), SysError::EmptySlot.code()];
    c.that(
        "after restart: the keeper's copy of e is unusable (Revoked or EmptySlot)",
        after.is_ok_and(|code| codes.contains(&code)),
        after.map(SysError::from_code),
    );
    c.finish();
}
