//! Hostile file-server client (test fs-hostile): malformed messages
//! (`messages`), malformed and greedy compounds (`compounds`) and hostile
//! arguments and other clients' handles (`arguments`), regions shared
//! instead of lent and revoked under the server (`lending`), sessions
//! hoarded under many badges and a minted badge (`sessions`), a session's
//! prepared compounds and regions past their limits (`limits`), the
//! server's capability table filled by many sessions' regions (`table`), each checked
//! for its exact error, while a well-behaved client (test-fs-worker) runs a
//! CRC-checked workload on the same server. Then it waits for the worker
//! and shuts the server down (its badge is an administrator's), so the
//! runner can check the disk with e2fsck.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod arguments;
mod compounds;
mod lending;
mod limits;
mod messages;
mod sessions;
mod table;

use conflux_fs_client::{Error, Fs};
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Sends `msg` on the endpoint in `slot` and decodes the reply's status
/// the way the client library does: the reply's words, or the error.
pub fn raw(slot: usize, msg: &Message) -> Result<[u64; 4], Error> {
    let reply = Endpoint(slot).call(msg)?;
    match Error::from_status(reply.label, reply.words[0]) {
        None => Ok(reply.words),
        Some(e) => Err(e),
    }
}

fn main() {
    let mut c = Checks::new();
    messages::before_connecting(&mut c);
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    lending::refusals(&mut c);
    messages::run(&mut c, &mut fs);
    compounds::run(&mut c, &mut fs);
    arguments::run(&mut c, &mut fs);
    lending::revoke_under_the_server(&mut c, &mut fs, 1);
    sessions::run(&mut c, &mut fs);
    limits::run(&mut c, &mut fs);
    table::run(&mut c, &mut fs);
    c.eq(
        "the server still serves: stat /README",
        fs.stat("/README").map(|s| s.size > 0),
        Ok(true),
    );
    let _ = Notification(config::caps::DONE).wait();
    c.eq(
        "the worker finished; shut the server down",
        fs.shutdown(),
        Ok(()),
    );
    c.finish()
}
