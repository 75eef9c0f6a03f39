//! init: the system's supervisor.
//!
//! The kernel turns a task's fault into a message on init's fault endpoint
//! (a `FaultMessage`, marked as sent by the kernel, which no task can
//! forge). init logs it and answers with a `SupervisorReply`: restart when
//! the manifest gave the task `restart = "on-fault"`, otherwise leave it
//! stopped. Any other message on that endpoint is refused and logged.
//! Policy lives here, in a task, not in the kernel.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::{FaultMessage, SupervisorReply, FAULT_LABEL};
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
        if !got.msg.from_kernel || got.msg.label != FAULT_LABEL {
            println!(
                "refused a message on the fault endpoint: label {:#x}, badge {}, not sent by the kernel (only the kernel reports faults)",
                got.msg.label, got.badge
            );
            answer = Message::new(0, &[SupervisorReply::LeaveStopped.to_word()]);
            continue;
        }
        let f = FaultMessage::from_words(got.msg.words);
        let task = f.task as usize;
        let name = config::caps::TASK_NAMES.get(task).copied().unwrap_or("?");
        let restart = config::caps::RESTART_ON_FAULT
            .get(task)
            .copied()
            .unwrap_or(false);
        println!(
            "task '{name}' faulted (vector {}, error {:#x}, address {:#x}, rip {:#x}); {}",
            f.vector,
            f.error,
            f.address,
            f.rip,
            if restart {
                "restarting it"
            } else {
                "leaving it stopped"
            }
        );
        let decision = if restart {
            SupervisorReply::Restart
        } else {
            SupervisorReply::LeaveStopped
        };
        answer = Message::new(0, &[decision.to_word()]);
    }
}
