//! Property tests of the capability space: random derivations, deletions,
//! moves and revocations over three tasks, with the tree's invariants
//! checked after every step.

use crate::cap::{Cap, ObjRef, Parent, Slot};
use crate::cspace::{CapSpace, NodeId};
use conflux_abi::cap::{rights, ObjectKind};
use proptest::prelude::*;

const TASKS: usize = 3;
const SLOTS: u64 = 6;

#[derive(Clone, Debug)]
enum Op {
    Derive {
        src: (usize, u64),
        dst: (usize, u64),
        mask: u8,
        badge: u64,
    },
    Remove((usize, u64)),
    Move {
        from: (usize, u64),
        to: (usize, u64),
    },
    Revoke((usize, u64)),
}

fn node() -> impl Strategy<Value = (usize, u64)> {
    (0..TASKS, 0..SLOTS)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (node(), node(), 0u8..16, prop_oneof![Just(0u64), 1u64..4])
            .prop_map(|(src, dst, mask, badge)| Op::Derive { src, dst, mask, badge }),
        2 => node().prop_map(Op::Remove),
        1 => (node(), node()).prop_map(|(from, to)| Op::Move { from, to }),
        1 => node().prop_map(Op::Revoke),
    ]
}

fn n((t, s): (usize, u64)) -> NodeId {
    NodeId::slot(t, s).unwrap()
}

fn all() -> impl Iterator<Item = NodeId> {
    (0..TASKS).flat_map(|t| (0..SLOTS).map(move |s| n((t, s))))
}

/// Two roots per task: a notification (badge 0) and an endpoint (badge 0).
fn initial() -> CapSpace {
    let mut cs = CapSpace::new();
    cs.set_tasks(TASKS);
    for t in 0..TASKS {
        for (slot, kind) in [(0u64, ObjectKind::Notification), (1, ObjectKind::Endpoint)] {
            let cap = Cap {
                origin: Some((t as u64 * 2 + slot) as u16),
                ..Cap::new(
                    ObjRef::Object(kind, slot as u16),
                    rights::READ | rights::WRITE | rights::GRANT,
                    0,
                )
            };
            cs.insert(n((t, slot)), cap).unwrap();
        }
    }
    cs
}

/// Every parent link names a full node whose rights and badge bound the child's.
fn check_tree(cs: &CapSpace) -> Result<(), TestCaseError> {
    for id in all() {
        let Ok(c) = cs.get(id) else { continue };
        if let Parent::Node(p) = c.parent {
            let pc = cs.get(p);
            prop_assert!(pc.is_ok(), "{id:?}'s parent {p:?} is not a live capability");
            let pc = pc.unwrap();
            prop_assert_eq!(
                c.rights & !pc.rights,
                0,
                "rights grew from {:?} to {:?}",
                p,
                id
            );
            prop_assert_eq!(c.obj, pc.obj, "a child names its parent's object");
            if pc.badge != 0 {
                prop_assert_eq!(c.badge, pc.badge, "a badge was overwritten");
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_tree_stays_exact_and_revoke_removes_exactly_the_descendants(ops in prop::collection::vec(op(), 1..40)) {
        let mut cs = initial();
        for op in ops {
            match op {
                Op::Derive { src, dst, mask, badge } => {
                    if let Ok(c) = cs.derive(n(src), mask, badge) {
                        let _ = cs.insert(n(dst), c);
                    }
                }
                Op::Remove(x) => { let _ = cs.remove(n(x)); }
                Op::Move { from, to } => { let _ = cs.move_to(n(from), n(to)); }
                Op::Revoke(root) => {
                    let before: Vec<(NodeId, Slot, bool)> = all()
                        .map(|id| (id, *cs.slot(id), cs.descends_from(id, n(root))))
                        .collect();
                    let expect = before.iter().filter(|(_, s, d)| *d && matches!(s, Slot::Full(_))).count();
                    if let Ok(count) = cs.revoke(n(root), |_, _| {}) {
                        prop_assert_eq!(count as usize, expect);
                        for (id, slot, doomed) in before {
                            if doomed && matches!(slot, Slot::Full(_)) {
                                prop_assert_eq!(*cs.slot(id), Slot::Revoked);
                            } else {
                                prop_assert_eq!(*cs.slot(id), slot, "revoke touched a non-descendant");
                            }
                        }
                    }
                }
            }
            check_tree(&cs)?;
        }
    }

    #[test]
    fn descendants_stay_revocable_however_intermediates_go(depth in 1usize..6, cut in prop::collection::vec(any::<bool>(), 6)) {
        // A chain 0 → 1 → ... → depth in task 0, then some links deleted.
        let mut cs = initial();
        let chain: Vec<NodeId> = (0..=depth).map(|i| NodeId::slot(1, i as u64 + 2).unwrap()).collect();
        let first = cs.derive(n((0, 0)), rights::ALL, 0).unwrap();
        cs.insert(chain[0], first).unwrap();
        for w in chain.windows(2) {
            let c = cs.derive(w[0], rights::ALL, 0).unwrap();
            cs.insert(w[1], c).unwrap();
        }
        for (i, id) in chain.iter().enumerate().take(depth) {
            if cut[i] { cs.remove(*id).unwrap(); }
        }
        let last = *chain.last().unwrap();
        prop_assert!(cs.descends_from(last, n((0, 0))));
        cs.revoke(n((0, 0)), |_, _| {}).unwrap();
        prop_assert_eq!(*cs.slot(last), Slot::Revoked);
    }
}

#[test]
fn an_image_root_adopts_the_children_its_previous_capability_left() {
    let mut cs = initial();
    let child = cs.derive(n((0, 0)), rights::READ, 0).unwrap();
    cs.insert(n((2, 4)), child).unwrap();
    let root = cs.remove(n((0, 0))).unwrap();
    assert_eq!(cs.get(n((2, 4))).unwrap().parent, Parent::Image(0));
    cs.insert(n((0, 0)), root).unwrap();
    assert!(cs.descends_from(n((2, 4)), n((0, 0))));
}

#[test]
fn replies_cannot_be_derived_and_rights_masks_are_checked() {
    let mut cs = initial();
    let reply = Cap::new(
        ObjRef::Reply {
            task: 1,
            gen: 0,
            epoch: 0,
        },
        rights::WRITE,
        0,
    );
    cs.insert(n((0, 5)), reply).unwrap();
    assert_eq!(
        cs.derive(n((0, 5)), rights::ALL, 0),
        Err(conflux_abi::SysError::WrongKind)
    );
    assert_eq!(
        cs.derive(n((0, 0)), 0x10, 0),
        Err(conflux_abi::SysError::InvalidArgument)
    );
}

/// The last slot (`CAP_SLOTS - 1`) of the last task is a slot of its own,
/// apart from the task's in-flight node and from the next task's slots;
/// one past either limit is `InvalidSlot`, whatever syscall names it.
#[test]
fn the_last_slot_of_the_last_task_is_valid_and_one_past_is_invalid_slot() {
    use conflux_abi::cap::CAP_SLOTS;
    use conflux_abi::SysError;
    use conflux_bootimg::MAX_TASKS;
    let last = NodeId::slot(MAX_TASKS - 1, CAP_SLOTS as u64 - 1).unwrap();
    assert_eq!(last.task(), MAX_TASKS - 1);
    assert_eq!(last.slot_number(), Some(CAP_SLOTS - 1));
    assert_ne!(last, NodeId::in_flight(MAX_TASKS - 1));
    let past = NodeId::slot(MAX_TASKS - 1, CAP_SLOTS as u64);
    assert_eq!(past, Err(SysError::InvalidSlot));
    assert_eq!(NodeId::slot(MAX_TASKS, 0), Err(SysError::InvalidSlot));
}
