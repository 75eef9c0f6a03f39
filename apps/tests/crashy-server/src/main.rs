//! A server that answers label 1 with 42 and faults (null read) on label 2.
#![no_std]
#![no_main]

use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;

fn main() {
    println!("serving");
    let ep = Endpoint(config::caps::SERVICE);
    let mut answer = Message::default();
    loop {
        let Ok(got) = ep.reply_recv(REPLY, 0, &answer) else {
            return;
        };
        if got.msg.label == 2 {
            println!("crashing on request");
            // Safety: none — a deliberate fault, so the supervisor restarts us.
            let v = unsafe { core::ptr::read_volatile(core::ptr::null::<u64>()) };
            println!("read {v} from null: the kernel did not stop this task");
        }
        answer = Message::new(1, &[42]);
    }
}
