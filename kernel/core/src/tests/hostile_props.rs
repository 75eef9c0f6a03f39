//! A hostile workload on the host: random syscalls with small, often
//! valid arguments from whichever tasks are ready, against a world with
//! every kind of object. Nothing may panic, and after every call the
//! bookkeeping must agree with the tasks (checked by `Sim::sys`), every
//! parent link must name a live capability, and every shared mapping in
//! a task's space must be recorded by one of its capabilities (full or a
//! lapsed lease), so none can outlive its record.

use super::sim::{Obj, Sim};
use crate::cap::{Parent, Slot};
use crate::cspace::NodeId;
use conflux_abi::layout::REGION_BASE;
use conflux_abi::Sysno;
use proptest::prelude::*;

fn world() -> Sim {
    let objects = [
        Obj::Endpoint { server: 1 },
        Obj::Endpoint { server: 2 },
        Obj::Notification,
        Obj::Region { size: 8192 },
        Obj::IoPorts {
            base: 0x2f8,
            count: 8,
        },
        Obj::Irq {
            line: 3,
            notification: 2,
            bit: 1,
        },
    ];
    let mut grants = Vec::new();
    for t in 0..3u8 {
        grants.extend([
            (t, 1, 0, 7, t as u64 + 1, 0),
            (t, 2, 1, 7, 0, 0),
            (t, 3, 2, 3, 0, 0),
            (t, 4, 3, 11, 0, REGION_BASE),
            (t, 5, 4, 3, 0, 0),
            (t, 6, 5, 3, 0, 0),
        ]);
    }
    Sim::boot(&[1, 1, 2], &objects, &grants, false)
}

fn arg() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..12,
        Just(REGION_BASE),
        Just(REGION_BASE + 0x4000),
        any::<u64>(),
        (0u64..8).prop_map(|l| l << 32 | 7),
        // Info words that attach (and lend) a capability.
        (0u64..8, any::<bool>()).prop_map(|(s, lend)| 1 << 40 | (lend as u64) << 43 | s << 48 | 7),
        // A timed call's slot and deadline (`pack_timed`), a few ticks off.
        (0u64..8, 1u64..4).prop_map(|(s, t)| s | t << 8)
    ]
}

/// (task, syscall, arguments, whether a tick of the clock follows).
fn call() -> impl Strategy<Value = (usize, u64, [u64; 6], bool)> {
    let nums = prop::sample::select(
        Sysno::ALL
            .iter()
            .copied()
            .filter(|s| ![Sysno::Exit, Sysno::Panic, Sysno::DebugWrite].contains(s))
            .collect::<Vec<_>>(),
    );
    (0usize..3, nums, prop::array::uniform6(arg()), any::<bool>())
        .prop_map(|(t, n, a, tick)| (t, n as u64, a, tick))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_syscalls_keep_every_invariant(calls in prop::collection::vec(call(), 1..120)) {
        let mut s = world();
        for (t, num, args, tick) in calls {
            if tick {
                s.k.tick(); // timers fire and timed calls give up between calls
                s.check_counts();
            }
            if !s.k.task(t).state.is_ready() {
                continue;
            }
            let num = Sysno::from_raw(num).unwrap();
            s.sys(t, num, args);
            for task in 0..3 {
                let mut recorded = Vec::new();
                for slot in 0..64 {
                    let n = NodeId::slot(task, slot).unwrap();
                    if let Ok(c) = s.k.caps.get(n) {
                        if let Parent::Node(p) = c.parent {
                            prop_assert!(s.k.caps.get(p).is_ok(), "{n:?}'s parent {p:?} is gone");
                        }
                    }
                    if let Slot::Full(c) | Slot::Lapsed(c) = s.k.caps.slot(n) {
                        if c.mapped_at != 0 {
                            recorded.push(c.mapped_at);
                        }
                    }
                }
                if let Some(space) = s.k.task(task).space.as_ref() {
                    let mut mapped: Vec<u64> = space.shared.iter().map(|m| m.0).collect();
                    mapped.sort_unstable();
                    recorded.sort_unstable();
                    prop_assert_eq!(mapped, recorded, "task {}'s mappings and records", task);
                }
            }
        }
    }
}
