//! Telling servers that a client is gone.
//!
//! When a task ends (fault, panic or exit), and before it is restarted or
//! left stopped, init tells every server that keeps sessions
//! (`sessions = true` in the manifest) and that the task was a client of
//! (`config::caps::CLIENT_OF`) that the task's badge is gone: a
//! `CLIENT_GONE_LABEL` call with the badge in word 0, through init's
//! capability with `SUPERVISOR_BADGE`. The server ends that session as a
//! reconnect would (sockets, ports, open files, prepared compounds,
//! flows), so what a client held comes back even if it never returns.
//!
//! A server that is not running answers nothing: the call fails with
//! `DeadPeer` (its sessions died with it). A server that was restarted
//! since init last called it also gives `DeadPeer` once (init's
//! capability was made for the old instance, and the kernel refreshes it),
//! so init tries once more. A server that is itself the task that ended
//! is not asked.
//!
//! Device drivers that keep sessions per client (the crypto driver) have
//! no endpoint to call: init signals the driver's notification through
//! its `gone_DEVICE_clientI` capability (`config::caps::DEVICE_GONE`),
//! whose badge is that client's gone bit (32 + i). A signal does not
//! wait, so a stuck driver cannot hold init; the driver ends the client's
//! session when it next looks at its notification.

use conflux_abi::ipc::CLIENT_GONE_LABEL;
use conflux_abi::time::ticks_for_ms;
use conflux_abi::SysError;
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::println;

use crate::config::caps::{CLIENT_OF, DEVICE_GONE, SESSION_SERVERS};

/// The most servers one task can be a client of that init reports by
/// name on its line (the rest are counted).
const NAMED: usize = 4;

/// What telling the servers came to, for init's line about the task.
#[derive(Default)]
pub struct Ended {
    /// Names of the servers where a session ended.
    names: [&'static str; NAMED],
    count: usize,
}

impl Ended {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn push(&mut self, name: &'static str) {
        if let Some(n) = self.names.get_mut(self.count) {
            *n = name;
        }
        self.count += 1;
    }
}

impl core::fmt::Display for Ended {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.count == 0 {
            return Ok(());
        }
        write!(f, " (sessions ended at ")?;
        for (i, name) in self.names.iter().take(self.count.min(NAMED)).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}'{name}'")?;
        }
        if self.count > NAMED {
            write!(f, " and {} more", self.count - NAMED)?;
        }
        write!(f, ")")
    }
}

/// Tells every server task `task` was a client of that it is gone.
pub fn tell_servers(task: usize, task_name: &str) -> Ended {
    let mut ended = Ended::default();
    tell_drivers(task, task_name, &mut ended);
    let Some(sessions) = CLIENT_OF.get(task) else {
        return ended;
    };
    for &(k, badge) in sessions.iter() {
        let Some(&(name, slot, server)) = SESSION_SERVERS.get(k) else {
            continue;
        };
        if server == task {
            continue; // its sessions ended with it
        }
        match client_gone(slot, badge) {
            Ok(true) => ended.push(name),
            Ok(false) => {}
            // Not running: whatever it kept died with it.
            Err(Refusal::Call(SysError::DeadPeer)) => {}
            Err(e) => println!(
                "could not tell '{name}' that '{task_name}' (badge {badge:#x}) is gone: {e}; its session there stays until the server restarts or the client reconnects"
            ),
        }
    }
    ended
}

/// Signals each device driver `task` was a client of (and that keeps
/// sessions per client) the task's gone bit. A driver that is not
/// running has nothing of the client's: its sessions died with it, and
/// the signal waits for its next instance, which starts without them.
fn tell_drivers(task: usize, task_name: &str, ended: &mut Ended) {
    let Some(devices) = DEVICE_GONE.get(task) else {
        return;
    };
    for &(device, slot) in devices.iter() {
        match Notification(slot).signal() {
            Ok(()) => ended.push(device),
            Err(e) => println!(
                "could not tell the driver of '{device}' that '{task_name}' is gone: {e}; its crypto sessions stay until the driver restarts or the client attaches again"
            ),
        }
    }
}

/// Why a server did not end a session.
enum Refusal {
    /// The call itself failed.
    Call(SysError),
    /// The server answered with this status label.
    Status(u32),
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Refusal::Call(e) => write!(f, "the call failed ({e})"),
            Refusal::Status(s) => write!(f, "the server refused it (status {s:#x})"),
        }
    }
}

/// The longest init waits for a server's answer. While init waits, no
/// fault is handled and no task restarted, so a server that never answers
/// (stuck, or itself waiting on something init should restart) must not
/// hold init for ever. Servers answer from their receive loop at once; a
/// second is generous even under TCG. A late answer reaches nobody: the
/// kernel refuses it (`TimedOut`).
pub const SERVER_DEADLINE_MS: u64 = 1_000;

/// The one place init calls a server: `CLIENT_GONE` for `badge` through
/// the capability in `slot`, with a deadline of [`SERVER_DEADLINE_MS`].
/// True if the server had a session to end.
/// A capability made for an instance that has since restarted fails
/// once with `DeadPeer` and is refreshed by the kernel, so a second
/// `DeadPeer` means the server is not running.
fn client_gone(slot: usize, badge: u64) -> Result<bool, Refusal> {
    let ep = Endpoint(slot);
    let msg = Message::new(CLIENT_GONE_LABEL, &[badge]);
    let within = ticks_for_ms(SERVER_DEADLINE_MS);
    let reply = match ep.call_within(&msg, within) {
        Err(SysError::DeadPeer) => ep.call_within(&msg, within),
        other => other,
    }
    .map_err(Refusal::Call)?;
    match reply.label {
        0 => Ok(reply.words[0] != 0),
        status => Err(Refusal::Status(status)),
    }
}
