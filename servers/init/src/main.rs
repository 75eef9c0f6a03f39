//! init: the system's supervisor.
//!
//! The kernel turns a task's fault — a CPU exception, or a panic the task
//! reported with the `panic` syscall — into a message on init's fault
//! endpoint (a `FaultMessage`, marked as sent by the kernel, which no task
//! can forge). init logs it, saying which of the two it was, and answers
//! with a `SupervisorReply`: restart when the manifest gave the task
//! `restart = "on-fault"` (counting the restarts of each task, so a crash
//! loop shows), otherwise leave it stopped. Any other message on that
//! endpoint is refused and logged.
//! Policy lives here, in a task, not in the kernel.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::{FaultKind, FaultMessage, SupervisorReply, FAULT_LABEL};
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Slot where the reply capability for the current fault lands.
const REPLY: usize = config::caps::FIRST_FREE;
/// Tasks in this system, by task index.
const TASKS: usize = config::caps::TASK_NAMES.len();

fn main() {
    let faults = Endpoint(config::caps::FAULTS);
    println!("supervising {TASKS} tasks");
    // Restarts so far, by task index: printed with each restart so an
    // operator sees a task in a crash loop at a glance.
    let mut restarts = [0u32; TASKS];
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
            match FaultMessage::from_words(got.msg.words) {
                Some(f) => decide(&f, &mut restarts),
                None => {
                    println!(
                        "task '{}' ended with a fault report this init cannot read (word 1 = {:#x}: unknown kind or reserved bits); leaving it stopped. Rebuild init with the kernel it runs on",
                        name(got.badge as usize),
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

/// Logs one fault or panic and applies the manifest's restart policy.
fn decide(f: &FaultMessage, restarts: &mut [u32; TASKS]) -> SupervisorReply {
    let task = f.task as usize;
    let restart = config::caps::RESTART_ON_FAULT
        .get(task)
        .copied()
        .unwrap_or(false);
    let count = restarts.get_mut(task).filter(|_| restart).map(|n| {
        *n = n.saturating_add(1);
        *n
    });
    let name = name(task);
    match f.kind {
        FaultKind::Panic => println!(
            "task '{name}' panicked (its last console line says where and why); {}",
            Outcome(count)
        ),
        FaultKind::Exited => println!(
            "task '{name}' exited with code {}; {}",
            f.address,
            Outcome(count)
        ),
        FaultKind::Exception => println!(
            "task '{name}' faulted (vector {}, error {:#x}, address {:#x}, rip {:#x}); {}",
            f.vector,
            f.error,
            f.address,
            f.rip,
            Outcome(count)
        ),
    }
    if count.is_some() {
        SupervisorReply::Restart
    } else {
        SupervisorReply::LeaveStopped
    }
}

/// The end of init's line: what happens to the task now.
struct Outcome(Option<u32>);

impl core::fmt::Display for Outcome {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "restarting it (restart {n} of this task)"),
            None => write!(
                f,
                "leaving it stopped (its manifest entry has no restart = \"on-fault\")"
            ),
        }
    }
}
