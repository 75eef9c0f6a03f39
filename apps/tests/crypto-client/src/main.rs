//! Crypto client test: everything through the virtio-crypto driver's
//! shared rings, the device reading and writing this task's memory.
//!
//! - NIST SP 800-38A F.2.1/F.2.2 (CBC-AES128) known answers;
//! - CBC and CTR of 16 B to 64 KiB of pseudo-random data compared with
//!   the software AES (RustCrypto) and decrypted back;
//! - 32 requests in flight at once, each checked;
//! - hostile requests, each answered with its own status while the
//!   driver keeps serving.
//!
//! In the system named `crypto-restart` it instead keeps encrypting while
//! the driver dies and init restarts it, and checks what it is told:
//! `Restarted` for the request in flight, `SessionLost` for sessions made
//! before, and correct results once the session is made again.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod known;
mod restart;

use conflux_crypto_client::{
    Algorithm, Caps, Connection, Direction, Error, Session, Status, Submission, CAPACITY, IV_LEN,
    MAX_LEN, MAX_SESSIONS,
};
use conflux_userlib::hostile::Rng;
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::Checks;
use conflux_virtio_crypto::soft;

conflux_userlib::entry!(main);

/// The driver keeps the rings intact; a test client that finds them
/// damaged has nothing to test.
pub const INTACT: &str = "the shared rings are intact";

/// Where things go in the data area: keys, then source, destination and
/// the decrypted copy, each room for 64 KiB.
pub const KEY_AT: u64 = 0;
pub const SRC: u64 = 4096;
pub const DST: u64 = SRC + 0x1_0000;
pub const BACK: u64 = DST + 0x1_0000;
/// 32 sources and destinations of 1 KiB for the requests in flight.
const FLIGHT_SRC: u64 = BACK + 0x1_0000;
const FLIGHT_DST: u64 = FLIGHT_SRC + 32 * 1024;

/// The sizes compared with the software AES.
const SIZES: [u32; 5] = [16, 64, 1024, 16 * 1024, 64 * 1024];

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
    if config::SYSTEM_NAME == "crypto-restart" {
        restart::run(&mut link, &mut c);
    } else {
        known::answers(&mut link, &mut c);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for algo in [Algorithm::Cbc, Algorithm::Ctr] {
            for size in SIZES {
                against_soft(&mut link, &mut c, algo, size, &mut rng);
            }
        }
        in_flight(&mut link, &mut c, &mut rng);
        refusals(&mut link, &mut c);
        held_while_probed(&mut link, &mut c);
    }
    c.eq("detach", link.detach(), Ok(()));
    c.finish();
}

/// The device crate's names for the software AES.
pub fn soft_apply(algo: Algorithm, dir: Direction, key: &[u8], iv: &[u8; IV_LEN], buf: &mut [u8]) {
    let algo = match algo {
        Algorithm::Cbc => conflux_virtio_crypto::Algorithm::Cbc,
        Algorithm::Ctr => conflux_virtio_crypto::Algorithm::Ctr,
    };
    let dir = match dir {
        Direction::Encrypt => conflux_virtio_crypto::Direction::Encrypt,
        Direction::Decrypt => conflux_virtio_crypto::Direction::Decrypt,
    };
    soft::apply(algo, dir, key, iv, buf).expect("the software AES takes whole blocks and AES keys");
}

pub fn fill(buf: &mut [u8], rng: &mut Rng) {
    for chunk in buf.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

/// A session with `key` written to the key area first.
pub fn session(
    link: &mut Connection,
    algo: Algorithm,
    dir: Direction,
    key: &[u8],
) -> Result<Session, Error> {
    link.data()[KEY_AT as usize..][..key.len()].copy_from_slice(key);
    link.create_session(algo, dir, KEY_AT, key.len() as u32)
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// Encrypts `size` pseudo-random bytes on the device, compares with the
/// software AES, and decrypts back.
fn against_soft(link: &mut Connection, c: &mut Checks, algo: Algorithm, size: u32, rng: &mut Rng) {
    let (mut key, mut iv) = ([0u8; 32], [0u8; IV_LEN]);
    fill(&mut key, rng);
    fill(&mut iv, rng);
    let n = size as usize;
    fill(&mut link.data()[SRC as usize..][..n], rng);
    let enc = session(link, algo, Direction::Encrypt, &key)
        .and_then(|s| link.encrypt(s, &iv, SRC, DST, size).map(|()| s));
    let mut want = alloc::vec::Vec::from(&link.data()[SRC as usize..][..n]);
    soft_apply(algo, Direction::Encrypt, &key, &iv, &mut want);
    let got = &link.data()[DST as usize..][..n];
    c.that(
        &alloc::format!("{algo:?} encrypt of {size} bytes (AES-256) matches the software AES"),
        enc.is_ok() && got == want.as_slice(),
        (enc, first_difference(got, &want)),
    );
    let dec = session(link, algo, Direction::Decrypt, &key)
        .and_then(|s| link.decrypt(s, &iv, DST, BACK, size).map(|()| s));
    let data = link.data();
    let (plain, back) = (&data[SRC as usize..][..n], &data[BACK as usize..][..n]);
    c.that(
        &alloc::format!("{algo:?} decrypt of {size} bytes gives the plaintext back"),
        dec.is_ok() && plain == back,
        (dec, first_difference(plain, back)),
    );
    for s in [enc, dec].into_iter().flatten() {
        let _ = link.destroy_session(s);
    }
}

/// [`CAPACITY`] CTR requests of 1 KiB submitted before any answer is
/// read, each with its own IV; every answer is checked.
fn in_flight(link: &mut Connection, c: &mut Checks, rng: &mut Rng) {
    let mut key = [0u8; 16];
    fill(&mut key, rng);
    let Ok(s) = session(link, Algorithm::Ctr, Direction::Encrypt, &key) else {
        return c.that("a session for the requests in flight", false, ());
    };
    fill(&mut link.data()[FLIGHT_SRC as usize..][..32 * 1024], rng);
    let iv = |id: u32| -> [u8; IV_LEN] {
        core::array::from_fn(|i| (id as u8).wrapping_mul(31) ^ i as u8)
    };
    for id in 0..CAPACITY {
        let at = u64::from(id) * 1024;
        let r = Connection::cipher_request(
            Direction::Encrypt,
            s,
            &iv(id),
            FLIGHT_SRC + at,
            FLIGHT_DST + at,
            1024,
        );
        link.submit(id, &r).expect(INTACT);
    }
    let mut answered = [false; CAPACITY as usize];
    let mut bad = 0;
    for _ in 0..CAPACITY {
        let done = link.wait().expect(INTACT);
        let at = done.id as usize * 1024;
        let mut want = alloc::vec::Vec::from(&link.data()[FLIGHT_SRC as usize + at..][..1024]);
        soft_apply(
            Algorithm::Ctr,
            Direction::Encrypt,
            &key,
            &iv(done.id),
            &mut want,
        );
        let ok = done.status == Status::Ok
            && link.data()[FLIGHT_DST as usize + at..][..1024] == want[..];
        bad += usize::from(!ok || core::mem::replace(&mut answered[done.id as usize % 32], true));
    }
    c.that(
        "32 requests in flight: each answered once, Ok, matching the software AES",
        bad == 0 && answered.iter().all(|&a| a),
        bad,
    );
    let _ = link.destroy_session(s);
}

/// Holds sessions open while `snoop`, another client, tries every handle
/// it could name: tells it through notification `ready`, waits for
/// `probed`, then checks the sessions are intact.
fn held_while_probed(link: &mut Connection, c: &mut Checks) {
    let held: alloc::vec::Vec<_> = (0..3)
        .filter_map(|_| session(link, Algorithm::Cbc, Direction::Encrypt, &known::KEY).ok())
        .collect();
    let _ = Notification(config::caps::READY).signal();
    let _ = Notification(config::caps::PROBED).wait();
    link.data()[SRC as usize..][..64].copy_from_slice(&known::PLAIN);
    let intact = held.iter().all(|&s| {
        link.encrypt(s, &known::CBC_IV, SRC, DST, 64).is_ok()
            && link.data()[DST as usize..][..64] == known::CBC_CIPHER
            && link.destroy_session(s).is_ok()
    });
    c.that(
        "3 sessions held while another client probed: all still work",
        held.len() == 3 && intact,
        held.len(),
    );
}

/// The answer of a refused request.
fn refused<T>(status: Status, detail: u64) -> Result<T, Error> {
    Err(Error::Refused { status, detail })
}

/// Sends `s` and returns the status and detail of its answer.
fn raw(link: &mut Connection, id: u32, s: &Submission) -> (Status, u64) {
    link.submit(id, s).expect(INTACT);
    let done = link.wait().expect(INTACT);
    (done.status, done.detail)
}

/// Requests a hostile client would send, each with its own answer; the
/// driver still answers a good request afterwards.
fn refusals(link: &mut Connection, c: &mut Checks) {
    c.eq(
        "a 17-byte key is refused",
        session(link, Algorithm::Cbc, Direction::Encrypt, &[7; 17]),
        refused(Status::BadKey, 17),
    );
    let create = Submission {
        op: 1,
        len: 16,
        param: 7,
        ..Submission::default()
    };
    c.eq(
        "an unknown algorithm is refused",
        raw(link, 1, &create),
        (Status::BadAlgorithm, 7),
    );
    let Ok(s) = session(link, Algorithm::Cbc, Direction::Encrypt, &known::KEY) else {
        return c.that("a session for the refusals", false, ());
    };
    let enc = |src, dst, len| {
        Connection::cipher_request(Direction::Encrypt, s, &[0; IV_LEN], src, dst, len)
    };
    let data_len = link.data().len() as u64;
    let cases = [
        (
            "CBC of 40 bytes (not whole blocks)",
            enc(SRC, DST, 40),
            (Status::BadLength, 40),
        ),
        (
            "a request of no bytes",
            enc(SRC, DST, 0),
            (Status::BadLength, 0),
        ),
        (
            "a request over MAX_LEN",
            enc(SRC, DST, MAX_LEN + 16),
            (Status::BadLength, u64::from(MAX_LEN) + 16),
        ),
        (
            "a source outside the shared region",
            enc(data_len - 16, DST, 32),
            (Status::BadDescriptor, data_len - 16),
        ),
        (
            "a source at an offset that wraps",
            enc(u64::MAX - 15, DST, 32),
            (Status::BadDescriptor, u64::MAX - 15),
        ),
        (
            "a destination outside the shared region",
            enc(SRC, data_len - 16, 32),
            (Status::BadDestination, data_len - 16),
        ),
        (
            "a destination overlapping the source",
            enc(SRC, SRC + 16, 32),
            (Status::BadDestination, SRC + 16),
        ),
        (
            "an unknown operation",
            Submission {
                op: 9,
                ..enc(SRC, DST, 16)
            },
            (Status::BadOp, 9),
        ),
        (
            "decrypting on an encrypt session",
            Submission {
                op: 4,
                ..enc(SRC, DST, 16)
            },
            (Status::WrongDirection, 0),
        ),
        (
            "a session handle never handed out",
            Submission {
                session: s.0 + 1000,
                ..enc(SRC, DST, 16)
            },
            (Status::UnknownSession, 0),
        ),
    ];
    for (what, sub, want) in cases {
        c.eq(
            &alloc::format!("{what} is refused"),
            raw(link, 2, &sub),
            want,
        );
    }
    c.eq(
        "a request id past the table is refused",
        raw_past_table(link, &enc(SRC, DST, 16)),
        Status::BadDescriptor,
    );
    let mut more = alloc::vec::Vec::new();
    while let Ok(extra) = session(link, Algorithm::Ctr, Direction::Encrypt, &known::KEY) {
        more.push(extra);
    }
    c.eq(
        "sessions past MAX_SESSIONS are refused",
        (
            more.len() + 1,
            session(link, Algorithm::Ctr, Direction::Encrypt, &known::KEY),
        ),
        (MAX_SESSIONS, refused(Status::TooManySessions, 0)),
    );
    for extra in more {
        let _ = link.destroy_session(extra);
    }
    link.data()[SRC as usize..][..64].copy_from_slice(&known::PLAIN);
    let again = link.encrypt(s, &known::CBC_IV, SRC, DST, 64);
    c.that(
        "a good request after the refused ones",
        again.is_ok() && link.data()[DST as usize..][..64] == known::CBC_CIPHER,
        again,
    );
    c.eq("destroying the session", link.destroy_session(s), Ok(()));
    c.eq(
        "a destroyed session is refused",
        link.encrypt(s, &known::CBC_IV, SRC, DST, 64),
        refused(Status::UnknownSession, 0),
    );
}

/// A request whose id names no table entry: its answer can only be
/// matched by that id, with no status entry to read.
fn raw_past_table(link: &mut Connection, s: &Submission) -> Status {
    link.submit(CAPACITY + 3, s).expect(INTACT);
    let done = link.wait().expect(INTACT);
    if done.id == CAPACITY + 3 {
        done.status
    } else {
        Status::Pending
    }
}
