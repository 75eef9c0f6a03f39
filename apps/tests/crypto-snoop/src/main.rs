//! A second client of the virtio-crypto driver, running beside the first
//! (same priority, so their requests interleave). It names every session
//! handle the other client could hold — handles are small numbers, easy
//! to guess — to encrypt with and to destroy, and must be told
//! `UnknownSession` each time: a handle means something only in the table
//! of the client that made it. Its own session keeps working. The other
//! client holds its sessions until this one has probed (notifications
//! `ready` and `probed`), so the probes meet live sessions.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use conflux_crypto_client::{
    Algorithm, Caps, Connection, Direction, Error, Session, Status, MAX_SESSIONS,
};
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const INTACT: &str = "the shared rings are intact";

fn main() {
    let mut c = Checks::new();
    let mut link = Connection::open(Caps {
        region: config::caps::CRYPTO0,
        addr: config::caps::CRYPTO0_ADDR,
        size: config::caps::CRYPTO0_SIZE,
        done: config::caps::CRYPTO0_DONE,
        doorbell: config::caps::CRYPTO0_DOORBELL,
    })
    .expect(INTACT);
    link.data()[..16].copy_from_slice(&[0x42; 16]);
    let own = link.create_session(Algorithm::Ctr, Direction::Encrypt, 0, 16);
    c.that("a session of its own", own.is_ok(), own);
    let own = own.unwrap_or(Session(0));
    // Probe only while the other client holds sessions: it says when.
    let _ = Notification(config::caps::READY).wait();
    let (mut probes, mut answered_otherwise) = (0, 0);
    for generation in [0u64, 1, 1 << 16] {
        for n in 1..=2 * MAX_SESSIONS as u64 {
            let handle = Session(generation << 32 | n);
            if handle == own {
                continue;
            }
            let unknown = Err(Error::Refused {
                status: Status::UnknownSession,
                detail: 0,
            });
            probes += 2;
            answered_otherwise +=
                usize::from(link.encrypt(handle, &[0; 16], 4096, 8192, 16) != unknown);
            answered_otherwise += usize::from(link.destroy_session(handle) != unknown);
        }
    }
    c.eq(
        &alloc::format!(
            "{probes} encrypt and destroy requests on handles it never made: every one UnknownSession"
        ),
        answered_otherwise,
        0,
    );
    let _ = Notification(config::caps::PROBED).signal();
    let again = link.encrypt(own, &[0; 16], 4096, 8192, 4096);
    c.eq("its own session still works", again, Ok(()));
    c.eq(
        "destroying its own session",
        link.destroy_session(own),
        Ok(()),
    );
    c.eq("detach", link.detach(), Ok(()));
    c.finish();
}
