//! Far runner (test revoke-stop-running-2cpu): the task on CPU 1 that the
//! near driver on CPU 0 acts on while it runs, and once while it waits in
//! the kernel. Each incarnation plays one part, counted in the shared
//! `board` region (which outlives restarts):
//!
//! - incarnation 0 receives a copy of the driver's region over IPC, maps
//!   it, and reads it in a loop that also reads the board's phase word.
//!   Once the phase says the revocation has returned, the next read of
//!   the region must fault: the mapping must be gone from CPU 1's TLB
//!   before `revoke` returned on CPU 0. Reading it instead is a kernel
//!   bug, and this task says so (a forbidden line).
//! - incarnation 1 (restarted by init after that fault) counts in a loop,
//!   with a `yield` now and then so the stop can also meet it inside the
//!   kernel, until the driver stops it with `task_stop`.
//! - incarnation 2 (restarted after the stop) waits in `recv` on `hand`
//!   for a message that never comes, so CPU 1 idles on this task's page
//!   tables (it idles on the tables it last ran), until the driver stops
//!   it: the kernel must move CPU 1 off the tables before freeing them.
//! - incarnation 3 says so and exits.
//!
//! The board's words are laid out in [`board`]; the near driver uses the
//! same offsets.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::layout::REGION_BASE;
use conflux_userlib::ipc::{reply, Endpoint, Mapped, Message, Region};
use conflux_userlib::println;
use conflux_userlib::sys::yield_now;

conflux_userlib::entry!(main);

use config::caps;

/// Offsets of the words of the shared `board` region (the near driver
/// keeps the same list).
mod board {
    /// The driver's phase: [`REVOKED`] once `revoke` has returned.
    pub const PHASE: u64 = 0;
    /// Advanced by this task's loops, so the driver sees it running.
    pub const COUNTER: u64 = 8;
    /// Which loop this task runs: [`READING`] or [`COUNTING`].
    pub const LOOP: u64 = 16;
    /// Incarnations started so far (this task adds one at each start).
    pub const STARTS: u64 = 24;
    pub const REVOKED: u64 = 1;
    pub const READING: u64 = 1;
    pub const COUNTING: u64 = 2;
    pub const WAITING: u64 = 3;
}

const REPLY: usize = caps::FIRST_FREE;
const GOT: usize = caps::FIRST_FREE + 1;
/// Where the received region is mapped (inside the region window, clear
/// of the manifest's mapping of `board`).
const AT: u64 = REGION_BASE + (1 << 32);
const WORD: &str = "a word inside the board";

fn main() {
    let board = Region(caps::BOARD).premapped(caps::BOARD_ADDR, caps::BOARD_SIZE);
    let n = board.read_u64(board::STARTS).expect(WORD);
    board.write_u64(board::STARTS, n + 1).expect(WORD);
    match n {
        0 => read_until_revoked(&board),
        1 => count_until_stopped(&board),
        2 => wait_until_stopped(&board),
        _ => println!("incarnation {n}: started after the stops; exiting"),
    }
}

/// Incarnation 0: maps the region the driver hands over and reads it
/// until a read faults.
fn read_until_revoked(board: &Mapped) {
    let Ok(got) = Endpoint(caps::HAND).recv(REPLY, GOT) else {
        println!("no region arrived on `hand`; nothing to test");
        return;
    };
    let size = got.msg.words[0];
    let Ok(lent) = Region(GOT).map(AT, size as usize, false) else {
        println!("could not map the received region at {AT:#x}; nothing to test");
        return;
    };
    let first = lent.read_u64(0).expect("word 0 is inside every region");
    println!("mapped the lent region at {AT:#x} (word 0: {first}); reading it on CPU 1");
    if reply(REPLY, &Message::new(1, &[first])).is_err() {
        println!("the driver did not take the reply; nothing to test");
        return;
    }
    board.write_u64(board::LOOP, board::READING).expect(WORD);
    let mut rounds = 0u64;
    loop {
        // The phase is read before the region: x86 keeps loads in order,
        // so a read that sees REVOKED is followed by a region read that
        // starts after `revoke` returned.
        let phase = board.read_u64(board::PHASE).expect(WORD);
        let v = lent.read_u64(0).expect("word 0 is inside every region");
        if phase == board::REVOKED {
            println!(
                "read {v} from the region after its revoke returned: its mapping outlived revoke on CPU 1 (kernel bug: no TLB shootdown)"
            );
            return;
        }
        rounds += 1;
        board.write_u64(board::COUNTER, rounds).expect(WORD);
    }
}

/// Incarnation 1: counts (yielding every 64 rounds) until stopped.
fn count_until_stopped(board: &Mapped) -> ! {
    println!("incarnation 1: counting on CPU 1 until stopped");
    board.write_u64(board::LOOP, board::COUNTING).expect(WORD);
    let mut rounds = 0u64;
    loop {
        rounds += 1;
        board.write_u64(board::COUNTER, rounds).expect(WORD);
        if rounds.is_multiple_of(64) {
            yield_now();
        }
    }
}

/// Incarnation 2: waits in the kernel for a message that never comes
/// (the driver only calls `hand` in part 1), leaving CPU 1 idle on this
/// task's tables, until stopped.
fn wait_until_stopped(board: &Mapped) {
    println!("incarnation 2: waiting on `hand` on CPU 1 until stopped");
    board.write_u64(board::LOOP, board::WAITING).expect(WORD);
    let got = Endpoint(caps::HAND).recv(REPLY, GOT);
    println!(
        "incarnation 2: `hand` delivered {:?} although nothing was sent; nothing to test",
        got.map(|g| g.msg.label)
    );
}
