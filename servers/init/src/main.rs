//! init: the system's supervisor.
//!
//! The kernel turns a task's fault into a message on init's fault endpoint
//! (badge and word 0: the task's index; then vector | error code << 32, the
//! fault address, and rip). init logs it and answers: restart (word 0 = 1)
//! when the manifest gave the task `restart = "on-fault"`, otherwise leave
//! it stopped. Policy lives here, in a task, not in the kernel.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::FAULT_LABEL;
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Slot where the reply capability for the current fault lands.
const REPLY: usize = config::caps::FIRST_FREE;

fn main() {
    let faults = Endpoint(config::caps::FAULTS);
    println!("supervising {} tasks", config::caps::TASK_NAMES.len());
    let mut answer = Message::new(0, &[]);
    loop {
        let got = match faults.reply_recv(REPLY, 0, &answer) {
            Ok(got) => got,
            Err(e) => {
                println!("cannot receive fault messages: {e}; supervision stops");
                return;
            }
        };
        let w = got.msg.words;
        let task = w[0] as usize;
        let name = config::caps::TASK_NAMES.get(task).copied().unwrap_or("?");
        let restart = config::caps::RESTART_ON_FAULT
            .get(task)
            .copied()
            .unwrap_or(false);
        if got.msg.label != FAULT_LABEL {
            println!(
                "unexpected message label {:#x} on the fault endpoint; ignored",
                got.msg.label
            );
            answer = Message::new(0, &[0]);
            continue;
        }
        println!(
            "task '{name}' faulted (vector {}, error {:#x}, address {:#x}, rip {:#x}); {}",
            w[1] & 0xffff_ffff,
            w[1] >> 32,
            w[2],
            w[3],
            if restart {
                "restarting it"
            } else {
                "leaving it stopped"
            }
        );
        answer = Message::new(0, &[restart as u64]);
    }
}
