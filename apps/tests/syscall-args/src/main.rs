//! Syscall arguments: encodings no wrapper produces must be refused with a
//! specific error, not half-accepted.
//!
//! - `recv` whose reply slot and capability slot are the same, or whose
//!   packed slot word has bits above its three 8-bit fields set;
//! - `call`/`send` whose info word has reserved bits (42..48, 56..64) set;
//! - `irq_ack` through an IRQ capability without the WRITE right;
//! - `io_in`/`io_out` at port `u64::MAX`, which passes a range check that
//!   wraps around. Last: a kernel that overflows here may stop.
//!
//! The poker keeps a call pending on `mine`, so a `recv` the kernel wrongly
//! accepts returns at once instead of blocking this task.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::format;
use conflux_abi::ipc::Info;
use conflux_abi::syscall::pack_slots;
use conflux_abi::{SysError, Sysno};
use conflux_userlib::ipc::{self, Endpoint, Irq, Message, Slot};
use conflux_userlib::sys::syscall6;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;
/// Answer labels understood by test-poker.
const AGAIN: u32 = 1;
const STOP: u32 = 2;

/// A raw syscall's status, decoded; the value is dropped.
fn status(num: Sysno, a: [u64; 6]) -> Result<(), SysError> {
    let r = syscall6(num as u64, a[0], a[1], a[2], a[3], a[4], a[5]);
    match r.rax {
        0 => Ok(()),
        code => Err(SysError::from_code(code).unwrap_or(SysError::UnknownSyscall)),
    }
}

/// A `recv` on `mine` with a raw slot word. If the kernel accepts it, the
/// poker's call arrives: answer it so the poker calls again.
fn recv_raw(packed: u64) -> Result<(), SysError> {
    let r = status(Sysno::Recv, [packed, 0, 0, 0, 0, 0]);
    if r.is_ok() {
        let _ = ipc::reply(REPLY, &Message::new(AGAIN, &[]));
        let _ = Slot(GOT).delete();
    }
    r
}

/// A `call` or `send` to the sink with a raw info word.
fn send_raw(num: Sysno, info: u64) -> Result<(), SysError> {
    status(num, [caps::SINK as u64, info, 0, 0, 0, 0])
}

fn main() {
    let mut c = Checks::new();
    let invalid = Err(SysError::InvalidArgument);
    let mine = caps::MINE;

    c.eq(
        "recv with the same slot for reply and capability",
        recv_raw(pack_slots(mine, REPLY, REPLY).expect("slots in range")),
        invalid,
    );
    for bit in [24, 31, 40, 63] {
        let what = format!("recv slot word with bit {bit} set");
        c.eq(
            &what,
            recv_raw(pack_slots(mine, REPLY, GOT).expect("slots in range") | 1 << bit),
            invalid,
        );
    }

    let info = Info::new(1, 0).encode().expect("a valid info word");
    for bit in [42, 47, 56, 63] {
        let what = format!("call with reserved info bit {bit} set");
        c.eq(&what, send_raw(Sysno::Call, info | 1 << bit), invalid);
    }
    for bit in [45, 60] {
        let what = format!("send with reserved info bit {bit} set");
        c.eq(&what, send_raw(Sysno::Send, info | 1 << bit), invalid);
    }

    c.eq(
        "irq_ack without the WRITE right",
        Irq(caps::IRQ_R).ack(),
        Err(SysError::MissingRight),
    );

    // Let the poker go: receive its pending call properly and stop it.
    let drained = Endpoint(mine).recv(REPLY, GOT).map(|r| r.msg.label);
    c.eq("a well-formed recv still works", drained, Ok(1));
    c.eq(
        "stop the poker",
        ipc::reply(REPLY, &Message::new(STOP, &[])),
        Ok(()),
    );

    c.eq(
        "io_in at port u64::MAX (range check must not wrap)",
        status(Sysno::IoIn, [caps::IO as u64, u64::MAX, 1, 0, 0, 0]),
        invalid,
    );
    c.eq(
        "io_out at port u64::MAX (range check must not wrap)",
        status(Sysno::IoOut, [caps::IO as u64, u64::MAX, 1, 0, 0, 0]),
        invalid,
    );
    c.finish();
}
