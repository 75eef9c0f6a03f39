//! Survivor: the second holder of shared region `r`. After the holder has
//! ended (its `bye` endpoint answers `DeadPeer`) and the churner has reused
//! all free memory several times (notification `churned`), every word of
//! `r` must still be the holder's pattern. If teardown had handed the
//! region's frames back to the allocator, the churner's heap would have
//! overwritten them.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Mapped, Message, Notification, Region};
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

/// The holder's pattern (see test-td-holder).
fn pattern(off: u64) -> u64 {
    0xc0ff_ee00_0000_0000 | off
}

/// The first word of `r` that differs from the pattern, as (offset, value).
fn first_difference(r: &Mapped) -> Option<(u64, u64)> {
    (0..caps::R_SIZE as u64)
        .step_by(8)
        .map(|off| (off, r.read_u64(off).expect("word inside the mapped region")))
        .find(|&(off, v)| v != pattern(off))
}

fn main() {
    let mut c = Checks::new();
    let r = Region(caps::R).premapped(caps::R_ADDR, caps::R_SIZE);
    c.eq(
        "the holder has ended",
        Endpoint(caps::BYE).call(&Message::new(1, &[])).map(drop),
        Err(SysError::DeadPeer),
    );
    c.eq(
        "region intact right after the holder ended (first differing word)",
        first_difference(&r),
        None,
    );
    c.eq(
        "the churner reused free memory",
        Notification(caps::CHURNED).wait().map(|_| ()),
        Ok(()),
    );
    c.eq(
        "region intact after the churn (first differing word)",
        first_difference(&r),
        None,
    );
    c.finish();
}
