//! An exit is reported to the supervisor as a fault is (kind `Exited`,
//! the code in word 2), so it can tell the servers the task used and
//! apply its restart policy; a task left stopped after an exit still
//! counts as exited. Without a supervisor (or for the supervisor itself)
//! an exit is what it always was.

use super::sim::{info, slots, Obj, Sim, E};
use crate::kernel::{Decision, Next};
use crate::task::State;
use conflux_abi::ipc::{
    FaultKind, FaultMessage, Info, SupervisorReply, FAULT_LABEL, RESERVED_BADGES, SUPERVISOR_BADGE,
};
use conflux_abi::task_info::{RunState, TaskInfo};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Task 0 supervises (fault endpoint 0 in its slot 1) and holds the
/// console's IRQ (slot 3, for `task_info`); task 1 serves endpoint 1
/// (slot 2); task 2 calls it (slot 3, unbadged).
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
    ];
    let grants = [
        (0, 1, 0, R, 0, 0),
        (0, 3, 3, R, 0, 0),
        (1, 2, 1, R, 0, 0),
        (2, 3, 1, W, 0, 0),
    ];
    Sim::boot(&[1, 1, 1], &objects, &grants, supervised)
}

/// The supervisor receives one message on its fault endpoint.
fn supervisor_receives(s: &mut Sim) -> (Info, u64, FaultMessage) {
    assert_eq!(
        s.sys(0, Recv, [slots(1, 2, 0), 0, 0, 0, 0, 0]),
        Next::Resume,
        "a report was waiting"
    );
    let got = s.incoming(0).expect("a message arrived");
    let report = FaultMessage::from_words(got.words).expect("a report this kernel's abi reads");
    (Info::decode(got.info), got.badge, report)
}

fn supervisor_answers(s: &mut Sim, answer: SupervisorReply) {
    s.sys(0, Reply, [2, info(0, 1, None), answer.to_word(), 0, 0, 0]);
}

fn run_state(s: &mut Sim, task: u64) -> Option<RunState> {
    let word = s.call_ok(0, TaskInfo, [3, task, 0, 0, 0, 0]).unwrap();
    TaskInfo::unpack(word).map(|i| i.state)
}

#[test]
fn an_exit_is_reported_to_the_supervisor_with_its_code() {
    let mut s = world(true);
    assert_eq!(s.sys(2, Exit, [42, 0, 0, 0, 0, 0]), Next::Block);
    assert!(matches!(s.state(2), State::FaultSending { .. }));
    assert!(
        s.k.task(2).space.is_none(),
        "torn down at once, as a fault is"
    );
    assert_eq!(
        run_state(&mut s, 2),
        Some(RunState::Exited),
        "waiting for its supervisor, it is an exit, not a fault"
    );
    let (info, badge, report) = supervisor_receives(&mut s);
    assert!(info.from_kernel);
    assert_eq!(info.label, FAULT_LABEL);
    assert_eq!(badge, 2, "the badge names the task");
    assert_eq!(report.kind, FaultKind::Exited);
    assert_eq!(report.exit_code(), Some(42));
    assert_eq!(report, FaultMessage::exited(2, 42));
}

#[test]
fn an_exited_task_left_stopped_counts_as_exited() {
    let mut s = world(true);
    s.sys(2, Exit, [0; 6]);
    supervisor_receives(&mut s);
    supervisor_answers(&mut s, SupervisorReply::LeaveStopped);
    assert_eq!(s.state(2), State::Exited, "an exit, not a fault");
    assert_eq!(run_state(&mut s, 2), Some(RunState::Exited));
    s.sys(1, Exit, [0; 6]);
    supervisor_receives(&mut s);
    supervisor_answers(&mut s, SupervisorReply::LeaveStopped);
    s.sys(0, Exit, [0; 6]);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
    assert_eq!(s.k.ending_counts(), (3, 0, 0), "three exits, no fault");
}

#[test]
fn an_exit_still_waiting_for_the_supervisor_counts_as_exited() {
    let mut s = world(true);
    s.sys(2, Exit, [0; 6]);
    s.sys(1, Panic, [0; 6]);
    s.sys(0, Exit, [0; 6]);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
    assert_eq!(
        s.k.ending_counts(),
        (2, 1, 0),
        "the supervisor and the task that exited; the panic is a fault"
    );
}

#[test]
fn a_restart_after_an_exit_reloads_the_task_and_callers_reach_it() {
    let mut s = world(true);
    assert_eq!(s.sys(1, Recv, [slots(2, 4, 0), 0, 0, 0, 0, 0]), Next::Block);
    s.sys(2, Exit, [0; 6]);
    supervisor_receives(&mut s);
    supervisor_answers(&mut s, SupervisorReply::Restart);
    assert_eq!(s.state(2), State::Ready);
    assert_eq!(s.k.task(2).generation, 1);
    assert_eq!(run_state(&mut s, 2), Some(RunState::Ready));
    assert_eq!(
        s.sys(2, Call, [3, info(9, 0, None), 0, 0, 0, 0]),
        Next::Switch(1),
        "the new instance calls with its initial capability"
    );
    // And it can exit again, and be told of again.
    s.sys(1, Reply, [4, info(0, 0, None), 0, 0, 0, 0]);
    s.sys(2, Exit, [7, 0, 0, 0, 0, 0]);
    let (_, _, report) = supervisor_receives(&mut s);
    assert_eq!(report.exit_code(), Some(7));
}

#[test]
fn a_fault_is_still_reported_as_a_fault() {
    let mut s = world(true);
    s.sys(2, Panic, [0; 6]);
    let (_, _, report) = supervisor_receives(&mut s);
    assert_eq!(report.kind, FaultKind::Panic);
    assert_eq!(report.exit_code(), None);
    supervisor_answers(&mut s, SupervisorReply::LeaveStopped);
    assert_eq!(s.state(2), State::Stopped);
    assert_eq!(run_state(&mut s, 2), Some(RunState::Faulted));
}

#[test]
fn an_unsupervised_exit_is_an_exit_at_once() {
    let mut s = world(false);
    assert_eq!(s.sys(2, Exit, [3, 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(s.state(2), State::Exited);
    assert_eq!(
        s.sys(0, Recv, [slots(1, 2, 0), 0, 0, 0, 0, 0]),
        Next::Block,
        "no report anywhere"
    );
}

#[test]
fn the_supervisor_exiting_is_an_exit_not_sent_to_itself() {
    let mut s = world(true);
    assert_eq!(s.sys(0, Exit, [0; 6]), Next::Block);
    assert_eq!(s.state(0), State::Exited);
    // Tasks ending after it wait for a report no one will take; they are
    // exits all the same.
    s.sys(2, Exit, [0; 6]);
    s.sys(1, Exit, [0; 6]);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
    assert_eq!(s.k.ending_counts(), (3, 0, 0));
}

#[test]
fn reserved_endpoint_badges_cannot_be_minted() {
    let mut s = world(true);
    assert_eq!(
        s.mint(2, 3, 10, W, SUPERVISOR_BADGE),
        Err(E::InvalidArgument),
        "no task can pose as the supervisor"
    );
    assert_eq!(
        s.mint(2, 3, 10, W, RESERVED_BADGES | 5),
        Err(E::InvalidArgument)
    );
    assert_eq!(s.mint(2, 3, 10, W, RESERVED_BADGES - 1), Ok(0));
}
