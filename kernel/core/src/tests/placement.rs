//! Tasks on two CPUs: each CPU chooses among its own tasks, hand-offs stay
//! on one CPU, and a task made ready from another CPU has its CPU woken.

use super::sim::{info, slots, Obj, Sim};
use crate::kernel::{Decision, Next};
use crate::task::State;
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;

/// Task 0 (a client, CPU 0) calls task 1 (a server, CPU 1) and signals
/// notification 1, on which task 1 may also wait.
fn split() -> Sim {
    let objects = [Obj::Endpoint { server: 1 }, Obj::Notification];
    let grants = [
        (0, 2, 0, W, 9, 0),
        (0, 3, 1, W, 1, 0),
        (1, 2, 0, R, 0, 0),
        (1, 4, 1, R, 0, 0),
    ];
    let mut s = Sim::boot(&[1, 1], &objects, &grants, false);
    s.k.placement.place(1, 1);
    s
}

/// Runs task `t`'s syscall as CPU `cpu` would.
fn sys_on(s: &mut Sim, cpu: usize, t: usize, num: conflux_abi::Sysno, args: [u64; 6]) -> Next {
    s.cpu.index = cpu;
    s.sys(t, num, args)
}

#[test]
fn a_call_to_a_server_on_another_cpu_wakes_that_cpu_instead_of_switching() {
    let mut s = split();
    assert_eq!(
        sys_on(&mut s, 1, 1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]),
        Next::Block
    );
    s.k.placement.take_remote(1);
    assert_eq!(
        sys_on(&mut s, 0, 0, Call, [2, info(5, 1, None), 42, 0, 0, 0]),
        Next::Block,
        "no hand-off across CPUs: the caller's CPU chooses among its own tasks"
    );
    assert!(s.state(1).is_ready());
    assert_eq!(s.k.placement.take_remote(0), 1 << 1, "CPU 1 must be woken");
    assert_eq!(s.k.placement.take_remote(0), 0, "taken once");
    assert_eq!(s.incoming(1).unwrap().words[0], 42);
    // CPU 1 answers; the caller on CPU 0 becomes ready and CPU 0 is woken.
    assert_eq!(
        sys_on(
            &mut s,
            1,
            1,
            ReplyRecv,
            [slots(2, 3, 0), info(6, 1, None), 43, 0, 0, 0]
        ),
        Next::Block
    );
    assert!(s.state(0).is_ready());
    assert_eq!(s.k.placement.take_remote(1), 1 << 0);
    assert_eq!(s.incoming(0).unwrap().words[0], 43);
}

#[test]
fn a_signal_to_a_waiter_on_another_cpu_wakes_that_cpu() {
    let mut s = split();
    assert_eq!(sys_on(&mut s, 1, 1, Wait, [4, 0, 0, 0, 0, 0]), Next::Block);
    s.k.placement.take_remote(1);
    assert_eq!(
        sys_on(&mut s, 0, 0, Signal, [3, 0, 0, 0, 0, 0]),
        Next::Resume
    );
    assert!(s.state(1).is_ready());
    assert_eq!(s.k.placement.take_remote(0), 1 << 1);
}

#[test]
fn each_cpu_chooses_only_its_own_tasks() {
    let mut s = split();
    assert_eq!(s.k.pick_next(0, 1), Some(0));
    assert_eq!(s.k.pick_next(1, 0), Some(1));
    s.k.placement.place(1, 0);
    assert_eq!(s.k.pick_next(1, 0), None, "CPU 1 has no tasks now");
}

#[test]
fn a_more_urgent_task_on_another_cpu_does_not_preempt() {
    let objects = [Obj::Notification];
    let mut s = Sim::boot(&[3, 1], &objects, &[], false);
    s.k.placement.place(1, 1);
    assert!(
        !s.k.should_preempt(0),
        "task 1 is more urgent but runs on CPU 1"
    );
    s.k.placement.place(1, 0);
    assert!(s.k.should_preempt(0));
}

#[test]
fn a_cpu_with_nothing_to_run_idles_while_another_cpu_works_and_the_last_halts() {
    let mut s = split();
    s.cpu.index = 1;
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Run(1));
    // Task 0 calls the busy server: blocked, and CPU 0 has nothing else.
    assert_eq!(
        sys_on(&mut s, 0, 0, Call, [2, info(5, 0, None), 0, 0, 0, 0]),
        Next::Block
    );
    assert!(matches!(s.state(0), State::Sending { .. }));
    s.cpu.index = 0;
    assert_eq!(
        s.k.schedule(&mut s.cpu, Next::Block),
        Decision::Idle,
        "CPU 1 still runs a task that may answer: CPU 0 must not halt the machine"
    );
    // The server waits on a notification nothing signals: nothing can run.
    assert_eq!(sys_on(&mut s, 1, 1, Wait, [4, 0, 0, 0, 0, 0]), Next::Block);
    s.cpu.index = 1;
    assert_eq!(s.k.schedule(&mut s.cpu, Next::Block), Decision::Halt);
}

#[test]
fn on_one_cpu_no_wake_up_is_ever_remote() {
    let mut s = split();
    s.k.placement.place(1, 0);
    sys_on(&mut s, 0, 1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    assert_eq!(
        sys_on(&mut s, 0, 0, Call, [2, info(5, 0, None), 0, 0, 0, 0]),
        Next::Switch(1),
        "the one-CPU fastpath hand-off is unchanged"
    );
    assert_eq!(s.k.placement.take_remote(0), 0);
}

#[test]
fn the_image_places_tasks_and_a_missing_cpu_falls_back_to_cpu_0() {
    use crate::tests::mock::Mock;
    let mut k = crate::Kernel::<Mock>::new();
    k.placement.cpus = 2;
    k.place(0, "a", 1);
    k.place(1, "b", 5);
    assert_eq!(k.placement.cpu_of(0), 1);
    assert_eq!(
        k.placement.cpu_of(1),
        0,
        "CPU 5 does not run: CPU 0 instead"
    );
    assert_eq!(k.placement.mask[1], 1);
    assert_eq!(k.placement.mask[0] & 0b11, 0b10);
}

#[test]
fn tasks_are_spread_only_once_one_is_placed_off_cpu_0() {
    use crate::tests::mock::Mock;
    let mut k = crate::Kernel::<Mock>::new();
    k.placement.cpus = 2;
    k.place(0, "a", 0);
    k.place(1, "b", 5);
    assert!(
        !k.placement.spread(),
        "two CPUs but every task on CPU 0 (CPU 5 fell back): the one-CPU path applies"
    );
    k.place(2, "c", 1);
    assert!(k.placement.spread());
    k.place(2, "c", 0);
    assert!(
        k.placement.spread(),
        "placement happens at boot only; once spread, the SMP path stays (always correct)"
    );
}

#[test]
fn unspread_tasks_keep_no_wake_bits_and_spread_ones_do() {
    let objects = [Obj::Notification];
    let grants = [(0, 2, 0, W, 1, 0), (1, 4, 0, R, 0, 0)];
    let mut s = Sim::boot(&[1, 1], &objects, &grants, false);
    assert!(!s.k.placement.spread());
    s.k.placement.take_remote(1);
    assert_eq!(sys_on(&mut s, 0, 1, Wait, [4, 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(
        sys_on(&mut s, 0, 0, Signal, [2, 0, 0, 0, 0, 0]),
        Next::Resume
    );
    assert!(s.state(1).is_ready());
    assert_eq!(
        s.k.placement.wake, 0,
        "every task is on CPU 0, which chooses after every entry: no bit to keep"
    );
    s.k.placement.place(1, 1);
    assert_eq!(sys_on(&mut s, 1, 1, Wait, [4, 0, 0, 0, 0, 0]), Next::Block);
    assert_eq!(
        sys_on(&mut s, 0, 0, Signal, [2, 0, 0, 0, 0, 0]),
        Next::Resume
    );
    assert_eq!(s.k.placement.take_remote(0), 1 << 1);
}

#[test]
fn both_fastpath_forms_agree_when_every_task_is_on_one_cpu() {
    // The glue picks `syscall_on::<false>` for an unspread system; the
    // form with the same-CPU checks must reach the same answer there.
    for spread in [false, true] {
        let mut s = split();
        s.k.placement.place(1, 0);
        s.cpu.index = 0;
        sys_on(&mut s, 0, 1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
        s.cpu.current = 0;
        s.k.task(0).ctx = super::mock::Regs {
            num: Call as u64,
            args: [2, info(5, 1, None), 42, 0, 0, 0],
            ..Default::default()
        };
        let got = if spread {
            s.k.fast_call::<true>(0)
        } else {
            s.k.fast_call::<false>(0)
        };
        assert_eq!(got, Some(1), "spread form: {spread}");
        assert_eq!(s.incoming(1).unwrap().words[0], 42);
    }
}

#[test]
fn the_spread_fastpath_refuses_a_partner_on_another_cpu() {
    let mut s = split();
    sys_on(&mut s, 1, 1, Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    s.cpu.current = 0;
    s.k.task(0).ctx = super::mock::Regs {
        num: Call as u64,
        args: [2, info(5, 1, None), 42, 0, 0, 0],
        ..Default::default()
    };
    assert_eq!(
        s.k.fast_call::<true>(0),
        None,
        "the server runs on CPU 1: the slow path wakes it there"
    );
}

/// Line 11's IRQ object, signalling notification 0: task 0 (CPU 0) may
/// only read it, task 1 (CPU 1) acknowledges it; line 5 has no holder.
fn irq_system() -> Sim {
    let objects = [
        Obj::Notification,
        Obj::Irq {
            line: 11,
            notification: 0,
            bit: 0,
        },
        Obj::Irq {
            line: 5,
            notification: 0,
            bit: 1,
        },
    ];
    let grants = [(0, 2, 1, R, 0, 0), (1, 2, 1, R | W, 0, 0)];
    let mut s = Sim::boot(&[1, 1], &objects, &grants, false);
    s.k.placement.place(1, 1);
    s
}

#[test]
fn an_interrupt_goes_to_the_cpu_of_the_task_that_acknowledges_it() {
    let s = irq_system();
    assert_eq!(
        s.k.irq_home(11),
        Some((1, 1)),
        "the driver (WRITE) is task 1 on CPU 1"
    );
}

#[test]
fn a_line_nobody_acknowledges_or_nobody_has_stays_on_cpu_0() {
    let s = irq_system();
    assert_eq!(s.k.irq_home(5), None, "an IRQ object no task holds");
    assert_eq!(s.k.irq_home(9), None, "a line with no IRQ object");
}

#[test]
fn a_reader_alone_does_not_move_the_line() {
    let objects = [
        Obj::Notification,
        Obj::Irq {
            line: 11,
            notification: 0,
            bit: 0,
        },
    ];
    let mut s = Sim::boot(&[1, 1], &objects, &[(1, 2, 1, R, 0, 0)], false);
    s.k.placement.place(1, 1);
    assert_eq!(
        s.k.irq_home(11),
        None,
        "READ cannot acknowledge: not the driver"
    );
}
