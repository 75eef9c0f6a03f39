//! Echo server for the IPC tests. Labels:
//! 1 echo: reply with the words reversed and the caller's badge appended;
//! 2 sum: reply with the sum of all `len` words (long ones from the IPC buffer);
//! 3 token: a notification capability arrives; signal it and reply;
//! 4 note: a one-way `send`; remember word 0, report it on the next echo;
//! 5 quit: reply and exit;
//! 6 stall: hold the call for [`STALL_TICKS`] ticks (longer than the
//!   caller's deadline), then reply, which must fail with `TimedOut`: the
//!   caller gave up, and the answer must reach nobody.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{long_word, Endpoint, Message, Notification, Slot};
use conflux_userlib::println;
use conflux_userlib::sys::yield_now;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
const RECEIVED_CAP: usize = config::caps::FIRST_FREE + 1;
/// How long a stalled call is held, in ticks.
const STALL_TICKS: u64 = 10;

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
            6 => {
                stall();
                let late = conflux_userlib::ipc::reply(REPLY, &Message::new(6, &[666]));
                println!("late reply to an abandoned call: {late:?}");
                Message::default() // the reply capability is used up
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

/// Busy for [`STALL_TICKS`] ticks of the kernel's clock (the timer's
/// answer with 0 ticks is the tick count), as a server stuck in a long
/// job would be.
fn stall() {
    let clock = Notification(config::caps::CLOCK);
    let Ok(start) = clock.timer(0) else {
        println!("cannot read the clock; not stalling");
        return;
    };
    while clock.timer(0).is_ok_and(|now| now < start + STALL_TICKS) {
        yield_now();
    }
}
