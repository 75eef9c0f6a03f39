//! IPC, notification and port rules: the fastpath hand-off, argument
//! checks that once overflowed or aliased, dead peers, teardown.

use super::mock::LEAKED_MAPPINGS;
use super::sim::{info, slots, Obj, Sim, E};
use crate::kernel::Next;
use crate::task::State;
use conflux_abi::layout::REGION_BASE;
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

fn client_server(server_priority: u8) -> Sim {
    let objects = [Obj::Endpoint { server: 1 }];
    Sim::boot(
        &[1, server_priority],
        &objects,
        &[(0, 2, 0, W, 9, 0), (1, 2, 0, R, 0, 0)],
        false,
    )
}

#[test]
fn a_call_to_a_waiting_equal_hands_the_cpu_over_and_the_reply_hands_it_back() {
    let mut s = client_server(1);
    assert_eq!(s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(
        s.sys(0, Call, [2, info(5, 2, None), 11, 22, 0, 0]),
        Next::Switch(1)
    );
    let m = s.incoming(1).unwrap();
    assert_eq!((m.badge, m.words[0], m.words[1]), (9, 11, 22));
    assert_eq!(
        s.sys(
            1,
            ReplyRecv,
            [slots(2, 3, 0), info(6, 1, None), 33, 0, 0, 0]
        ),
        Next::Switch(0)
    );
    assert_eq!(s.incoming(0).unwrap().words[0], 33);
    assert_eq!(
        s.state(1),
        State::Receiving {
            obj: 0,
            slot: 2,
            reply_slot: 3,
            cap_slot: 0
        }
    );
}

#[test]
fn a_call_to_a_less_urgent_receiver_goes_through_the_scheduler() {
    let mut s = client_server(3);
    s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    assert_eq!(
        s.sys(0, Call, [2, info(5, 0, None), 0, 0, 0, 0]),
        Next::Block
    );
    assert_eq!(s.state(1), State::Ready);
}

#[test]
fn receive_slots_must_differ_and_fit() {
    let mut s = client_server(1);
    assert_eq!(
        s.call_ok(1, Recv, [slots(2, 3, 3), 0, 0, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(1, Recv, [slots(2, 3, 0) | 1 << 24, 0, 0, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(1, Recv, [slots(2, 0, 0), 0, 0, 0, 0, 0]),
        Err(E::InvalidSlot)
    );
    assert_eq!(s.state(1), State::Ready, "a refused receive never blocks");
}

#[test]
fn senders_cannot_set_reserved_or_kernel_info_bits() {
    let mut s = client_server(1);
    for bit in [41, 42, 45, 60] {
        let bad = info(5, 0, None) | 1 << bit;
        assert_eq!(
            s.call_ok(0, Call, [2, bad, 0, 0, 0, 0]),
            Err(E::InvalidArgument),
            "bit {bit}"
        );
    }
    assert_eq!(
        s.call_ok(0, Call, [2, 65 << 32, 0, 0, 0, 0]),
        Err(E::TooLong)
    );
}

#[test]
fn port_ranges_do_not_wrap() {
    let mut s = Sim::boot(
        &[1],
        &[Obj::IoPorts {
            base: 0x2f8,
            count: 8,
        }],
        &[(0, 2, 0, R | W, 0, 0)],
        false,
    );
    assert_eq!(
        s.call_ok(0, IoIn, [2, u64::MAX, 1, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(0, IoIn, [2, u64::MAX - 1, 2, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(0, IoIn, [2, 0x2ff, 2, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(0, IoIn, [2, 0x2f8 + 65536, 1, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(s.call_ok(0, IoIn, [2, 0x2fc, 4, 0, 0, 0]), Ok(0));
}

#[test]
fn acknowledging_an_irq_needs_the_write_right() {
    let objects = [
        Obj::Notification,
        Obj::Irq {
            line: 3,
            notification: 0,
            bit: 5,
        },
    ];
    let mut s = Sim::boot(
        &[1],
        &objects,
        &[(0, 2, 1, R, 0, 0), (0, 3, 1, R | W, 0, 0)],
        false,
    );
    assert_eq!(
        s.call_ok(0, IrqAck, [2, 0, 0, 0, 0, 0]),
        Err(E::MissingRight)
    );
    assert_eq!(s.call_ok(0, IrqAck, [3, 0, 0, 0, 0, 0]), Ok(0));
}

#[test]
fn a_dying_server_wakes_every_dependent_with_dead_peer() {
    let objects = [Obj::Endpoint { server: 1 }];
    let grants = [(0, 2, 0, W, 0, 0), (1, 2, 0, R, 0, 0), (2, 2, 0, W, 0, 0)];
    let mut s = Sim::boot(&[1, 1, 1], &objects, &grants, false);
    s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    s.sys(0, Call, [2, info(1, 0, None), 0, 0, 0, 0]); // delivered, awaiting the reply
    assert_eq!(
        s.sys(2, Call, [2, info(1, 0, None), 0, 0, 0, 0]),
        Next::Block
    ); // queued
    s.sys(1, Exit, [0; 6]);
    for t in [0, 2] {
        assert_eq!(
            (s.state(t), s.result(t)),
            (State::Ready, Some(Err(E::DeadPeer))),
            "task {t}"
        );
    }
    assert_eq!(
        s.call_ok(0, Call, [2, info(1, 0, None), 0, 0, 0, 0]),
        Err(E::DeadPeer)
    );
}

#[test]
fn a_dying_region_holder_unmaps_before_its_space_goes_and_others_keep_theirs() {
    let objects = [Obj::Region { size: 8192 }];
    let grants = [
        (0, 2, 0, R | W, 0, REGION_BASE),
        (1, 2, 0, R, 0, REGION_BASE),
    ];
    let mut s = Sim::boot(&[1, 1], &objects, &grants, false);
    let before = LEAKED_MAPPINGS.with(|l| *l.borrow());
    s.sys(0, Exit, [0; 6]);
    assert_eq!(
        LEAKED_MAPPINGS.with(|l| *l.borrow()),
        before,
        "destroyed with no shared mapping left"
    );
    assert_eq!(
        s.k.task(1).space.as_ref().unwrap().shared,
        vec![(REGION_BASE, 8192)]
    );
    assert!(s.k.task(0).space.is_none());
}

#[test]
fn a_non_blocking_receive_with_no_sender_says_would_block_and_changes_nothing() {
    let mut s = client_server(1);
    assert_eq!(
        s.call_ok(1, NbRecv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Err(E::WouldBlock)
    );
    assert_eq!(s.state(1), State::Ready);
    assert_eq!(s.incoming(1), None);
    // The same slot checks as recv.
    assert_eq!(
        s.call_ok(1, NbRecv, [slots(2, 3, 3), 0, 0, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(1, NbRecv, [slots(2, 0, 0), 0, 0, 0, 0, 0]),
        Err(E::InvalidSlot)
    );
    assert_eq!(
        s.call_ok(0, NbRecv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Err(E::MissingRight),
        "the client's capability cannot receive"
    );
}

#[test]
fn a_non_blocking_receive_takes_a_waiting_call_and_the_reply_reaches_the_caller() {
    let mut s = client_server(1);
    // Nobody receives: the caller blocks sending.
    assert_eq!(
        s.sys(0, Call, [2, info(5, 2, None), 11, 22, 0, 0]),
        Next::Block
    );
    assert_eq!(
        s.sys(1, NbRecv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Next::Resume
    );
    assert_eq!(s.result(1), Some(Ok(0)));
    assert_eq!(s.state(1), State::Ready, "the receiver never blocks");
    let m = s.incoming(1).unwrap();
    assert_eq!((m.badge, m.words[0], m.words[1]), (9, 11, 22));
    assert_eq!(s.state(0), State::AwaitingReply { server: 1 });
    assert_eq!(
        s.call_ok(1, Reply, [3, info(6, 1, None), 33, 0, 0, 0]),
        Ok(0)
    );
    assert_eq!(s.state(0), State::Ready);
    assert_eq!(s.incoming(0).unwrap().words[0], 33);
    // Nothing waits any more.
    assert_eq!(
        s.call_ok(1, NbRecv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Err(E::WouldBlock)
    );
}
