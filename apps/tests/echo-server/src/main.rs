//! Echo server for the IPC tests. Labels:
//! 1 echo: reply with the words reversed and the caller's badge appended;
//! 2 sum: reply with the sum of all `len` words (long ones from the IPC buffer);
//! 3 token: a notification capability arrives; signal it and reply;
//! 4 note: a one-way `send`; remember word 0, report it on the next echo;
//! 5 quit: reply and exit.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{long_word, Endpoint, Message, Notification, Slot};
use conflux_userlib::println;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
const RECEIVED_CAP: usize = config::caps::FIRST_FREE + 1;

fn main() {
    let ep = Endpoint(config::caps::ECHO);
    let mut answer = Message::default();
    let mut note = 0;
    loop {
        let got = match ep.reply_recv(REPLY, RECEIVED_CAP, &answer) {
            Ok(g) => g,
            Err(e) => {
                println!("receive failed: {e}");
                return;
            }
        };
        let m = got.msg;
        answer = match m.label {
            1 => {
                let w = m.words;
                Message::new(1, &[w[3], w[2], w[1] + note, got.badge])
            }
            2 => {
                let regs: u64 = m.words.iter().take(m.len.min(4)).sum();
                let long: u64 = (4..m.len).map(long_word).sum();
                Message::new(2, &[regs + long])
            }
            3 => {
                let ok = m.cap.is_some() && Notification(RECEIVED_CAP).signal().is_ok();
                let _ = Slot(RECEIVED_CAP).delete();
                Message::new(3, &[ok as u64])
            }
            4 => {
                note = m.words[0];
                Message::default() // a send has no reply capability: nothing is sent
            }
            5 => {
                let _ = conflux_userlib::ipc::reply(REPLY, &Message::new(5, &[]));
                println!("quitting");
                return;
            }
            other => Message::new(0xbad, &[other as u64]),
        };
    }
}
