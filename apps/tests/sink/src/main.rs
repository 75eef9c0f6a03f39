//! Sink: receives anything on its endpoint and answers with an empty message.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message};

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;

fn main() {
    let ep = Endpoint(config::caps::SINK);
    let mut handled = 0u64;
    loop {
        if ep.reply_recv(REPLY, 0, &Message::default()).is_err() {
            conflux_userlib::println!("receive failed after {handled} messages");
            return;
        }
        handled += 1;
    }
}
