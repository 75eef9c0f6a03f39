//! init: the system's supervisor.
//!
//! The kernel turns a task's end — a CPU exception, a panic the task
//! reported with the `panic` syscall, or an `exit` — into a message on
//! init's fault endpoint (a `FaultMessage`, marked as sent by the kernel,
//! which no task can forge). init first tells every server that keeps
//! sessions, and that the task was a client of, that its badge is gone
//! (`gone`), so its sockets, files and flows come back; then it logs the
//! end, saying which of the three it was, and answers with a
//! `SupervisorReply` (`policy`): restart when the manifest's `restart`
//! says so for that kind of end, otherwise leave it stopped. Any other
//! message on that endpoint is refused and logged.
//! Policy lives here, in a task, not in the kernel.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

mod gone;
mod policy;

use conflux_abi::ipc::{FaultMessage, SupervisorReply, FAULT_LABEL};
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Slot where the reply capability for the current report lands.
const REPLY: usize = config::caps::FIRST_FREE;
/// Tasks in this system, by task index.
const TASKS: usize = config::caps::TASK_NAMES.len();

fn main() {
    let faults = Endpoint(config::caps::FAULTS);
    println!(
        "supervising {TASKS} tasks ({} servers keep sessions)",
        config::caps::SESSION_SERVERS.len()
    );
    let mut restarts = policy::Restarts::new();
    let mut answer = Message::new(0, &[]);
    loop {
        let got = match faults.reply_recv(REPLY, 0, &answer) {
            Ok(got) => got,
            Err(e) => {
                println!("cannot receive fault messages: {e}; supervision stops");
                return;
            }
        };
        let decision = if !got.msg.from_kernel || got.msg.label != FAULT_LABEL {
            println!(
                "refused a message on the fault endpoint: label {:#x}, badge {}, not sent by the kernel (only the kernel reports faults)",
                got.msg.label, got.badge
            );
            SupervisorReply::LeaveStopped
        } else {
            let task = got.badge as usize;
            // The servers hear of the end whatever the report says.
            let ended = gone::tell_servers(task, name(task));
            match FaultMessage::from_words(got.msg.words) {
                Some(f) => restarts.decide(&f, &ended),
                None => {
                    println!(
                        "task '{}' ended with a fault report this init cannot read (word 1 = {:#x}: unknown kind or reserved bits){ended}; leaving it stopped. Rebuild init with the kernel it runs on",
                        name(task),
                        got.msg.words[1]
                    );
                    SupervisorReply::LeaveStopped
                }
            }
        };
        answer = Message::new(0, &[decision.to_word()]);
    }
}

fn name(task: usize) -> &'static str {
    config::caps::TASK_NAMES.get(task).copied().unwrap_or("?")
}
