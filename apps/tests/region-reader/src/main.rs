//! Reader: checks the manifest-shared region, and that accesses outside it
//! or misaligned are refused; maps a region received over IPC, and touches
//! it again after the writer revoked it (which must fault).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::layout::REGION_BASE;
use conflux_userlib::ipc::{AccessError, Endpoint, Message, Notification, Region};
use conflux_userlib::{println, testing::Checks};

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;
const AT: u64 = REGION_BASE + (1 << 32);
const WORD_0: &str = "word 0 is inside every region";

fn main() {
    let mut c = Checks::new();
    c.that("notified", Notification(caps::READY).wait().is_ok(), ());
    let shared = Region(caps::SHARED).premapped(caps::SHARED_ADDR, caps::SHARED_SIZE);
    c.eq(
        "shared region value",
        shared.read_u64(0).expect(WORD_0),
        0xc0ffee,
    );
    let size = caps::SHARED_SIZE as u64;
    c.eq("last word of the region", shared.read_u64(size - 8), Ok(0));
    let past = AccessError::OutOfBounds {
        offset: size,
        len: size,
    };
    c.eq("word past the region", shared.read_u64(size), Err(past));
    let huge = u64::MAX - 7;
    let wraps = AccessError::OutOfBounds {
        offset: huge,
        len: size,
    };
    c.eq(
        "offset that wraps around",
        shared.read_u64(huge),
        Err(wraps),
    );
    let odd = AccessError::Misaligned { offset: 4 };
    c.eq("misaligned word", shared.read_u64(4), Err(odd));
    let chan = Endpoint(caps::CHAN);
    let Ok(got) = chan.recv(REPLY, GOT) else {
        c.finish()
    };
    c.eq("a capability arrived", got.msg.cap, Some(GOT));
    let size = got.msg.words[0];
    let mapped = Region(GOT).map(AT, size as usize, false);
    c.that(
        "mapped the received region read-only",
        mapped.is_ok(),
        mapped.map(|_| ()),
    );
    let Ok(m) = mapped else { c.finish() };
    let value = m.read_u64(0).expect(WORD_0);
    c.eq("transferred region value", value, 77);
    let past = AccessError::OutOfBounds {
        offset: size,
        len: size,
    };
    c.eq(
        "word past the transferred region",
        m.read_u64(size),
        Err(past),
    );
    let Ok(_) = chan.reply_recv(REPLY, 0, &Message::new(1, &[value])) else {
        c.finish()
    };
    println!("reading the region again after revocation");
    let v = m.read_u64(0).expect(WORD_0);
    println!("read {v} after revocation: the mapping was not removed");
    c.finish();
}
