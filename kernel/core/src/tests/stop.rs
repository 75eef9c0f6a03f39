//! `task_stop`: the console's holder ends a task as a fault would, its
//! supervisor hears who asked and may restart it, callers and servers on
//! either side see `DeadPeer`, and every refusal is specific.

use super::sim::{info, slots, Obj, Sim, E};
use crate::kernel::{Decision, Next};
use crate::task::State;
use conflux_abi::ipc::{FaultMessage, SupervisorReply};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;
/// The operator's slot holding the console's IRQ (line 4).
const CONSOLE: u64 = 2;

/// Task 0 supervises (fault endpoint 0, slot 1); task 1 serves endpoint 1
/// (slot 2); task 2 calls it (slot 3); task 3 holds the console's IRQ in
/// slot 2, and another line's in slot 3.
fn world(supervised: bool) -> Sim {
    let objects = [
        Obj::Endpoint { server: 0 },
        Obj::Endpoint { server: 1 },
        Obj::Notification,
        Obj::Irq {
            line: 4,
            notification: 2,
            bit: 0,
        },
        Obj::Irq {
            line: 3,
            notification: 2,
            bit: 1,
        },
    ];
    let grants = [
        (0, 1, 0, R, 0, 0),
        (1, 2, 1, R, 0, 0),
        (2, 3, 1, W, 0, 0),
        (3, 2, 3, R | W, 0, 0),
        (3, 3, 4, R | W, 0, 0),
    ];
    Sim::boot(&[1, 1, 1, 1], &objects, &grants, supervised)
}

fn stop(s: &mut Sim, by: usize, slot: u64, index: u64) -> Result<u64, E> {
    s.call_ok(by, TaskStop, [slot, index, 0, 0, 0, 0])
}

fn supervisor_hears(s: &mut Sim) -> Option<FaultMessage> {
    assert_eq!(
        s.sys(0, Recv, [slots(1, 2, 0), 0, 0, 0, 0, 0]),
        Next::Resume,
        "a fault message was waiting"
    );
    FaultMessage::from_words(s.incoming(0)?.words)
}

#[test]
fn a_stopped_server_wakes_its_caller_and_its_supervisor_restarts_it() {
    let mut s = world(true);
    assert_eq!(s.sys(1, Recv, [slots(2, 4, 0), 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(
        s.sys(2, Call, [3, info(9, 0, None), 0, 0, 0, 0]),
        Next::Switch(1)
    );
    assert_eq!(stop(&mut s, 3, CONSOLE, 1), Ok(0));
    assert!(s.k.task(1).space.is_none(), "its space is gone at once");
    assert_eq!(
        (s.state(2), s.result(2)),
        (State::Ready, Some(Err(E::DeadPeer)))
    );
    assert_eq!(supervisor_hears(&mut s), Some(FaultMessage::stopped(1, 3)));
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
    assert_eq!((s.state(1), s.k.task(1).generation), (State::Ready, 1));
}

#[test]
fn a_reply_to_a_stopped_caller_reaches_nobody() {
    let mut s = world(true);
    s.sys(1, Recv, [slots(2, 4, 0), 0, 0, 0, 0, 0]);
    s.sys(2, Call, [3, info(9, 0, None), 0, 0, 0, 0]);
    assert_eq!(stop(&mut s, 3, CONSOLE, 2), Ok(0));
    supervisor_hears(&mut s);
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
    assert_eq!(
        s.call_ok(1, Reply, [4, info(0, 0, None), 0, 0, 0, 0]),
        Err(E::DeadPeer)
    );
    assert_eq!(
        s.state(2),
        State::Ready,
        "the new instance was not answered"
    );
    assert_eq!(s.result(2), None);
}

#[test]
fn refusals_are_specific_and_change_nothing() {
    let mut s = world(true);
    assert_eq!(
        stop(&mut s, 2, 3, 1),
        Err(E::WrongKind),
        "an endpoint is not the console"
    );
    assert_eq!(
        stop(&mut s, 3, 3, 1),
        Err(E::InvalidArgument),
        "another line's IRQ is not the console"
    );
    assert_eq!(
        stop(&mut s, 3, CONSOLE, 4),
        Err(E::InvalidArgument),
        "past the tasks"
    );
    assert_eq!(stop(&mut s, 3, CONSOLE, u64::MAX), Err(E::InvalidArgument));
    assert_eq!(stop(&mut s, 3, CONSOLE, 0), Err(E::IsSupervisor));
    assert_eq!(s.state(1), State::Ready);
    assert_eq!(stop(&mut s, 3, CONSOLE, 1), Ok(0));
    assert_eq!(
        stop(&mut s, 3, CONSOLE, 1),
        Err(E::NotRunning),
        "waits for its supervisor"
    );
    s.sys(2, Exit, [0; 6]);
    assert_eq!(stop(&mut s, 3, CONSOLE, 2), Err(E::NotRunning), "exited");
}

#[test]
fn stopping_oneself_does_not_return() {
    let mut s = world(true);
    assert_eq!(s.sys(3, TaskStop, [CONSOLE, 3, 0, 0, 0, 0]), Next::Block);
    assert!(matches!(s.state(3), State::FaultSending { .. }));
    assert_eq!(supervisor_hears(&mut s), Some(FaultMessage::stopped(3, 3)));
}

#[test]
fn unsupervised_a_stopped_task_counts_as_stopped_after_a_fault() {
    let mut s = world(false);
    assert_eq!(stop(&mut s, 3, CONSOLE, 1), Ok(0));
    assert_eq!(s.state(1), State::Stopped);
    for t in [0, 2, 3] {
        s.sys(t, Exit, [0; 6]);
    }
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
    assert_eq!(s.k.ending_counts(), (3, 1, 0));
}
