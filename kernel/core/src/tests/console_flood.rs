//! A task printing in a loop cannot bury everyone else's lines: past its
//! burst its writes are dropped (the call says 0 bytes were written), the
//! kernel says so once per spell and, when it has slowed down, how much
//! was lost (prefixes included), another task's budget is untouched, and
//! a restart does not refill the budget.

use super::mock::{LOGGED, WRITTEN};
use super::sim::Sim;
use crate::console_budget::{BURST, PER_TICK};
use conflux_abi::Sysno::*;

const LINE: u64 = 60;
/// What a line costs: its bytes and the prefix `t0: ` (the mock machine
/// keeps every write at the start of a line).
const COST: u64 = LINE + 4;

fn write(s: &mut Sim, t: usize) -> u64 {
    s.call_ok(t, DebugWrite, [0x1000, LINE, 0, 0, 0, 0])
        .unwrap()
}

fn lines_logged(about: &str) -> usize {
    LOGGED.with(|l| l.borrow().iter().filter(|m| m.contains(about)).count())
}

#[test]
fn a_flood_is_cut_to_the_burst_and_the_rate_and_reported_once() {
    let mut s = Sim::boot(&[1, 1], &[], &[], false);
    let burst = u64::from(BURST) / COST;
    for _ in 0..burst {
        assert_eq!(write(&mut s, 0), LINE);
    }
    for _ in 0..10_000 {
        assert_eq!(write(&mut s, 0), 0, "past the burst nothing is written");
    }
    assert_eq!(WRITTEN.with(|w| *w.borrow()), burst * LINE);
    assert_eq!(lines_logged("faster than 25600 bytes a second"), 1);
    // Another task's budget is its own.
    assert_eq!(write(&mut s, 1), LINE);
    // One tick later the flooder may write a tick's worth, still inside
    // the spell: nothing more is said about it.
    s.k.tick();
    for _ in 0..u64::from(PER_TICK) / COST {
        assert_eq!(write(&mut s, 0), LINE);
    }
    assert_eq!(write(&mut s, 0), 0);
    assert_eq!(lines_logged("faster than"), 1, "a spell is reported once");
    // Quiet until the burst is back: the next line ends the spell, and
    // the kernel says how much was lost.
    for _ in 0..=BURST / PER_TICK {
        s.k.tick();
    }
    assert_eq!(write(&mut s, 0), LINE);
    assert_eq!(
        lines_logged("slowed down; 640064 bytes of its console output were dropped"),
        1
    );
    assert_eq!(lines_logged("faster than"), 1);
}

#[test]
fn bad_writes_are_refused_before_they_are_charged() {
    let mut s = Sim::boot(&[1], &[], &[], false);
    let too_long = conflux_abi::syscall::DEBUG_WRITE_MAX as u64 + 1;
    for _ in 0..1000 {
        assert!(s
            .call_ok(0, DebugWrite, [0x1000, too_long, 0, 0, 0, 0])
            .is_err());
    }
    assert_eq!(write(&mut s, 0), LINE, "refused writes cost nothing");
}

#[test]
fn writes_from_bad_pointers_cost_nothing() {
    use super::mock::BAD_WRITE_ADDR;
    let mut s = Sim::boot(&[1], &[], &[], false);
    for _ in 0..10_000 {
        let r = s.call_ok(0, DebugWrite, [BAD_WRITE_ADDR, LINE, 0, 0, 0, 0]);
        assert_eq!(r, Err(conflux_abi::SysError::BadAddress));
    }
    assert_eq!(write(&mut s, 0), LINE, "the budget is whole");
}

#[test]
fn a_restart_does_not_refill_the_budget() {
    use super::sim::{info, slots, Obj};
    use conflux_abi::ipc::SupervisorReply;
    // Task 0 supervises through fault endpoint 0 in its slot 1.
    let mut s = Sim::boot(
        &[1, 1],
        &[Obj::Endpoint { server: 0 }],
        &[(0, 1, 0, 1, 0, 0)],
        true,
    );
    while write(&mut s, 1) == LINE {}
    s.sys(1, Panic, [0; 6]);
    s.sys(0, Recv, [slots(1, 2, 0), 0, 0, 0, 0, 0]);
    s.sys(
        0,
        Reply,
        [
            2,
            info(0, 1, None),
            SupervisorReply::Restart.to_word(),
            0,
            0,
            0,
        ],
    );
    assert_eq!(s.k.task(1).generation, 1, "restarted");
    assert_eq!(write(&mut s, 1), 0, "a crash loop cannot flood either");
}
