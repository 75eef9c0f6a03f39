//! Writer: fills the manifest-shared region, hands a second region to the
//! reader over IPC, then revokes it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message, Notification, Region, Slot};
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const CHILD: usize = caps::FIRST_FREE;

fn main() {
    let mut c = Checks::new();
    let shared = Region::mapped_at(caps::SHARED_ADDR);
    shared.write_u64(0, 0xc0ffee);
    c.eq(
        "signal the reader",
        Notification(caps::READY).signal(),
        Ok(()),
    );

    Region::mapped_at(caps::SCRATCH_ADDR).write_u64(0, 77);
    c.eq(
        "mint a child of the scratch region",
        Slot(caps::SCRATCH).copy(CHILD),
        Ok(()),
    );
    let chan = Endpoint(caps::CHAN);
    let r = chan.call(&Message::new(1, &[]).with_cap(CHILD));
    c.eq(
        "reader read the transferred region",
        r.map(|m| m.words[0]),
        Ok(77),
    );
    c.eq(
        "revoke the scratch region's descendants",
        Slot(caps::SCRATCH).revoke(),
        Ok(2),
    );
    let r = chan.call(&Message::new(2, &[]));
    c.eq(
        "call after revocation",
        r.map(|m| m.words[0]),
        Err(SysError::DeadPeer),
    );
    c.finish();
}
