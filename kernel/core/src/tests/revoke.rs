//! Revocation reaches every descendant, however it was copied, deleted,
//! moved or restarted, and wakes tasks blocked through what it removes.

use super::sim::{info, slots, Obj, Sim, E};
use crate::kernel::Next;
use crate::task::State;
use conflux_abi::ipc::{FaultKind, FaultMessage, Info};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;
const G: u8 = 4;

#[test]
fn a_copy_survives_no_deleted_intermediate() {
    let mut s = Sim::boot(&[1], &[Obj::Notification], &[(0, 3, 0, R | W, 0, 0)], false);
    s.mint(0, 3, 10, R | W, 0).unwrap();
    s.call_ok(0, CapCopy, [10, 11, 0, 0, 0, 0]).unwrap();
    s.call_ok(0, CapDelete, [10, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(s.info(0, 11), Err(E::Revoked));
    assert!(s.info(0, 3).is_ok(), "the revoked capability itself stays");
}

/// Task 1 receives on endpoint 1 into slot 20; task 0 sends it `cap`.
fn transfer(s: &mut Sim, from_slot: u64) {
    assert_eq!(
        s.sys(1, Recv, [slots(4, 6, 20), 0, 0, 0, 0, 0]),
        Next::Block
    );
    assert_eq!(
        s.sys(
            0,
            Send,
            [5, info(7, 0, Some(from_slot as usize)), 0, 0, 0, 0]
        ),
        Next::Resume
    );
    let got = Info::decode(s.incoming(1).unwrap().info);
    assert_eq!(got.cap, Some(0), "the capability arrived");
}

#[test]
fn a_transferred_copy_is_revoked_after_its_intermediate_is_deleted() {
    let objects = [Obj::Notification, Obj::Endpoint { server: 1 }];
    let grants = [
        (0, 3, 0, R | W, 0, 0),
        (0, 5, 1, W | G, 0, 0),
        (1, 4, 1, R, 0, 0),
    ];
    let mut s = Sim::boot(&[1, 1], &objects, &grants, false);
    s.mint(0, 3, 10, R | W, 0).unwrap();
    transfer(&mut s, 10);
    s.call_ok(0, CapDelete, [10, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(s.info(1, 20), Err(E::Revoked));
}

#[test]
fn a_capability_in_flight_is_revoked_and_the_message_arrives_without_it() {
    // Endpoint 1 is served by task 0; task 2 hands task 0 a child of its
    // notification; task 0 offers that to task 1 (not receiving yet).
    let objects = [
        Obj::Notification,
        Obj::Endpoint { server: 0 },
        Obj::Endpoint { server: 1 },
    ];
    let grants = [
        (2, 3, 0, R | W, 0, 0),
        (2, 5, 1, W | G, 0, 0),
        (0, 4, 1, R, 0, 0),
        (0, 6, 2, W | G, 0, 0),
        (1, 7, 2, R, 0, 0),
    ];
    let mut s = Sim::boot(&[1, 1, 1], &objects, &grants, false);
    assert_eq!(
        s.sys(0, Recv, [slots(4, 8, 12), 0, 0, 0, 0, 0]),
        Next::Block
    );
    s.sys(2, Send, [5, info(1, 0, Some(3)), 0, 0, 0, 0]);
    assert!(s.info(0, 12).is_ok());
    assert_eq!(
        s.sys(0, Send, [6, info(2, 0, Some(12)), 0, 0, 0, 0]),
        Next::Block
    );
    // Slot 12 and the in-flight child of it.
    assert_eq!(s.call_ok(2, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(2));
    assert_eq!(
        s.sys(1, Recv, [slots(7, 8, 20), 0, 0, 0, 0, 0]),
        Next::Resume
    );
    let got = Info::decode(s.incoming(1).unwrap().info);
    assert_eq!((got.label, got.cap, got.cap_dropped), (2, None, true));
    assert_eq!(s.info(1, 20), Err(E::EmptySlot));
}

#[test]
fn a_restarted_task_can_revoke_what_its_previous_instance_handed_out() {
    // Task 0 supervises (fault endpoint 0 in its slot 1); task 1 hands a
    // copy of its notification to task 2, faults and is restarted.
    let objects = [
        Obj::Endpoint { server: 0 },
        Obj::Notification,
        Obj::Endpoint { server: 2 },
    ];
    let grants = [
        (0, 1, 0, R, 0, 0),
        (1, 3, 1, R | W, 0, 0),
        (1, 4, 2, W | G, 0, 0),
        (2, 5, 2, R, 0, 0),
    ];
    let mut s = Sim::boot(&[1, 1, 1], &objects, &grants, true);
    assert_eq!(
        s.sys(2, Recv, [slots(5, 6, 20), 0, 0, 0, 0, 0]),
        Next::Block
    );
    s.call_ok(1, CapCopy, [3, 10, 0, 0, 0, 0]).unwrap();
    s.sys(1, Send, [4, info(1, 0, Some(10)), 0, 0, 0, 0]);
    assert!(s.info(2, 20).is_ok());
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
    assert_eq!(
        s.sys(0, Recv, [slots(1, 2, 0), 0, 0, 0, 0, 0]),
        Next::Resume
    );
    let got = s.incoming(0).unwrap();
    assert!(
        Info::decode(got.info).from_kernel,
        "fault reports are marked as the kernel's"
    );
    s.sys(0, Reply, [2, info(0, 1, None), 1, 0, 0, 0]);
    assert_eq!(s.k.task(1).generation, 1, "restarted");
    assert_eq!(s.call_ok(1, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(s.info(2, 20), Err(E::Revoked));
}

/// Task 0 serves endpoint 0 and hands task 2 a copy of it (and of a
/// notification) over endpoint 1.
fn hand_out(s: &mut Sim, slot: usize) {
    assert_eq!(
        s.sys(2, Recv, [slots(4, 6, 20), 0, 0, 0, 0, 0]),
        Next::Block
    );
    s.sys(0, Send, [5, info(1, 0, Some(slot)), 0, 0, 0, 0]);
    assert!(s.info(2, 20).is_ok());
}

fn server_world() -> Sim {
    let objects = [
        Obj::Endpoint { server: 0 },
        Obj::Endpoint { server: 2 },
        Obj::Notification,
    ];
    let grants = [
        (0, 3, 0, R | W | G, 0, 0),
        (0, 5, 1, W | G, 0, 0),
        (2, 4, 1, R, 0, 0),
        (0, 7, 2, R | W, 0, 0),
    ];
    Sim::boot(&[1, 1, 1], &objects, &grants, false)
}

#[test]
fn revoking_wakes_a_stolen_receive_and_frees_the_endpoint() {
    let mut s = server_world();
    hand_out(&mut s, 3);
    assert_eq!(
        s.sys(2, Recv, [slots(20, 6, 0), 0, 0, 0, 0, 0]),
        Next::Block
    );
    assert_eq!(
        s.call_ok(0, Recv, [slots(3, 8, 0), 0, 0, 0, 0, 0]),
        Err(E::Busy)
    );
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(
        (s.state(2), s.result(2)),
        (State::Ready, Some(Err(E::Revoked)))
    );
    assert_eq!(s.sys(0, Recv, [slots(3, 8, 0), 0, 0, 0, 0, 0]), Next::Block);
}

#[test]
fn revoking_wakes_a_wait_on_a_revoked_notification() {
    let mut s = server_world();
    hand_out(&mut s, 7);
    assert_eq!(s.sys(2, Wait, [20, 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(s.call_ok(0, CapRevoke, [7, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(
        (s.state(2), s.result(2)),
        (State::Ready, Some(Err(E::Revoked)))
    );
}
