//! A crypto client that takes every session its quota allows and exits,
//! over and over: restarted by init (`restart = "always"`), each instance
//! is one round.
//!
//! An instance reads its round from a region (regions outlive the task),
//! tells the keeper it is there (`ready`) and waits for its go-ahead
//! (`go`): before giving it, the keeper checks that the driver's session
//! count is back at its baseline — the previous instance's sessions
//! destroyed because init signalled the driver its gone bit. Then the
//! instance attaches (a new client session), creates `MAX_SESSIONS`
//! sessions, checks that one more is refused with `TooManySessions` and
//! that its last session works, counts the round and exits without
//! detaching. After the last round it says so and waits for ever.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_crypto_client::{Algorithm, Caps, Connection, Direction, Error, Status};
use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Departures the test makes (the keeper's `ROUNDS`).
const ROUNDS: u64 = 1000;

fn main() {
    let state = Region(config::caps::STATE).premapped(config::caps::STATE_ADDR, 4096);
    let round = state.read_u64(0).unwrap_or(0);
    if round >= ROUNDS {
        println!("all {ROUNDS} rounds done; waiting for ever");
    }
    let _ = Notification(config::caps::READY).signal();
    // After the last round the keeper gives no go-ahead.
    let _ = Notification(config::caps::GO).wait();
    if let Err(what) = take_every_session() {
        // The keeper sees the round not counted and says so.
        println!("CHECK FAILED: round {round}: {what}");
        loop {
            let _ = Notification(config::caps::GO).wait();
        }
    }
    let _ = state.write_u64(0, round + 1);
    if round < 3 {
        println!(
            "round {round}: holding {} crypto sessions; exiting",
            conflux_crypto_client::MAX_SESSIONS
        );
    }
    conflux_userlib::sys::exit(0);
}

/// Attaches and creates the quota of sessions; they stay when the task
/// exits.
fn take_every_session() -> Result<(), &'static str> {
    let mut link = Connection::open(Caps {
        region: config::caps::CRYPTO0,
        addr: config::caps::CRYPTO0_ADDR,
        size: config::caps::CRYPTO0_SIZE,
        done: config::caps::CRYPTO0_DONE,
        doorbell: config::caps::CRYPTO0_DOORBELL,
    })
    .map_err(|_| "attach to the crypto driver")?;
    link.data()[..16].copy_from_slice(&[0x42; 16]);
    let mut last = None;
    for _ in 0..conflux_crypto_client::MAX_SESSIONS {
        let s = link
            .create_session(Algorithm::Cbc, Direction::Encrypt, 0, 16)
            .map_err(|_| "a session within the quota (the previous instance's still held?)")?;
        last = Some(s);
    }
    match link.create_session(Algorithm::Cbc, Direction::Encrypt, 0, 16) {
        Err(Error::Refused {
            status: Status::TooManySessions,
            ..
        }) => {}
        _ => return Err("one session past MAX_SESSIONS is refused with TooManySessions"),
    }
    let last = last.ok_or("MAX_SESSIONS is at least 1")?;
    link.encrypt(last, &[0; 16], 4096, 8192, 64)
        .map_err(|_| "an encrypt on the last session")
}
