//! `set_priority`: a task may run less urgently than its manifest says,
//! never more; a restart gives the manifest's priority back; a server
//! that lowered itself is raised again while a more urgent client waits
//! to call it.

use super::sim::{info, Obj, Sim, E};
use crate::kernel::Next;
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Task 0 (priority 1) calls endpoint 0, served by task 1 (priority 2);
/// task 2 (priority 5) is a less urgent client of the same server.
fn boot() -> Sim {
    let objects = [Obj::Endpoint { server: 1 }];
    let grants = [(0, 2, 0, W, 9, 0), (1, 2, 0, R, 0, 0), (2, 2, 0, W, 7, 0)];
    Sim::boot(&[1, 2, 5], &objects, &grants, false)
}

#[test]
fn a_task_may_lower_its_priority_and_raise_it_back_to_the_manifest_s() {
    let mut s = boot();
    assert_eq!(s.call_ok(1, SetPriority, [5, 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(s.k.task(1).priority, 5);
    assert_eq!(s.call_ok(1, SetPriority, [2, 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(s.k.task(1).priority, 2);
}

#[test]
fn no_task_can_make_itself_more_urgent_than_its_manifest_says() {
    let mut s = boot();
    for p in [1, 0] {
        assert_eq!(
            s.call_ok(1, SetPriority, [p, 0, 0, 0, 0, 0]),
            Err(E::InvalidArgument)
        );
    }
    for p in [16, 256, u64::MAX] {
        assert_eq!(
            s.call_ok(1, SetPriority, [p, 0, 0, 0, 0, 0]),
            Err(E::InvalidArgument)
        );
    }
    assert_eq!(s.k.task(1).priority, 2);
}

#[test]
fn lowering_below_a_ready_task_lets_that_task_run() {
    let mut s = boot();
    // Task 2 (priority 5) is ready; the server goes to 6.
    assert_eq!(s.sys(1, SetPriority, [6, 0, 0, 0, 0, 0]), Next::Resume);
    assert!(s.k.should_preempt(1), "a more urgent task is ready now");
}

#[test]
fn a_lowered_server_is_raised_while_a_more_urgent_client_waits_to_call() {
    let mut s = boot();
    s.call_ok(1, SetPriority, [6, 0, 0, 0, 0, 0]).unwrap();
    // The less urgent client waits: the server rises to its priority only.
    assert_eq!(
        s.sys(2, Call, [2, info(1, 0, None), 0, 0, 0, 0]),
        Next::Block
    );
    assert_eq!(s.k.task(1).priority, 5);
    // The urgent client waits: the server rises to its manifest priority,
    // not past it.
    assert_eq!(
        s.sys(0, Call, [2, info(1, 0, None), 0, 0, 0, 0]),
        Next::Block
    );
    assert_eq!(s.k.task(1).priority, 2);
}

#[test]
fn a_restart_gives_the_manifest_s_priority_back() {
    let objects = [Obj::Endpoint { server: 0 }];
    let mut s = Sim::boot(&[1, 3], &objects, &[(0, 1, 0, R, 0, 0)], true);
    s.call_ok(1, SetPriority, [9, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(s.sys(1, Panic, [0; 6]), Next::Block);
    s.k.fault_decided(1, conflux_abi::ipc::SupervisorReply::Restart);
    assert_eq!(s.k.task(1).generation, 1, "restarted");
    assert_eq!(s.k.task(1).priority, 3);
}
