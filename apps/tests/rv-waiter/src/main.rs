//! Waiter: receives a copy of a notification capability, answers, and
//! blocks waiting through it. The revocation must wake it with `Revoked`.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{self, Endpoint, Message, Notification};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;

fn main() {
    let mut c = Checks::new();
    let got = Endpoint(caps::W).recv(REPLY, GOT).map(|r| r.msg.cap);
    c.eq("a notification capability arrived", got, Ok(Some(GOT)));
    c.eq("answer", ipc::reply(REPLY, &Message::new(0, &[])), Ok(()));
    println!("waiting through the borrowed capability");
    let r = Notification(GOT).wait();
    c.eq(
        "the revocation wakes the blocked wait",
        r,
        Err(SysError::Revoked),
    );
    c.finish();
}
