//! The restart policy: what init answers about a task that ended.
//!
//! `restart = "on-fault"` restarts a task after a fault or panic; an exit
//! is the task's own decision and leaves it stopped. `restart = "always"`
//! restarts it after an exit too (an exit left stopped gets no line of
//! init's beyond the sessions it ended: the kernel logged the exit, and
//! it is how most tasks end). init counts the restarts of each task
//! and prints the count with each one, so a crash loop shows. A task that
//! exits and is restarted over and over by "always" is expected to, so
//! after its first three such restarts init says so only every 100th.

use conflux_abi::ipc::{FaultKind, FaultMessage, SupervisorReply};
use conflux_userlib::println;

use crate::config::caps::{RESTART_ON_EXIT, RESTART_ON_FAULT};
use crate::gone::Ended;
use crate::{name, TASKS};

/// Restarts so far, by task index.
pub struct Restarts([u32; TASKS]);

impl Restarts {
    pub fn new() -> Self {
        Restarts([0; TASKS])
    }

    /// Logs one end and applies the manifest's restart policy.
    pub fn decide(&mut self, f: &FaultMessage, ended: &Ended) -> SupervisorReply {
        let task = f.task as usize;
        let table = match f.kind {
            FaultKind::Exited => RESTART_ON_EXIT,
            _ => RESTART_ON_FAULT,
        };
        let restart = table.get(task).copied().unwrap_or(false);
        let count = self.0.get_mut(task).filter(|_| restart).map(|n| {
            *n = n.saturating_add(1);
            *n
        });
        let outcome = Outcome {
            count,
            exit: f.kind == FaultKind::Exited,
        };
        let name = name(task);
        match f.kind {
            FaultKind::Panic => println!(
                "task '{name}' panicked (its last console line says where and why){ended}; {outcome}"
            ),
            FaultKind::Exited if outcome.quiet() => {}
            // An exit left stopped is the usual end of a task: the kernel
            // has said it exited; init adds only what it did about it.
            FaultKind::Exited if count.is_none() => {
                if !ended.is_empty() {
                    println!("task '{name}' is gone{ended}");
                }
            }
            FaultKind::Exited => println!(
                "task '{name}' exited with code {}{ended}; {outcome}",
                f.address
            ),
            FaultKind::Stopped => println!(
                "task '{name}' was stopped by task '{}' (the console's holder){ended}; {outcome}",
                self::name(f.address as usize)
            ),
            FaultKind::Exception => println!(
                "task '{name}' faulted (vector {}, error {:#x}, address {:#x}, rip {:#x}){ended}; {outcome}",
                f.vector, f.error, f.address, f.rip
            ),
        }
        match count {
            Some(_) => SupervisorReply::Restart,
            None => SupervisorReply::LeaveStopped,
        }
    }
}

/// The end of init's line: what happens to the task now.
struct Outcome {
    count: Option<u32>,
    exit: bool,
}

impl Outcome {
    /// An exit restarted by "always", past the first three and not a
    /// hundredth: expected, not worth a line.
    fn quiet(&self) -> bool {
        self.exit && self.count.is_some_and(|n| n > 3 && !n.is_multiple_of(100))
    }
}

impl core::fmt::Display for Outcome {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.count, self.exit) {
            (Some(n), false) => write!(f, "restarting it (restart {n} of this task)"),
            (Some(n), true) => write!(
                f,
                "restarting it (restart {n} of this task; `restart = \"always\"`; init reports only every 100th from the 4th on)"
            ),
            (None, false) => write!(
                f,
                "leaving it stopped (its manifest entry has no restart = \"on-fault\")"
            ),
            (None, true) => write!(f, "leaving it stopped"),
        }
    }
}
