//! The fastpath must be invisible: the same call/reply_recv exchanges,
//! made once through the fastpath and once through the general dispatch,
//! leave every task, register and capability in the same state. A third
//! task stays ready at a priority of its own, so a less urgent caller is
//! answered sometimes with and sometimes without a peer as urgent as it.
//! Some calls are timed (`call_timed`, always the slow path) and some of
//! those run out before the answer, which the fastpath must decline
//! (their reply capability answers nothing) exactly as the slow path
//! refuses it.

use super::sim::{info, slots, Obj, Sim};
use crate::cspace::NodeId;
use crate::machine::UserRegs;
use conflux_abi::syscall::pack_timed;
use conflux_abi::Sysno;
use proptest::prelude::*;

/// Client (task 0), server (task 1) and a bystander (task 2) that never
/// blocks.
fn world(client_prio: u8, server_prio: u8, badge: u64, bystander_prio: u8) -> Sim {
    let objects = [Obj::Endpoint { server: 1 }];
    Sim::boot(
        &[client_prio, server_prio, bystander_prio],
        &objects,
        &[(0, 2, 0, 2, badge, 0), (1, 2, 0, 1, 0, 0)],
        false,
    )
}

/// Everything the two runs must agree on.
fn snapshot(s: &mut Sim) -> String {
    let mut out = String::new();
    for t in 0..2 {
        let task = s.k.task(t);
        out += &format!(
            "{t}: {:?} {:?} {:?} deadline {} epoch {}\n",
            task.state, task.ctx.result, task.ctx.incoming, task.deadline, task.epoch
        );
        for slot in 0..8 {
            out += &format!(
                "  {slot}: {:?}\n",
                s.k.caps.slot(NodeId::slot(t, slot).unwrap())
            );
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fast_and_slow_paths_agree(
        client_prio in 0u8..3, server_prio in 0u8..3, badge in 0u64..4, bystander_prio in 0u8..4,
        label in any::<u32>(), len in 0usize..6, words in any::<[u64; 4]>(),
        reply_label in any::<u32>(), reply_len in 0usize..6, rounds in 1usize..4,
        timed in any::<[bool; 3]>(), late in any::<[bool; 3]>(),
    ) {
        let (mut fast, mut slow) = (
            world(client_prio, server_prio, badge, bystander_prio),
            world(client_prio, server_prio, badge, bystander_prio),
        );
        let recv = [slots(2, 3, 0), 0, 0, 0, 0, 0];
        let call = [2, info(label, len.min(64), None), words[0], words[1], words[2], words[3]];
        let answer = [slots(2, 3, 0), info(reply_label, reply_len, None), words[3], words[2], 0, 0];
        prop_assert_eq!(fast.sys(1, Sysno::Recv, recv), slow.sys_slow(1, Sysno::Recv, recv));
        for round in 0..rounds {
            let (num, mut call) = (Sysno::Call, call);
            let num = match timed[round] {
                true => {
                    call[0] = pack_timed(2, 2).unwrap();
                    Sysno::CallTimed
                }
                false => num,
            };
            prop_assert_eq!(fast.sys(0, num, call), slow.sys_slow(0, num, call));
            if late[round] {
                for s in [&mut fast, &mut slow] {
                    s.k.tick();
                    s.k.tick();
                }
            }
            prop_assert_eq!(snapshot(&mut fast), snapshot(&mut slow));
            prop_assert_eq!(fast.sys(1, Sysno::ReplyRecv, answer), slow.sys_slow(1, Sysno::ReplyRecv, answer));
            prop_assert_eq!(snapshot(&mut fast), snapshot(&mut slow));
        }
    }
}

/// Whether the server's `reply_recv` to a caller less urgent than itself
/// takes the fastpath, with the bystander at `bystander_prio`.
fn fast_answer_to_less_urgent(bystander_prio: u8) -> Option<usize> {
    let mut s = world(3, 1, 0, bystander_prio);
    s.sys(1, Sysno::Recv, [slots(2, 3, 0), 0, 0, 0, 0, 0]);
    s.sys(0, Sysno::Call, [2, info(7, 1, None), 5, 0, 0, 0]);
    s.cpu.current = 1;
    let ctx = &mut s.k.task(1).ctx;
    *ctx = super::mock::Regs {
        num: Sysno::ReplyRecv as u64,
        args: [slots(2, 3, 0), info(0, 1, None), 9, 0, 0, 0],
        ..Default::default()
    };
    assert_eq!(ctx.sysno(), Sysno::ReplyRecv as u64);
    s.k.fast_reply_recv::<false>(1)
}

#[test]
fn a_less_urgent_caller_is_answered_by_the_fastpath_when_it_runs_next() {
    // Nothing else as urgent as the caller: it is the scheduler's choice.
    assert_eq!(fast_answer_to_less_urgent(4), Some(0));
    // A ready peer as urgent (round robin decides) or more urgent: the
    // slow path and the scheduler's search choose.
    assert_eq!(fast_answer_to_less_urgent(3), None);
    assert_eq!(fast_answer_to_less_urgent(2), None);
}
