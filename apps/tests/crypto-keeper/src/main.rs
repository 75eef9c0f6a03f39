//! The crypto client that stays while another departs, round after
//! round (`test-crypto-departer`), and watches what the departures give
//! back.
//!
//! It holds sessions of its own throughout. First it checks that it
//! cannot make itself a capability carrying a gone bit (its doorbell's
//! badge is fixed), then takes the driver's session count as the
//! baseline. For each departure: it waits until the departer's next
//! instance is there (`ready`, before it attaches), checks that the count
//! is back at the baseline (init signalled the driver the departed
//! client's gone bit and its sessions were destroyed), that its own
//! sessions still encrypt, and that making and destroying a session is
//! never refused, then gives the go-ahead (`go`).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_crypto_client::{Algorithm, Caps, Connection, Direction, Session};
use conflux_userlib::ipc::{Notification, Slot};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Departures the test makes (the departer's `ROUNDS`).
const ROUNDS: u64 = 1000;
/// Sessions this client holds throughout.
const HELD: usize = 3;

fn main() {
    let mut checks = Checks::new();
    let mut link = Connection::open(Caps {
        region: config::caps::CRYPTO0,
        addr: config::caps::CRYPTO0_ADDR,
        size: config::caps::CRYPTO0_SIZE,
        done: config::caps::CRYPTO0_DONE,
        doorbell: config::caps::CRYPTO0_DOORBELL,
    })
    .expect("attach to the crypto driver");
    // This client is client 0, the departer client 1: gone bits 32, 33.
    let forged = [1u64 << 32, 1 << 33].iter().all(|&bit| {
        Slot(config::caps::CRYPTO0_DOORBELL)
            .mint(config::caps::FIRST_FREE, 0b10, bit)
            .is_err()
    });
    checks.that(
        "a client cannot mint its doorbell into a capability with a gone bit",
        forged,
        "cap_mint gave a capability with another badge",
    );
    link.data()[..16].copy_from_slice(&[0x17; 16]);
    let mut held: [Option<Session>; HELD] = [None; HELD];
    for h in held.iter_mut() {
        *h = link
            .create_session(Algorithm::Cbc, Direction::Encrypt, 0, 16)
            .ok();
    }
    let baseline = link.session_count().unwrap_or(u64::MAX);
    checks.that(
        "the baseline: this client's sessions only",
        held.iter().all(Option::is_some) && baseline == HELD as u64,
        baseline,
    );
    let (mut differed, mut refused) = (0u64, 0u64);
    for round in 0..=ROUNDS {
        // The departer's instance for `round` is there and not attached:
        // whatever the one before held must be gone.
        let _ = Notification(config::caps::READY).wait();
        if link.session_count() != Ok(baseline) {
            differed += 1;
        }
        if !still_served(&mut link, &held) {
            refused += 1;
        }
        if round > 0 && round % 250 == 0 {
            println!(
                "{round} departures: counts differed after {differed}, refused {refused} times"
            );
        }
        if round < ROUNDS {
            let _ = Notification(config::caps::GO).signal();
        }
    }
    checks.that(
        "after every departure the driver's session count was back at the baseline",
        differed == 0,
        differed,
    );
    checks.that(
        "this client's sessions kept working and it was never refused a session",
        refused == 0,
        refused,
    );
    checks.finish();
}

/// Encrypts on each held session and makes and destroys one more.
fn still_served(link: &mut Connection, held: &[Option<Session>; HELD]) -> bool {
    let encrypted = held
        .iter()
        .flatten()
        .all(|&s| link.encrypt(s, &[0; 16], 4096, 8192, 64).is_ok());
    let fresh = link
        .create_session(Algorithm::Cbc, Direction::Encrypt, 0, 16)
        .and_then(|s| link.destroy_session(s));
    encrypted && fresh.is_ok()
}
