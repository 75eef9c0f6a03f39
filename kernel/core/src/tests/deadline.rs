//! Calls with a deadline (`call_timed`): they give up with `TimedOut`
//! whether the message still waits for a receiver or the server holds it;
//! the abandoned call's reply capability answers nothing, so a late reply
//! never reaches the next call; a reply in time, the server's death and
//! revocation end the call as they end any call, and the deadline stays
//! apart from the task's one-shot timer.

use super::mock::Regs;
use super::sim::{info, slots, Obj, Sim, E};
use crate::cspace::NodeId;
use crate::kernel::{Decision, Next};
use crate::object::Object;
use crate::task::State;
use conflux_abi::ipc::{FaultKind, FaultMessage};
use conflux_abi::syscall::{pack_timed, CALL_MAX_TICKS};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;
const G: u8 = 4;

const CLIENT: usize = 0;
const SERVER: usize = 1;

/// Client 0 calls endpoint 0 (served by task 1) through slot 2 (with
/// grant) and holds notification 1 in slot 7; the server receives on its
/// slot 2.
fn system() -> Sim {
    let objects = [Obj::Endpoint { server: 1 }, Obj::Notification];
    let grants = [
        (0, 2, 0, W | G, 9, 0),
        (0, 7, 1, R | W, 0, 0),
        (1, 2, 0, R, 0, 0),
    ];
    Sim::boot(&[1, 1], &objects, &grants, false)
}

/// `call_timed` through `slot` with `ticks`, carrying `word`.
fn timed(s: &mut Sim, slot: usize, ticks: u64, word: u64) -> Next {
    let a0 = pack_timed(slot, ticks).unwrap();
    s.sys(CLIENT, CallTimed, [a0, info(1, 1, None), word, 0, 0, 0])
}

fn recv(s: &mut Sim, reply_slot: usize) -> Next {
    s.sys(SERVER, Recv, [slots(2, reply_slot, 0), 0, 0, 0, 0, 0])
}

fn reply(s: &mut Sim, reply_slot: u64, word: u64) -> Result<u64, E> {
    s.call_ok(SERVER, Reply, [reply_slot, info(0, 1, None), word, 0, 0, 0])
}

fn ticks(s: &mut Sim, n: usize) {
    for _ in 0..n {
        s.k.tick();
        s.check_counts();
    }
}

fn awaiting(s: &mut Sim) -> bool {
    matches!(s.state(CLIENT), State::AwaitingReply { .. })
}

#[test]
fn a_call_the_server_holds_times_out_at_its_tick_and_the_late_reply_fails() {
    let mut s = system();
    assert_eq!(recv(&mut s, 3), Next::Block);
    assert_eq!(timed(&mut s, 2, 3, 42), Next::Switch(SERVER));
    assert_eq!(s.incoming(SERVER).unwrap().words[0], 42);
    ticks(&mut s, 2);
    assert!(awaiting(&mut s), "not yet");
    ticks(&mut s, 1);
    assert_eq!(s.state(CLIENT), State::Ready);
    assert_eq!(s.result(CLIENT), Some(Err(E::TimedOut)));
    assert_eq!(s.k.task(CLIENT).deadline, 0);
    assert_eq!(reply(&mut s, 3, 5), Err(E::TimedOut), "the caller is gone");
    assert_eq!(s.result(CLIENT), Some(Err(E::TimedOut)), "nothing arrived");
    assert_eq!(s.info(SERVER, 3), Err(E::EmptySlot), "reply consumed it");
}

#[test]
fn a_call_nobody_receives_times_out_and_its_offered_capability_goes_back() {
    let mut s = system();
    let offered = [pack_timed(2, 2).unwrap(), info(1, 0, Some(7)), 0, 0, 0, 0];
    assert_eq!(s.sys(CLIENT, CallTimed, offered), Next::Block);
    let flight = NodeId::in_flight(CLIENT);
    assert!(s.k.caps.get(flight).is_ok(), "a copy waits in flight");
    ticks(&mut s, 2);
    assert_eq!(
        (s.state(CLIENT), s.result(CLIENT)),
        (State::Ready, Some(Err(E::TimedOut)))
    );
    assert!(s.k.caps.get(flight).is_err(), "the copy is gone");
    assert!(s.info(CLIENT, 7).is_ok(), "the client keeps its own");
    assert_eq!(
        s.k.summary.ep_blocked[0], 0,
        "no longer waits on the endpoint"
    );
    // The server finds no message: the call is withdrawn, not queued.
    let nb = [slots(2, 3, 0), 0, 0, 0, 0, 0];
    assert_eq!(s.call_ok(SERVER, NbRecv, nb), Err(E::WouldBlock));
}

#[test]
fn a_reply_just_before_the_deadline_arrives_and_the_deadline_is_gone() {
    let mut s = system();
    recv(&mut s, 3);
    timed(&mut s, 2, 3, 1);
    ticks(&mut s, 2);
    assert_eq!(reply(&mut s, 3, 77), Ok(0));
    assert_eq!(s.state(CLIENT), State::Ready);
    assert_eq!(s.incoming(CLIENT).unwrap().words[0], 77);
    assert_eq!(s.k.task(CLIENT).deadline, 0);
    ticks(&mut s, 5);
    assert_eq!(s.result(CLIENT), Some(Ok(0)), "no late timeout");
}

#[test]
fn a_reply_through_the_fastpath_clears_the_deadline_for_the_next_untimed_call() {
    let mut s = system();
    recv(&mut s, 3);
    timed(&mut s, 2, 2, 1);
    let answer = [slots(2, 3, 0), info(0, 1, None), 8, 0, 0, 0];
    assert_eq!(s.sys(SERVER, ReplyRecv, answer), Next::Switch(CLIENT));
    assert_eq!(s.k.task(CLIENT).deadline, 0);
    // An untimed call the server holds well past the old deadline.
    assert_eq!(
        s.sys(CLIENT, Call, [2, info(1, 0, None), 0, 0, 0, 0]),
        Next::Switch(SERVER)
    );
    ticks(&mut s, 10);
    assert!(
        awaiting(&mut s),
        "an untimed call waits as long as it takes"
    );
}

#[test]
fn a_late_reply_never_reaches_the_callers_next_call() {
    let mut s = system();
    recv(&mut s, 3);
    timed(&mut s, 2, 1, 1);
    ticks(&mut s, 1);
    assert_eq!(s.result(CLIENT), Some(Err(E::TimedOut)));
    // The client calls again; the server takes it into another reply slot
    // while it still holds the first call's reply capability.
    assert_eq!(recv(&mut s, 4), Next::Block);
    assert_eq!(timed(&mut s, 2, 5, 2), Next::Switch(SERVER));
    assert_eq!(reply(&mut s, 3, 666), Err(E::TimedOut));
    assert!(awaiting(&mut s), "the second call still waits");
    assert_eq!(reply(&mut s, 4, 2000), Ok(0));
    assert_eq!(s.incoming(CLIENT).unwrap().words[0], 2000);
}

#[test]
fn a_server_answering_an_abandoned_call_with_reply_recv_goes_on_serving() {
    let mut s = system();
    recv(&mut s, 3);
    timed(&mut s, 2, 1, 1);
    ticks(&mut s, 1);
    // The client's next call waits for a receiver.
    assert_eq!(timed(&mut s, 2, 5, 2), Next::Block);
    // The server's reply_recv answers the abandoned call (the fastpath
    // declines it: wrong epoch), then takes the new call.
    let answer = [slots(2, 3, 0), info(0, 1, None), 666, 0, 0, 0];
    s.k.task(SERVER).ctx = Regs {
        num: ReplyRecv as u64,
        args: answer,
        ..Regs::default()
    };
    assert_eq!(s.k.fast_reply_recv::<false>(SERVER), None);
    assert_eq!(s.sys(SERVER, ReplyRecv, answer), Next::Resume);
    assert_eq!(s.incoming(SERVER).unwrap().words[0], 2, "the new call");
    assert!(awaiting(&mut s));
    assert_eq!(s.incoming(CLIENT), None, "the late answer reached nobody");
    let answer = [slots(2, 3, 0), info(0, 1, None), 3000, 0, 0, 0];
    assert_eq!(s.sys(SERVER, ReplyRecv, answer), Next::Switch(CLIENT));
    assert_eq!(s.incoming(CLIENT).unwrap().words[0], 3000);
}

#[test]
fn the_servers_death_ends_a_timed_call_with_dead_peer_and_no_later_timeout() {
    let mut s = system();
    recv(&mut s, 3);
    timed(&mut s, 2, 3, 1);
    s.cpu.current = SERVER;
    s.k.fault(
        &mut s.cpu,
        FaultMessage {
            task: SERVER as u32,
            kind: FaultKind::Exception,
            vector: 13,
            error: 0,
            address: 0,
            rip: 0,
        },
    );
    s.check_counts();
    assert_eq!(
        (s.state(CLIENT), s.result(CLIENT)),
        (State::Ready, Some(Err(E::DeadPeer)))
    );
    assert_eq!(s.k.task(CLIENT).deadline, 0);
    ticks(&mut s, 5);
    assert_eq!(s.result(CLIENT), Some(Err(E::DeadPeer)));
    assert_eq!(timed(&mut s, 2, 3, 1), Next::Resume);
    assert_eq!(s.result(CLIENT), Some(Err(E::DeadPeer)), "refused at once");
    assert_eq!(s.k.task(CLIENT).deadline, 0);
}

/// Task 2 hands the client (task 0, receiving on endpoint 1 through its
/// slot 4) a copy of its capability to the service (endpoint 0, task 1),
/// which lands in the client's slot 10.
fn handed_down() -> Sim {
    let objects = [Obj::Endpoint { server: 1 }, Obj::Endpoint { server: 0 }];
    let grants = [
        (2, 2, 0, W | G, 0, 0),
        (2, 3, 1, W | G, 0, 0),
        (0, 4, 1, R, 0, 0),
        (1, 2, 0, R, 0, 0),
    ];
    let mut s = Sim::boot(&[1, 1, 1], &objects, &grants, false);
    assert_eq!(
        s.sys(CLIENT, Recv, [slots(4, 6, 10), 0, 0, 0, 0, 0]),
        Next::Block
    );
    s.sys(2, Send, [3, info(1, 0, Some(2)), 0, 0, 0, 0]);
    assert!(s.info(CLIENT, 10).is_ok());
    s
}

#[test]
fn revoking_the_capability_a_timed_call_waits_through_ends_it_with_revoked() {
    let mut s = handed_down();
    assert_eq!(timed(&mut s, 10, 3, 1), Next::Block);
    assert_eq!(s.call_ok(2, CapRevoke, [2, 0, 0, 0, 0, 0]), Ok(1));
    s.check_counts();
    assert_eq!(
        (s.state(CLIENT), s.result(CLIENT)),
        (State::Ready, Some(Err(E::Revoked)))
    );
    assert_eq!(s.k.task(CLIENT).deadline, 0);
    ticks(&mut s, 5);
    assert_eq!(s.result(CLIENT), Some(Err(E::Revoked)), "no later timeout");
}

#[test]
fn a_call_the_server_holds_outlives_revocation_until_its_deadline() {
    let mut s = handed_down();
    recv(&mut s, 3);
    timed(&mut s, 10, 3, 1);
    assert!(awaiting(&mut s));
    assert_eq!(s.call_ok(2, CapRevoke, [2, 0, 0, 0, 0, 0]), Ok(1));
    assert!(awaiting(&mut s), "the server still holds the call");
    ticks(&mut s, 3);
    assert_eq!(s.result(CLIENT), Some(Err(E::TimedOut)));
    assert_eq!(reply(&mut s, 3, 1), Err(E::TimedOut));
}

fn word(s: &Sim) -> u64 {
    match s.k.objects.get(1) {
        Object::Notification { word } => word,
        _ => unreachable!("object 1 is a notification"),
    }
}

#[test]
fn the_tasks_timer_and_a_call_deadline_keep_apart() {
    let mut s = system();
    // The timer first, then the deadline.
    assert_eq!(s.call_ok(CLIENT, TimerSet, [7, 2, 0, 0, 0, 0]), Ok(0));
    assert_eq!(timed(&mut s, 2, 4, 1), Next::Block);
    ticks(&mut s, 2);
    assert_eq!(word(&s), 1, "the timer fired");
    assert!(
        matches!(s.state(CLIENT), State::Sending { .. }),
        "the call waits on"
    );
    ticks(&mut s, 2);
    assert_eq!(s.result(CLIENT), Some(Err(E::TimedOut)));
    assert_eq!(s.call_ok(CLIENT, Poll, [7, 0, 0, 0, 0, 0]), Ok(1));
    // The deadline first: the timer stays armed and fires at its tick.
    assert_eq!(s.call_ok(CLIENT, TimerSet, [7, 5, 0, 0, 0, 0]), Ok(4));
    timed(&mut s, 2, 2, 1);
    ticks(&mut s, 2);
    assert_eq!(s.result(CLIENT), Some(Err(E::TimedOut)));
    let armed = s.k.task(CLIENT).timer.map(|t| t.deadline);
    assert_eq!(armed, Some(9), "the call left the timer alone");
    ticks(&mut s, 2);
    assert_eq!(word(&s), 0);
    ticks(&mut s, 1);
    assert_eq!(word(&s), 1);
    // Both at one tick: both happen.
    s.call_ok(CLIENT, Poll, [7, 0, 0, 0, 0, 0]).unwrap();
    s.call_ok(CLIENT, TimerSet, [7, 3, 0, 0, 0, 0]).unwrap();
    timed(&mut s, 2, 3, 1);
    ticks(&mut s, 3);
    assert_eq!((word(&s), s.result(CLIENT)), (1, Some(Err(E::TimedOut))));
}

#[test]
fn a_pending_deadline_keeps_the_cpu_idling_rather_than_halting() {
    let mut s = system();
    recv(&mut s, 3);
    timed(&mut s, 2, 2, 1);
    // The server holds the call and waits for another: without the
    // deadline nothing could ever run again.
    assert_eq!(recv(&mut s, 4), Next::Block);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Idle);
    ticks(&mut s, 2);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Run(CLIENT));
}

#[test]
fn bad_deadlines_and_slots_are_refused_and_leave_nothing_behind() {
    let mut s = system();
    let call = |a0| [a0, info(1, 0, None), 0, 0, 0, 0];
    let cases = [
        (2, E::InvalidArgument),                          // 0 ticks
        (2 | (CALL_MAX_TICKS + 1) << 8, E::TimerTooLong), // past a day
        (u64::MAX, E::TimerTooLong),                      // garbage
        (63 | 1 << 8, E::EmptySlot),                      // no capability
        (0xff | 1 << 8, E::InvalidSlot),                  // past the table
        (7 | 1 << 8, E::WrongKind),                       // a notification
    ];
    for (a0, e) in cases {
        assert_eq!(s.call_ok(CLIENT, CallTimed, call(a0)), Err(e), "{a0:#x}");
        assert_eq!(
            (s.state(CLIENT), s.k.task(CLIENT).deadline),
            (State::Ready, 0)
        );
    }
    // The longest deadline is accepted.
    let a0 = pack_timed(2, CALL_MAX_TICKS).unwrap();
    assert_eq!(s.sys(CLIENT, CallTimed, call(a0)), Next::Block);
    assert_eq!(s.k.task(CLIENT).deadline, CALL_MAX_TICKS);
}

#[test]
fn a_stale_reply_capability_never_answers_the_next_call_on_either_path() {
    for fast in [true, false] {
        let mut s = system();
        recv(&mut s, 3);
        timed(&mut s, 2, 1, 1);
        ticks(&mut s, 1);
        // The second call, held in reply slot 4, waits for its answer
        // from the same server while slot 3 still names the first.
        recv(&mut s, 4);
        timed(&mut s, 2, 5, 2);
        assert!(awaiting(&mut s));
        let stale = [slots(2, 3, 0), info(0, 1, None), 666, 0, 0, 0];
        let next = match fast {
            true => s.sys(SERVER, ReplyRecv, stale),
            false => s.sys_slow(SERVER, ReplyRecv, stale),
        };
        assert_eq!(
            next,
            Next::Block,
            "fast {fast}: nothing to answer, nothing to take"
        );
        assert!(
            awaiting(&mut s),
            "fast {fast}: the late answer went nowhere"
        );
        assert_eq!(s.incoming(CLIENT), None);
        assert_eq!(reply(&mut s, 4, 2000), Ok(0));
        assert_eq!(s.incoming(CLIENT).unwrap().words[0], 2000);
    }
}
