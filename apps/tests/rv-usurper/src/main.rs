//! Usurper: receives a copy of the rightful server's receive capability,
//! answers, and blocks receiving through it. The revocation must wake it
//! with `Revoked` (not leave it receiving on the endpoint).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{self, Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;

fn main() {
    let mut c = Checks::new();
    let got = Endpoint(caps::U).recv(REPLY, GOT).map(|r| r.msg.cap);
    c.eq("a receive capability arrived", got, Ok(Some(GOT)));
    c.eq("answer", ipc::reply(REPLY, &Message::new(0, &[])), Ok(()));
    println!("receiving through the borrowed capability");
    let r = Endpoint(GOT).recv(REPLY, 0).map(|r| r.msg.label);
    c.eq(
        "the revocation wakes the blocked recv",
        r,
        Err(SysError::Revoked),
    );
    c.finish();
}
