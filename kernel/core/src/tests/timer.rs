//! Task timers: fire at the n-th tick, cancel, re-arm, bounds and errors;
//! cleared with the task and with the capability they were armed through.

use super::sim::{slots, Obj, Sim, E};
use crate::kernel::{Decision, Next};
use crate::object::Object;
use crate::task::State;
use conflux_abi::ipc::{FaultKind, FaultMessage, Info, SupervisorReply, NOTIFY_LABEL};
use conflux_abi::time::TIMER_MAX_TICKS;
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Server t0 receives on endpoint 0 and holds notification 1 in slot 3
/// (READ|WRITE), in slot 4 with badge 0x20, and in slot 5 READ only.
fn system() -> Sim {
    let objects = [Obj::Endpoint { server: 0 }, Obj::Notification];
    let grants = [
        (0, 2, 0, R, 0, 0),
        (0, 3, 1, R | W, 0, 0),
        (0, 4, 1, R | W, 0x20, 0),
        (0, 5, 1, R, 0, 0),
    ];
    Sim::boot(&[1], &objects, &grants, false)
}

fn set(s: &mut Sim, slot: u64, ticks: u64) -> Result<u64, E> {
    s.call_ok(0, TimerSet, [slot, ticks, 0, 0, 0, 0])
}

fn ticks(s: &mut Sim, n: usize) {
    for _ in 0..n {
        s.k.tick();
    }
}

fn word(s: &Sim) -> u64 {
    match s.k.objects.get(1) {
        Object::Notification { word } => word,
        _ => unreachable!("object 1 is a notification"),
    }
}

#[test]
fn a_timer_fires_at_the_nth_tick_into_a_bound_receive() {
    let mut s = system();
    s.call_ok(0, NtfnBind, [2, 3, 0, 0, 0, 0]).unwrap();
    ticks(&mut s, 7);
    assert_eq!(set(&mut s, 4, 3), Ok(7), "returns the tick count");
    assert_eq!(s.sys(0, Recv, [slots(2, 6, 0), 0, 0, 0, 0, 0]), Next::Block);
    ticks(&mut s, 2);
    assert!(matches!(s.state(0), State::Receiving { .. }), "not yet");
    ticks(&mut s, 1);
    assert_eq!(s.state(0), State::Ready);
    let m = s.incoming(0).unwrap();
    let i = Info::decode(m.info);
    assert_eq!(
        (i.label, i.from_kernel, m.badge),
        (NOTIFY_LABEL, true, 0x20)
    );
    assert_eq!(s.k.task(0).timer, None, "one-shot");
    assert_eq!(set(&mut s, 3, 0), Ok(10));
}

#[test]
fn zero_cancels_and_rearming_replaces() {
    let mut s = system();
    assert_eq!(set(&mut s, 3, 2), Ok(0));
    assert_eq!(set(&mut s, 3, 0), Ok(0));
    ticks(&mut s, 5);
    assert_eq!(word(&s), 0, "cancelled");
    assert_eq!(set(&mut s, 3, 2), Ok(5));
    assert_eq!(set(&mut s, 4, 4), Ok(5));
    ticks(&mut s, 3);
    assert_eq!(word(&s), 0, "the first timer was replaced");
    ticks(&mut s, 1);
    assert_eq!(word(&s), 0x20);
}

#[test]
fn a_timer_wakes_a_plain_wait_with_the_bits() {
    let mut s = system();
    set(&mut s, 3, 1).unwrap();
    assert_eq!(s.sys(0, Wait, [3, 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Idle);
    ticks(&mut s, 1);
    assert_eq!((s.state(0), s.result(0)), (State::Ready, Some(Ok(1))));
}

#[test]
fn errors_are_specific_and_the_bound_is_inclusive() {
    let mut s = system();
    assert_eq!(set(&mut s, 3, TIMER_MAX_TICKS + 1), Err(E::TimerTooLong));
    assert_eq!(set(&mut s, 3, u64::MAX), Err(E::TimerTooLong));
    assert_eq!(set(&mut s, 5, 1), Err(E::MissingRight));
    assert_eq!(set(&mut s, 2, 1), Err(E::WrongKind));
    assert_eq!(set(&mut s, 9, 1), Err(E::EmptySlot));
    assert_eq!(set(&mut s, 64, 1), Err(E::InvalidSlot));
    assert_eq!(s.k.task(0).timer, None, "nothing armed by a failed call");
    assert_eq!(set(&mut s, 3, TIMER_MAX_TICKS), Ok(0));
}

#[test]
fn deleting_or_revoking_the_capability_cancels() {
    let mut s = system();
    set(&mut s, 4, 1).unwrap();
    assert_eq!(s.call_ok(0, CapDelete, [4, 0, 0, 0, 0, 0]), Ok(0));
    ticks(&mut s, 2);
    assert_eq!(word(&s), 0);
    s.call_ok(0, CapCopy, [3, 7, 0, 0, 0, 0]).unwrap();
    set(&mut s, 7, 1).unwrap();
    s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(s.k.task(0).timer, None);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Run(0));
}

#[test]
fn an_ending_task_keeps_no_timer_and_nothing_waits_on_ticks() {
    let mut s = system();
    set(&mut s, 3, 1).unwrap();
    s.sys(0, Exit, [0; 6]);
    assert_eq!(s.k.task(0).timer, None);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
    ticks(&mut s, 2);
    assert_eq!(word(&s), 0);
}

#[test]
fn a_faulted_and_restarted_task_starts_with_no_timer_or_binding() {
    // Task 0 supervises (fault endpoint 0 in its slot 1); task 1 serves
    // endpoint 1 and holds notification 2.
    let objects = [
        Obj::Endpoint { server: 0 },
        Obj::Endpoint { server: 1 },
        Obj::Notification,
    ];
    let grants = [
        (0, 1, 0, R, 0, 0),
        (1, 2, 1, R, 0, 0),
        (1, 3, 2, R | W, 0, 0),
    ];
    let mut s = Sim::boot(&[1, 1], &objects, &grants, true);
    assert_eq!(s.call_ok(1, NtfnBind, [2, 3, 0, 0, 0, 0]), Ok(0));
    assert_eq!(s.call_ok(1, TimerSet, [3, 2, 0, 0, 0, 0]), Ok(0));
    s.cpu.current = 1;
    let fault = FaultMessage {
        task: 1,
        kind: FaultKind::Exception,
        vector: 14,
        error: 4,
        address: 0,
        rip: 0,
    };
    s.k.fault(&mut s.cpu, fault);
    assert_eq!((s.k.task(1).bound, s.k.task(1).timer), (None, None));
    s.k.fault_decided(1, SupervisorReply::Restart);
    assert_eq!(s.k.task(1).generation, 1, "restarted");
    assert_eq!((s.k.task(1).bound, s.k.task(1).timer), (None, None));
    ticks(&mut s, 3);
    assert!(matches!(
        s.k.objects.get(2),
        Object::Notification { word: 0 }
    ));
    assert_eq!(s.call_ok(1, NtfnBind, [2, 0, 0, 0, 0, 0]), Err(E::NotBound));
}
