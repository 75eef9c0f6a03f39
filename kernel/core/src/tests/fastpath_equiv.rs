//! The fastpath must be invisible: the same call/reply_recv exchanges,
//! made once through the fastpath and once through the general dispatch,
//! leave every task, register and capability in the same state.

use super::sim::{info, slots, Obj, Sim};
use crate::cspace::NodeId;
use conflux_abi::Sysno;
use proptest::prelude::*;

fn world(client_prio: u8, server_prio: u8, badge: u64) -> Sim {
    let objects = [Obj::Endpoint { server: 1 }];
    Sim::boot(
        &[client_prio, server_prio],
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
            "{t}: {:?} {:?} {:?}\n",
            task.state, task.ctx.result, task.ctx.incoming
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
        client_prio in 0u8..3, server_prio in 0u8..3, badge in 0u64..4,
        label in any::<u32>(), len in 0usize..6, words in any::<[u64; 4]>(),
        reply_label in any::<u32>(), reply_len in 0usize..6, rounds in 1usize..4,
    ) {
        let (mut fast, mut slow) = (world(client_prio, server_prio, badge), world(client_prio, server_prio, badge));
        let recv = [slots(2, 3, 0), 0, 0, 0, 0, 0];
        let call = [2, info(label, len.min(64), None), words[0], words[1], words[2], words[3]];
        let answer = [slots(2, 3, 0), info(reply_label, reply_len, None), words[3], words[2], 0, 0];
        prop_assert_eq!(fast.sys(1, Sysno::Recv, recv), slow.sys_slow(1, Sysno::Recv, recv));
        for _ in 0..rounds {
            prop_assert_eq!(fast.sys(0, Sysno::Call, call), slow.sys_slow(0, Sysno::Call, call));
            prop_assert_eq!(snapshot(&mut fast), snapshot(&mut slow));
            prop_assert_eq!(fast.sys(1, Sysno::ReplyRecv, answer), slow.sys_slow(1, Sysno::ReplyRecv, answer));
            prop_assert_eq!(snapshot(&mut fast), snapshot(&mut slow));
        }
    }
}
