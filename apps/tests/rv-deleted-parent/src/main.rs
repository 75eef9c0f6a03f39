//! Deleted parent: revoking a capability must reach every descendant, even
//! when the capability between them was deleted first.
//!
//! 1. Mint X from root `r1` into s1, copy s1 to s2, delete s1, revoke `r1`:
//!    s2 must be unusable.
//! 2. Mint X from root `r2` into s3, hand s3 to the keeper over IPC, delete
//!    s3, revoke `r2`: the keeper's copy must be unusable (the keeper
//!    checks its own slot when asked).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::cap::rights;
use conflux_userlib::ipc::{Endpoint, Message, Notification, Slot};
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const S1: usize = caps::FIRST_FREE;
const S2: usize = caps::FIRST_FREE + 1;
const S3: usize = caps::FIRST_FREE + 2;
/// Labels understood by test-rv-keeper.
const GIVE: u32 = 1;
const PROBE: u32 = 2;

/// Revoked or emptied: either way the capability is gone.
fn gone(r: Result<impl Sized, SysError>) -> bool {
    matches!(r, Err(SysError::Revoked | SysError::EmptySlot))
}

fn main() {
    let mut c = Checks::new();
    let rw = rights::READ | rights::WRITE;

    c.eq(
        "mint X from r1 into s1",
        Slot(caps::R1).mint(S1, rw, 7),
        Ok(()),
    );
    c.eq("copy s1 to s2", Slot(S1).copy(S2), Ok(()));
    c.eq("delete s1", Slot(S1).delete(), Ok(()));
    let revoked = Slot(caps::R1).revoke();
    c.that("revoke r1", revoked.is_ok(), revoked);
    let info = Slot(S2).info();
    c.that(
        "s2 is unusable after revoking r1 (Revoked or EmptySlot)",
        gone(info),
        info,
    );
    let sig = Notification(S2).signal();
    c.that("signal through s2 fails after revoking r1", gone(sig), sig);

    let keep = Endpoint(caps::KEEP);
    c.eq(
        "mint X from r2 into s3",
        Slot(caps::R2).mint(S3, rw, 9),
        Ok(()),
    );
    let given = keep.call(&Message::new(GIVE, &[]).with_cap(S3));
    c.that("hand s3 to the keeper", given.is_ok(), given);
    let kept = given.map_or(0, |m| m.words[0]);
    let probe = || keep.call(&Message::new(PROBE, &[kept])).map(|m| m.words[0]);
    c.eq("the keeper's copy is usable before", probe(), Ok(0));
    c.eq("delete s3", Slot(S3).delete(), Ok(()));
    let revoked = Slot(caps::R2).revoke();
    c.that("revoke r2", revoked.is_ok(), revoked);
    let after = probe();
    let codes = [SysError::Revoked.code(), SysError::EmptySlot.code()];
    c.that(
        "the keeper's copy is unusable after revoking r2 (Revoked or EmptySlot)",
        after.is_ok_and(|code| codes.contains(&code)),
        after.map(SysError::from_code),
    );
    c.finish();
}
