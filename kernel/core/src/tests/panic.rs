//! A panic is a fault: the `panic` syscall ends the task the way a CPU
//! exception does, its supervisor hears of it (marked as a panic, not as
//! some exception) and a restart reloads it, with a new generation.

use super::sim::{info, slots, Obj, Sim, E};
use crate::kernel::{Decision, Next};
use crate::task::State;
use conflux_abi::ipc::{FaultKind, FaultMessage, Info, SupervisorReply, FAULT_LABEL};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Task 0 supervises (fault endpoint 0 in its slot 1); task 1 serves
/// endpoint 1 (slot 2); task 2 calls it (slot 3).
fn world(supervised: bool) -> Sim {
    let objects = [Obj::Endpoint { server: 0 }, Obj::Endpoint { server: 1 }];
    let grants = [(0, 1, 0, R, 0, 0), (1, 2, 1, R, 0, 0), (2, 3, 1, W, 0, 0)];
    Sim::boot(&[1, 1, 1], &objects, &grants, supervised)
}

/// The supervisor receives one message on its fault endpoint.
fn supervisor_receives(s: &mut Sim) -> (Info, u64, [u64; 4]) {
    assert_eq!(
        s.sys(0, Recv, [slots(1, 2, 0), 0, 0, 0, 0, 0]),
        Next::Resume,
        "a fault message was waiting"
    );
    let got = s.incoming(0).expect("a message arrived");
    (Info::decode(got.info), got.badge, got.words)
}

/// The supervisor replies `answer` to the fault message it received.
fn supervisor_answers(s: &mut Sim, answer: SupervisorReply) {
    let word = answer.to_word();
    s.sys(0, Reply, [2, info(0, 1, None), word, 0, 0, 0]);
}

#[test]
fn the_supervisor_hears_of_a_panic_as_a_panic() {
    let mut s = world(true);
    assert_eq!(s.sys(1, Panic, [0; 6]), Next::Block);
    assert!(
        matches!(s.state(1), State::FaultSending { .. }),
        "the task waits for its supervisor, as after an exception"
    );
    assert!(s.k.task(1).space.is_none(), "its address space is gone");
    let (info, badge, words) = supervisor_receives(&mut s);
    assert!(info.from_kernel, "fault reports are marked as the kernel's");
    assert_eq!(info.label, FAULT_LABEL);
    assert_eq!(badge, 1, "the badge names the task");
    assert_eq!(
        FaultMessage::from_words(words),
        Some(FaultMessage::panic(1))
    );
    assert_eq!(s.state(1), State::FaultAwaiting);
}

#[test]
fn an_exception_is_not_reported_as_a_panic() {
    let mut s = world(true);
    s.cpu.current = 1;
    let fault = FaultMessage {
        task: 1,
        kind: FaultKind::Exception,
        vector: 0,
        error: 0,
        address: 0,
        rip: 0x40_1000,
    };
    s.k.fault(&mut s.cpu, fault);
    let (_, _, words) = supervisor_receives(&mut s);
    let got = FaultMessage::from_words(words).unwrap();
    assert_eq!(
        (got.kind, got.vector),
        (FaultKind::Exception, 0),
        "a divide error (vector 0) stays an exception"
    );
}

#[test]
fn a_restart_after_a_panic_reloads_the_task_and_callers_reach_it() {
    let mut s = world(true);
    assert_eq!(s.sys(1, Recv, [slots(2, 4, 0), 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(
        s.sys(2, Call, [3, info(9, 0, None), 0, 0, 0, 0]),
        Next::Switch(1)
    );
    assert_eq!(s.sys(1, Panic, [0; 6]), Next::Block);
    assert_eq!(
        (s.state(2), s.result(2)),
        (State::Ready, Some(Err(E::DeadPeer))),
        "the caller waiting on the panicked server is woken"
    );
    supervisor_receives(&mut s);
    supervisor_answers(&mut s, SupervisorReply::Restart);
    assert_eq!(s.state(1), State::Ready, "reloaded and runnable");
    assert_eq!(s.k.task(1).generation, 1);
    assert!(s.k.task(1).space.is_some(), "a fresh address space");
    assert_eq!(s.sys(1, Recv, [slots(2, 4, 0), 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(
        s.sys(2, Call, [3, info(9, 0, None), 0, 0, 0, 0]),
        Next::Resume,
        "the capability made for generation 0 says DeadPeer once"
    );
    assert_eq!(s.result(2), Some(Err(E::DeadPeer)));
    assert_eq!(
        s.sys(2, Call, [3, info(9, 0, None), 0, 0, 0, 0]),
        Next::Switch(1),
        "then reaches the restarted instance"
    );
}

#[test]
fn a_supervisor_can_leave_a_panicked_task_stopped() {
    let mut s = world(true);
    s.sys(1, Panic, [0; 6]);
    supervisor_receives(&mut s);
    supervisor_answers(&mut s, SupervisorReply::LeaveStopped);
    assert_eq!(s.state(1), State::Stopped);
    assert_eq!(s.k.task(1).generation, 0, "not restarted");
}

#[test]
fn an_unsupervised_panic_counts_as_stopped_after_a_fault_not_as_an_exit() {
    let mut s = world(false);
    assert_eq!(s.sys(1, Panic, [0; 6]), Next::Block);
    assert_eq!(s.state(1), State::Stopped);
    s.sys(0, Exit, [0; 6]);
    s.sys(2, Exit, [0; 6]);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
    assert_eq!(s.k.ending_counts(), (2, 1, 0));
}

#[test]
fn a_panicking_supervisor_is_stopped_not_sent_to_itself() {
    let mut s = world(true);
    assert_eq!(s.sys(0, Panic, [0; 6]), Next::Block);
    assert_eq!(s.state(0), State::Stopped);
}
