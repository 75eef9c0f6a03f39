//! init's calls to servers, each with a deadline.
//!
//! init is the supervisor: while it waits for a server's answer, no fault
//! is handled and no task restarted. A server that never answers (stuck,
//! or itself waiting on something init should restart) must therefore not
//! hold init for ever, so every call init makes to a server goes through
//! [`ask`]: at most [`SERVER_DEADLINE_MS`], then one line naming the
//! server and what was asked, and init goes on supervising without the
//! answer (the server's late reply reaches nobody: the kernel refuses it).
//! Today init makes no such call (it only answers the kernel's fault
//! messages); the first is the notice that a client is gone (issue 26,
//! item 2), made on another branch, which should call [`ask`].

use conflux_abi::time::ticks_for_ms;
use conflux_abi::SysError;
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;

/// The longest init waits for a server's answer. Servers answer init's
/// notices from their receive loop, at once; a second is generous even
/// under TCG, and short enough that a fault arriving meanwhile is handled
/// soon after.
pub const SERVER_DEADLINE_MS: u64 = 1_000;

/// Calls `server` (named for the log) through `ep` with `msg` about
/// `what`; gives up after [`SERVER_DEADLINE_MS`] with `TimedOut`, saying
/// so once.
#[allow(dead_code)] // its first caller comes with the ClientGone notice (see above)
pub fn ask(server: &str, what: &str, ep: Endpoint, msg: &Message) -> Result<Message, SysError> {
    let got = ep.call_within(msg, ticks_for_ms(SERVER_DEADLINE_MS));
    if let Err(e) = got {
        let why = match e {
            SysError::TimedOut => "no answer in time: it is stuck or overloaded",
            SysError::DeadPeer => "it died or was restarted",
            _ => "the call was refused",
        };
        println!(
            "asked server '{server}' {what}: {e} ({why}); init goes on supervising without its answer"
        );
    }
    got
}
