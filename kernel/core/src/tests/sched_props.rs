//! Property tests of the scheduler's choice: always a most urgent ready
//! task, round robin among equals; and of `alone_next`, the fastpath's
//! shortcut through the ready bitmap, against its definition.

use super::sim::Sim;
use crate::task::State;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn the_most_urgent_ready_task_runs(tasks in prop::collection::vec((0u8..4, any::<bool>()), 1..6), from in 0usize..6) {
        let prios: Vec<u8> = tasks.iter().map(|t| t.0).collect();
        let mut s = Sim::boot(&prios, &[], &[], false);
        for (i, (_, ready)) in tasks.iter().enumerate() {
            if !ready {
                s.k.set_state(i, State::Exited);
            }
        }
        let from = from % tasks.len();
        let best = tasks.iter().filter(|t| t.1).map(|t| t.0).min();
        match s.k.pick_next(0, from) {
            None => prop_assert!(best.is_none()),
            Some(i) => {
                prop_assert!(tasks[i].1, "picked a task that is not ready");
                prop_assert_eq!(Some(tasks[i].0), best);
                // Round robin: no equally urgent ready task sits between `from` and `i`.
                let n = tasks.len();
                let gap = (i + n - from - 1) % n;
                for k in 1..=gap {
                    let j = (from + k) % n;
                    prop_assert!(!(tasks[j].1 && Some(tasks[j].0) == best), "skipped task {} for {}", j, i);
                }
            }
        }
    }

    #[test]
    fn alone_next_agrees_with_a_scan(tasks in prop::collection::vec((0u8..4, any::<bool>()), 2..7), t in 0usize..6, leaving in 0usize..6) {
        let prios: Vec<u8> = tasks.iter().map(|t| t.0).collect();
        let mut s = Sim::boot(&prios, &[], &[], false);
        for (i, (_, ready)) in tasks.iter().enumerate() {
            if !ready {
                s.k.set_state(i, State::Exited);
            }
        }
        s.check_counts();
        let (t, leaving) = (t % tasks.len(), leaving % tasks.len());
        let want = !tasks
            .iter()
            .enumerate()
            .any(|(i, x)| i != t && i != leaving && x.1 && x.0 <= tasks[t].0);
        prop_assert_eq!(s.k.alone_next(t, leaving), want);
    }
}
