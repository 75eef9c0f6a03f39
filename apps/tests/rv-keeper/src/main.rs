//! Keeper: holds capabilities other tasks hand it, so they can check that
//! revocation reaches copies in another task. It serves endpoint `keep`:
//!
//! - `GIVE` (a capability attached): stores it in the next free slot and
//!   answers `[slot]`;
//! - `PROBE [slot]`: answers `[0]` if `cap_info` on that slot succeeds,
//!   else `[error code]`, and prints what it saw;
//! - `HELLO`: answers `[calls of HELLO before this one, last GIVE slot]`,
//!   counting only messages with the caller's badge, so a task restarted
//!   on purpose learns its incarnation and where its copy went, whatever
//!   the other clients did in between.
//!
//! It never exits; the kernel counts it as blocked forever at the end.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::cap::CAP_SLOTS;
use conflux_userlib::ipc::{Endpoint, Message, Slot};
use conflux_userlib::println;

conflux_userlib::entry!(main);

use config::caps;

const GIVE: u32 = 1;
const PROBE: u32 = 2;
const HELLO: u32 = 3;

const REPLY: usize = caps::FIRST_FREE;
const FIRST_KEPT: usize = caps::FIRST_FREE + 1;

fn main() {
    let ep = Endpoint(caps::KEEP);
    // Per client badge (the manifest gives clients badges 1 and 2).
    let mut next = FIRST_KEPT;
    let (mut last, mut hellos) = ([0u64; 3], [0u64; 3]);
    let mut answer = Message::default();
    loop {
        let (got, who) = match ep.reply_recv(REPLY, next.min(CAP_SLOTS - 1), &answer) {
            Ok(got) => (got.msg, (got.badge as usize).min(2)),
            Err(e) => {
                println!("cannot receive: {e:?}");
                return;
            }
        };
        answer = match got.label {
            GIVE if got.cap.is_some() => {
                last[who] = next as u64;
                next += 1;
                println!("keeping a capability in slot {}", last[who]);
                Message::new(0, &[last[who]])
            }
            PROBE => {
                let slot = got.words[0] as usize;
                let info = Slot(slot).info();
                println!("slot {slot} holds: {info:?}");
                Message::new(0, &[info.err().map_or(0, |e| e.code())])
            }
            HELLO => {
                hellos[who] += 1;
                Message::new(0, &[hellos[who] - 1, last[who]])
            }
            other => {
                println!("unexpected label {other} (or GIVE without a capability)");
                Message::new(1, &[u64::MAX])
            }
        };
    }
}
