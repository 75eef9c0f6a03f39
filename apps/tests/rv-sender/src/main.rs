//! Sender: receives a capability on `give`, answers, and sends it on
//! through `srv`, whose server does not receive yet, so this task blocks
//! in `send` with the capability in its message (see test-rv-revoker).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{self, Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;

fn main() {
    let mut c = Checks::new();
    let got = Endpoint(caps::GIVE).recv(REPLY, GOT).map(|r| r.msg.cap);
    c.eq("a capability arrived", got, Ok(Some(GOT)));
    c.eq("answer", ipc::reply(REPLY, &Message::new(0, &[])), Ok(()));
    println!("sending it on to a server that does not receive yet");
    let sent = Endpoint(caps::SRV).send(&Message::new(5, &[]).with_cap(GOT));
    c.eq("the message was taken", sent, Ok(()));
    c.finish();
}
