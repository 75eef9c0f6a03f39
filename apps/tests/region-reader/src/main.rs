//! Reader: checks the manifest-shared region, maps a region received over
//! IPC, and touches it again after the writer revoked it (which must fault).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::layout::REGION_BASE;
use conflux_userlib::ipc::{Endpoint, Message, Notification, Region};
use conflux_userlib::{println, testing::Checks};

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;
const AT: u64 = REGION_BASE + (1 << 32);

fn main() {
    let mut c = Checks::new();
    c.that("notified", Notification(caps::READY).wait().is_ok(), ());
    c.eq(
        "shared region value",
        Region::mapped_at(caps::SHARED_ADDR).read_u64(0),
        0xc0ffee,
    );
    let chan = Endpoint(caps::CHAN);
    let Ok(got) = chan.recv(REPLY, GOT) else {
        c.finish()
    };
    c.eq("a capability arrived", got.msg.cap, Some(GOT));
    let mapped = Region(GOT).map(AT, false);
    c.that(
        "mapped the received region read-only",
        mapped.is_ok(),
        mapped.map(|_| ()),
    );
    let m = Region::mapped_at(AT);
    c.eq("transferred region value", m.read_u64(0), 77);
    let Ok(_) = chan.reply_recv(REPLY, 0, &Message::new(1, &[m.read_u64(0)])) else {
        c.finish()
    };
    println!("reading the region again after revocation");
    let v = m.read_u64(0);
    println!("read {v} after revocation: the mapping was not removed");
    c.finish();
}
