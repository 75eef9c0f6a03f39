//! The console capability: only the holder of COM1's IRQ (line 4) with
//! READ reads typed bytes and the task table; everyone else is refused.

use super::mock::TYPED;
use super::sim::{Obj, Sim, E};
use conflux_abi::task_info::{RunState, TaskInfo};
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Task 0 holds line 4 with READ in slot 2 and without it in slot 3; task
/// 1 holds another line (COM2's) with READ in slot 2.
fn console_system() -> Sim {
    let objects = [
        Obj::Notification,
        Obj::Irq {
            line: 4,
            notification: 0,
            bit: 0,
        },
        Obj::Irq {
            line: 3,
            notification: 0,
            bit: 1,
        },
    ];
    Sim::boot(
        &[1, 2],
        &objects,
        &[
            (0, 2, 1, R | W, 0, 0),
            (0, 3, 1, W, 0, 0),
            (1, 2, 2, R, 0, 0),
        ],
        false,
    )
}

#[test]
fn the_holder_reads_typed_bytes_eight_at_a_time() {
    let mut s = console_system();
    TYPED.with(|t| t.borrow_mut().extend_from_slice(b"ls -l /etc\n"));
    assert_eq!(s.call_ok(0, ConsoleRead, [2, 0, 0, 0, 0, 0]), Ok(8));
    assert_eq!(s.k.task(0).ctx.extra.to_le_bytes(), *b"ls -l /e");
    assert_eq!(s.call_ok(0, ConsoleRead, [2, 0, 0, 0, 0, 0]), Ok(3));
    assert_eq!(&s.k.task(0).ctx.extra.to_le_bytes()[..3], b"tc\n");
    assert_eq!(s.call_ok(0, ConsoleRead, [2, 0, 0, 0, 0, 0]), Ok(0));
}

#[test]
fn others_are_refused_and_take_nothing() {
    let mut s = console_system();
    TYPED.with(|t| t.borrow_mut().extend_from_slice(b"secret"));
    assert_eq!(
        s.call_ok(0, ConsoleRead, [3, 0, 0, 0, 0, 0]),
        Err(E::MissingRight)
    );
    assert_eq!(
        s.call_ok(1, ConsoleRead, [2, 0, 0, 0, 0, 0]),
        Err(E::InvalidArgument),
        "another line's IRQ is not the console"
    );
    assert_eq!(
        s.call_ok(1, TaskInfo, [2, 0, 0, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert!(s.call_ok(1, ConsoleRead, [9, 0, 0, 0, 0, 0]).is_err());
    assert_eq!(s.call_ok(0, ConsoleRead, [2, 0, 0, 0, 0, 0]), Ok(6));
}

#[test]
fn task_info_reports_each_task_and_refuses_indices_past_the_table() {
    let mut s = console_system();
    let word = s.call_ok(0, TaskInfo, [2, 1, 0, 0, 0, 0]).unwrap();
    assert_eq!(
        TaskInfo::unpack(word),
        Some(TaskInfo {
            state: RunState::Ready,
            priority: 2,
            restarts: 0
        })
    );
    s.sys(1, Exit, [0; 6]);
    let word = s.call_ok(0, TaskInfo, [2, 1, 0, 0, 0, 0]).unwrap();
    assert_eq!(
        TaskInfo::unpack(word).map(|i| i.state),
        Some(RunState::Exited)
    );
    assert_eq!(
        s.call_ok(0, TaskInfo, [2, 2, 0, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
    assert_eq!(
        s.call_ok(0, TaskInfo, [2, u64::MAX, 0, 0, 0, 0]),
        Err(E::InvalidArgument)
    );
}
