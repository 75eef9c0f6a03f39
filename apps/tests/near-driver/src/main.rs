//! Near driver (test revoke-stop-running-2cpu): from CPU 0, acts on the
//! far runner while that task runs on CPU 1, and checks that each action
//! has taken effect there by the time its system call returns.
//!
//! 1. Revoke while the holder runs elsewhere: it writes a word into its
//!    region `lent`, hands the far runner a copy (a derived capability)
//!    which it maps and reads in a loop, waits until the loop runs, then
//!    revokes `lent` and raises the board's phase word. The far runner's
//!    next read must fault (the kernel's line is expected); a call to it
//!    then fails with `DeadPeer`.
//! 2. `task_stop` (the shell's `kill`) of a task running elsewhere: once
//!    init has restarted the far runner and its new incarnation counts on
//!    CPU 1, it stops it through the console's capability; when the call
//!    returns the counter must stand still (the task has left CPU 1 and
//!    its space is gone), and init restarts it once more.
//! 3. `task_stop` of a task waiting in the kernel on CPU 1: that CPU then
//!    idles on the task's page tables, and must be moved off them before
//!    the kernel frees them (the kernel checks this itself when it
//!    destroys a space, and stops the machine if a CPU is still on it);
//!    init restarts it once more and the new incarnation exits.
//!
//! Order comes from the board's words and from blocking calls, never from
//! timing: every wait below polls a word the other task writes.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::console::Input;
use conflux_userlib::ipc::{Endpoint, Mapped, Message, Region, Slot};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

/// Offsets of the words of the shared `board` region (the far runner
/// keeps the same list).
mod board {
    pub const PHASE: u64 = 0;
    pub const COUNTER: u64 = 8;
    pub const LOOP: u64 = 16;
    pub const STARTS: u64 = 24;
    pub const REVOKED: u64 = 1;
    pub const READING: u64 = 1;
    pub const COUNTING: u64 = 2;
    pub const WAITING: u64 = 3;
}

const COPY: usize = caps::FIRST_FREE;
const WORD: &str = "a word inside the board";
/// What the driver writes into `lent` for the far runner to read.
const LENT_VALUE: u64 = 77;
/// Spins between two looks at the far runner's counter: long enough for
/// a running loop to advance it many times over (one round is a few
/// instructions), short enough to be instant.
const SETTLE_SPINS: u32 = 2_000_000;

fn main() {
    let mut c = Checks::new();
    let board = Region(caps::BOARD).premapped(caps::BOARD_ADDR, caps::BOARD_SIZE);
    revoke_while_running(&mut c, &board);
    stop_while_running(&mut c, &board);
    stop_while_waiting(&mut c, &board);
    c.finish();
}

/// Part 1: revokes the region the far runner is reading on CPU 1.
fn revoke_while_running(c: &mut Checks, board: &Mapped) {
    let lent = Region(caps::LENT).premapped(caps::LENT_ADDR, caps::LENT_SIZE);
    lent.write_u64(0, LENT_VALUE)
        .expect("word 0 is inside every region");
    c.eq("copy lent", Slot(caps::LENT).copy(COPY), Ok(()));
    let handed = Endpoint(caps::HAND)
        .call(&Message::new(1, &[caps::LENT_SIZE as u64]).with_cap(COPY))
        .map(|m| m.words[0]);
    c.eq(
        "the far runner read the lent region",
        handed,
        Ok(LENT_VALUE),
    );
    wait_running(board, board::READING);
    println!("revoking lent from CPU 0 while the far runner reads it on CPU 1");
    let revoked = Slot(caps::LENT).revoke();
    board.write_u64(board::PHASE, board::REVOKED).expect(WORD);
    // Blocks until the far runner is gone (its read faults), so the
    // checks print after the kernel's fault line.
    let after = Endpoint(caps::HAND).call(&Message::new(2, &[]));
    // Two descendants: the copy this task kept and the one it handed over.
    c.eq(
        "revoke lent's copies, one in the far runner's hands",
        revoked,
        Ok(2),
    );
    c.eq(
        "a call to the far runner after the revocation",
        after.map(drop),
        Err(SysError::DeadPeer),
    );
}

/// Part 2: stops the far runner's next incarnation while it counts on
/// CPU 1.
fn stop_while_running(c: &mut Checks, board: &Mapped) {
    while board.read_u64(board::STARTS).expect(WORD) < 2 {
        core::hint::spin_loop();
    }
    wait_running(board, board::COUNTING);
    println!("stopping the far runner while it counts on CPU 1");
    let console = Input::new(caps::CONSOLE, caps::CONSOLE_NOTIFY);
    c.eq(
        "task_stop of the task running on CPU 1",
        console.stop_task(far_index()),
        Ok(()),
    );
    let before = board.read_u64(board::COUNTER).expect(WORD);
    settle();
    let after = board.read_u64(board::COUNTER).expect(WORD);
    c.eq("the stopped task's counter stands still", after, before);
}

/// Part 3: stops the far runner's next incarnation while it waits in the
/// kernel, CPU 1 idle on its tables.
fn stop_while_waiting(c: &mut Checks, board: &Mapped) {
    while board.read_u64(board::STARTS).expect(WORD) < 3
        || board.read_u64(board::LOOP).expect(WORD) != board::WAITING
    {
        core::hint::spin_loop();
    }
    // The far runner wrote the word just before its `recv`: give it time
    // to block, so the stop meets CPU 1 idle (a stop that met it still
    // running is covered by part 2, and passes too).
    settle();
    println!("stopping the far runner while it waits on CPU 1");
    let console = Input::new(caps::CONSOLE, caps::CONSOLE_NOTIFY);
    c.eq(
        "task_stop of the task waiting on CPU 1",
        console.stop_task(far_index()),
        Ok(()),
    );
}

/// The far runner's task index.
fn far_index() -> usize {
    config::TASK_NAMES
        .iter()
        .position(|&n| n == "far")
        .expect("the manifest names a task `far`")
}

/// Waits until the far runner runs loop `which` and its counter moves.
fn wait_running(board: &Mapped, which: u64) {
    while board.read_u64(board::LOOP).expect(WORD) != which {
        core::hint::spin_loop();
    }
    let start = board.read_u64(board::COUNTER).expect(WORD);
    while board.read_u64(board::COUNTER).expect(WORD) == start {
        core::hint::spin_loop();
    }
}

/// Spins for [`SETTLE_SPINS`] rounds.
fn settle() {
    for _ in 0..SETTLE_SPINS {
        core::hint::spin_loop();
    }
}
