//! Bound notifications: a signal ends the bound task's receive with a
//! kernel-made message; binding rules and errors; the binding goes with
//! the capability it was made through and with the task.

use super::sim::{info, slots, Obj, Sim, E};
use crate::kernel::{Decision, Next};
use crate::task::State;
use conflux_abi::ipc::{Info, NOTIFY_LABEL};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Client t0 calls server t1 on endpoint 0; notification 1 is t1's (slot
/// 4, READ|WRITE; slot 6 WRITE only), signalled by t0 (slot 3, badge 4)
/// and held by t2 (slot 2); notification 2 is t1's spare (slot 5). t2
/// can also receive on the endpoint (slot 3).
fn system() -> Sim {
    let objects = [
        Obj::Endpoint { server: 1 },
        Obj::Notification,
        Obj::Notification,
    ];
    let grants = [
        (0, 2, 0, W, 9, 0),
        (0, 3, 1, W, 4, 0),
        (1, 2, 0, R, 0, 0),
        (1, 4, 1, R | W, 0, 0),
        (1, 5, 2, R | W, 0, 0),
        (1, 6, 1, W, 0, 0),
        (2, 2, 1, R | W, 0, 0),
        (2, 3, 0, R, 0, 0),
    ];
    Sim::boot(&[1, 1, 1], &objects, &grants, false)
}

fn bind(s: &mut Sim, t: usize, ep: u64, ntfn: u64) -> Result<u64, E> {
    s.call_ok(t, NtfnBind, [ep, ntfn, 0, 0, 0, 0])
}

/// The notification message task `t` received: its badge (the word).
fn notified(s: &mut Sim, t: usize) -> Option<u64> {
    let m = s.incoming(t)?;
    let i = Info::decode(m.info);
    (i.from_kernel && i.label == NOTIFY_LABEL && i.len == 0).then_some(m.badge)
}

#[test]
fn a_signal_ends_a_blocked_receive_with_the_word_and_clears_it() {
    let mut s = system();
    assert_eq!(bind(&mut s, 1, 2, 4), Ok(0));
    assert_eq!(s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(s.call_ok(0, Signal, [3, 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(s.state(1), State::Ready);
    assert_eq!(s.result(1), Some(Ok(0)));
    assert_eq!(notified(&mut s, 1), Some(4));
    assert_eq!(s.call_ok(1, Poll, [4, 0, 0, 0, 0, 0]), Ok(0), "cleared");
}

#[test]
fn a_pending_word_returns_at_once_before_a_waiting_caller_who_comes_next() {
    let mut s = system();
    bind(&mut s, 1, 2, 4).unwrap();
    assert_eq!(s.call_ok(2, Signal, [2, 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(
        s.sys(0, Call, [2, info(7, 1, None), 70, 0, 0, 0]),
        Next::Block
    );
    assert_eq!(
        s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Next::Resume
    );
    assert_eq!(notified(&mut s, 1), Some(1));
    assert_eq!(s.state(1), State::Ready, "never blocked");
    s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    let m = s.incoming(1).unwrap();
    assert_eq!(
        (Info::decode(m.info).label, m.badge, m.words[0]),
        (7, 9, 70)
    );
    assert_eq!(notified(&mut s, 1), None);
}

#[test]
fn reply_recv_answers_then_returns_a_signal_that_came_meanwhile() {
    let mut s = system();
    bind(&mut s, 1, 2, 4).unwrap();
    s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    assert_eq!(
        s.sys(0, Call, [2, info(7, 0, None), 0, 0, 0, 0]),
        Next::Switch(1)
    );
    s.call_ok(2, Signal, [2, 0, 0, 0, 0, 0]).unwrap(); // the server is busy
    assert_eq!(
        s.sys(
            1,
            ReplyRecv,
            [slots(2, 3, 0), info(8, 1, None), 80, 0, 0, 0]
        ),
        Next::Resume,
        "no fastpath hand-off: the signal is returned at once"
    );
    assert_eq!(
        s.incoming(0).unwrap().words[0],
        80,
        "the caller was answered"
    );
    assert_eq!(s.state(0), State::Ready);
    assert_eq!(notified(&mut s, 1), Some(1));
}

#[test]
fn a_non_blocking_receive_returns_the_signal_or_would_block() {
    let mut s = system();
    bind(&mut s, 1, 2, 4).unwrap();
    assert_eq!(
        s.call_ok(1, NbRecv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Err(E::WouldBlock)
    );
    s.call_ok(0, Signal, [3, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(s.call_ok(1, NbRecv, [slots(2, 3, 0), 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(notified(&mut s, 1), Some(4));
}

#[test]
fn binding_errors_are_specific() {
    let mut s = system();
    assert_eq!(bind(&mut s, 1, 2, 0), Err(E::NotBound));
    assert_eq!(bind(&mut s, 1, 2, 6), Err(E::MissingRight));
    assert_eq!(bind(&mut s, 1, 2, 2), Err(E::WrongKind));
    assert_eq!(bind(&mut s, 1, 4, 4), Err(E::WrongKind));
    assert_eq!(bind(&mut s, 1, 2, 9), Err(E::EmptySlot));
    assert_eq!(bind(&mut s, 1, 2, 64), Err(E::InvalidSlot));
    assert_eq!(
        bind(&mut s, 0, 2, 3),
        Err(E::MissingRight),
        "no READ on the endpoint"
    );
    assert_eq!(bind(&mut s, 1, 2, 4), Ok(0));
    assert_eq!(bind(&mut s, 1, 2, 4), Ok(0), "the same binding again");
    assert_eq!(bind(&mut s, 1, 2, 5), Err(E::TaskBound));
    assert_eq!(bind(&mut s, 2, 3, 2), Err(E::NotificationBound));
    assert_eq!(
        s.call_ok(2, Wait, [2, 0, 0, 0, 0, 0]),
        Err(E::NotificationBound)
    );
    assert_eq!(
        s.call_ok(2, Poll, [2, 0, 0, 0, 0, 0]),
        Err(E::NotificationBound)
    );
    assert_eq!(bind(&mut s, 1, 0, 0), Ok(0), "slot 0 unbinds");
    assert_eq!(bind(&mut s, 1, 2, 0), Err(E::NotBound));
    assert_eq!(s.sys(2, Wait, [2, 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(bind(&mut s, 1, 2, 4), Err(E::Busy), "t2 waits on it");
    assert_eq!(s.state(1), State::Ready);
}

#[test]
fn deleting_the_capability_unbinds() {
    let mut s = system();
    bind(&mut s, 1, 2, 4).unwrap();
    assert_eq!(s.call_ok(1, CapDelete, [4, 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(s.k.task(1).bound, None);
    s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    s.call_ok(2, Signal, [2, 0, 0, 0, 0, 0]).unwrap();
    assert!(matches!(s.state(1), State::Receiving { .. }));
    assert_eq!(
        s.call_ok(2, Poll, [2, 0, 0, 0, 0, 0]),
        Ok(1),
        "t2 may take it now"
    );
}

#[test]
fn revoking_the_capability_unbinds_even_while_receiving() {
    let mut s = system();
    assert_eq!(s.call_ok(1, CapCopy, [4, 7, 0, 0, 0, 0]), Ok(0));
    bind(&mut s, 1, 2, 7).unwrap();
    assert_eq!(s.call_ok(1, CapRevoke, [4, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(s.k.task(1).bound, None);
    assert_eq!(bind(&mut s, 2, 3, 2), Ok(0), "free to bind elsewhere");
    s.sys(1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    s.call_ok(0, Signal, [3, 0, 0, 0, 0, 0]).unwrap();
    assert!(matches!(s.state(1), State::Receiving { .. }));
}

#[test]
fn an_ending_task_unbinds() {
    let mut s = system();
    bind(&mut s, 1, 2, 4).unwrap();
    s.sys(1, Exit, [0; 6]);
    assert_eq!(s.k.task(1).bound, None);
    assert_eq!(bind(&mut s, 2, 3, 2), Ok(0));
}

#[test]
fn a_receiver_bound_to_an_interrupt_fed_notification_idles_the_cpu() {
    let objects = [
        Obj::Endpoint { server: 0 },
        Obj::Notification,
        Obj::Irq {
            line: 3,
            notification: 1,
            bit: 2,
        },
    ];
    let grants = [(0, 2, 0, R, 0, 0), (0, 3, 1, R, 0, 0)];
    let mut s = Sim::boot(&[1], &objects, &grants, false);
    bind(&mut s, 0, 2, 3).unwrap();
    assert_eq!(s.sys(0, Recv, [slots(2, 4, 0), 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Idle);
    s.k.interrupt(3);
    assert_eq!(notified(&mut s, 0), Some(1 << 2));
    assert_eq!(s.state(0), State::Ready);
}
