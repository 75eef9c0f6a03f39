//! Pong: answers (x, y) with (3x + 1, y) until asked to stop (label 9).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{reply, Endpoint, Message};

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;

fn main() {
    let ep = Endpoint(config::caps::PONG);
    let mut answer = Message::default();
    loop {
        let Ok(got) = ep.reply_recv(REPLY, 0, &answer) else {
            return;
        };
        if got.msg.label == 9 {
            let _ = reply(REPLY, &Message::new(9, &[]));
            conflux_userlib::println!("done");
            return;
        }
        let w = got.msg.words;
        answer = Message::new(1, &[w[0].wrapping_mul(3).wrapping_add(1), w[1]]);
    }
}
