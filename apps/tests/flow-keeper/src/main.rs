//! Test task: a stage task that disobeys. It says it runs `blocks` sinks,
//! maps the pool it is given, answers every message `Ok`, and after
//! answering STOP keeps reading the pool instead of unmapping it. flowmgr
//! revokes the pool at DESTROY whatever the stage does, so the read must
//! fault (the test expects this task's page fault).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::stage::{label, Grant, StageStatus};
use conflux_userlib::ipc::{long_word, reply, Endpoint, Message, Slot};
use conflux_userlib::println;
use conflux_userlib::window::Window;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
const RECEIVED: usize = config::caps::FIRST_FREE + 1;
const POOL: usize = config::caps::FIRST_FREE + 2;
const POOL_AT: u64 = 0x0000_6000_0000_0000;

fn ok(words: &[u64]) -> Message {
    Message::new(StageStatus::Ok as u32, words)
}

fn main() {
    let ep = Endpoint(config::caps::FLOW);
    let mut pool: Option<Window> = None;
    let mut answer = Message::default();
    loop {
        let got = match ep.reply_recv(REPLY, RECEIVED, &answer) {
            Ok(g) => g,
            Err(e) => {
                println!("receive failed: {e}");
                return;
            }
        };
        let m = got.msg;
        let word = |i: usize| match i {
            0..4 => m.words[i],
            _ => long_word(i),
        };
        answer = match m.label {
            label::INFO => ok(&[1 << 2, 0]),
            label::ATTACH => {
                if m.cap.is_some()
                    && Grant::from_word(word(1)) == Some(Grant::Pool)
                    && pool.is_none()
                {
                    let _ = Slot(RECEIVED).copy(POOL);
                    pool = Window::map(POOL, POOL_AT, false).ok();
                    println!(
                        "mapped the flow's pool ({} bytes)",
                        pool.as_ref().map_or(0, Window::len)
                    );
                }
                let _ = Slot(RECEIVED).delete();
                ok(&[])
            }
            label::STATS => ok(&[1, 0, 0, 0, 0]),
            label::STOP => {
                if pool.is_some() {
                    // Printed before answering, so it comes before the
                    // application hears that its flow is gone.
                    println!("told to stop; reading the pool anyway");
                }
                let _ = reply(REPLY, &ok(&[0, 0]));
                if let Some(mut w) = pool.take() {
                    // Until flowmgr's revocation unmaps it: then this
                    // read faults and the task ends here.
                    loop {
                        core::hint::black_box(w.bytes()[0]);
                    }
                }
                Message::default()
            }
            _ => ok(&[]),
        };
    }
}
