//! Writer: fills the manifest-shared region, hands a second region (and its
//! size) to the reader over IPC, then revokes it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message, Notification, Region, Slot};
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const CHILD: usize = caps::FIRST_FREE;
const WORD_0: &str = "word 0 is inside every region";

fn main() {
    let mut c = Checks::new();
    let shared = Region(caps::SHARED).premapped(caps::SHARED_ADDR, caps::SHARED_SIZE);
    shared.write_u64(0, 0xc0ffee).expect(WORD_0);
    c.eq(
        "signal the reader",
        Notification(caps::READY).signal(),
        Ok(()),
    );

    let scratch = Region(caps::SCRATCH).premapped(caps::SCRATCH_ADDR, caps::SCRATCH_SIZE);
    scratch.write_u64(0, 77).expect(WORD_0);
    c.eq(
        "mint a child of the scratch region",
        Slot(caps::SCRATCH).copy(CHILD),
        Ok(()),
    );
    let chan = Endpoint(caps::CHAN);
    // The reader learns the region's size from the message.
    let size = caps::SCRATCH_SIZE as u64;
    let r = chan.call(&Message::new(1, &[size]).with_cap(CHILD));
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
