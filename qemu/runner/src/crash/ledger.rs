//! What the runner knows is durable: every `DURABLE` line a round printed
//! before it was killed (see `conflux_abi::durable`), and the check of the
//! next round's `FOUND` lines against it. A record reported durable and
//! missing after the reboot fails the test, whatever the guest says about
//! itself.

use conflux_abi::durable::DurableLine;
use std::collections::BTreeMap;

/// The highest durable record of each file, and the round that said so.
#[derive(Default)]
pub struct Ledger {
    durable: BTreeMap<u32, (u64, u32)>,
}

/// The protocol lines in `output` printed by one of `tasks`: whole lines
/// only (a line cut by the kill is not trusted).
pub fn lines(output: &str, tasks: &[&str]) -> Vec<DurableLine> {
    crate::qemu::whole_lines(output)
        .lines()
        .filter_map(|line| {
            let (who, rest) = line.split_once(": ")?;
            tasks.contains(&who).then(|| DurableLine::parse(rest))?
        })
        .collect()
}

impl Ledger {
    /// Checks what round `round` found on the disk against every record
    /// reported durable before it; one message per lost or unreported file.
    pub fn check(&self, round: u32, lines: &[DurableLine]) -> Vec<String> {
        let found = |file: u32| {
            lines.iter().find_map(|l| match *l {
                DurableLine::Found { file: f, seq } if f == file => Some(seq),
                _ => None,
            })
        };
        let mut problems = Vec::new();
        for (&file, &(seq, said)) in &self.durable {
            match found(file) {
                Some(have) if have >= seq => {}
                Some(have) => problems.push(format!(
                    "round {round}: log file {file} holds records 1..={have} after the reboot, \
                     but record {seq} was reported durable (fsynced) in round {said}: a durable \
                     record was lost"
                )),
                None => problems.push(format!(
                    "round {round}: the writer did not report log file {file} (FOUND line), \
                     which had record {seq} durable in round {said}; did it verify the disk?"
                )),
            }
        }
        problems
    }

    /// Notes the `DURABLE` lines of round `round`.
    pub fn note(&mut self, round: u32, lines: &[DurableLine]) {
        for line in lines {
            if let DurableLine::Durable { file, seq } = *line {
                let entry = self.durable.entry(file).or_insert((0, round));
                if seq > entry.0 {
                    *entry = (seq, round);
                }
            }
        }
    }

    /// Records known durable, over all files.
    pub fn records(&self) -> u64 {
        self.durable.values().map(|(seq, _)| seq).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASKS: &[&str] = &["writer"];

    #[test]
    fn only_whole_lines_of_known_tasks_count() {
        let output = "writer: DURABLE 0 3\nother: DURABLE 1 9\nconflux: FOUND 0 1\n\
                      writer: FOUND 2 5\nwriter: DURABLE 0 4";
        assert_eq!(
            lines(output, TASKS),
            vec![
                DurableLine::Durable { file: 0, seq: 3 },
                DurableLine::Found { file: 2, seq: 5 },
            ]
        );
    }

    #[test]
    fn a_lost_durable_record_fails_and_names_the_round() {
        let mut ledger = Ledger::default();
        ledger.note(
            1,
            &lines("writer: DURABLE 0 3\nwriter: DURABLE 0 7\n", TASKS),
        );
        ledger.note(2, &lines("writer: DURABLE 1 2\n", TASKS));
        let ok = lines("writer: FOUND 0 9\nwriter: FOUND 1 2\n", TASKS);
        assert_eq!(ledger.check(3, &ok), Vec::<String>::new());
        let lost = lines("writer: FOUND 0 6\nwriter: FOUND 1 2\n", TASKS);
        assert_eq!(
            ledger.check(3, &lost),
            vec![
                "round 3: log file 0 holds records 1..=6 after the reboot, but record 7 was \
                  reported durable (fsynced) in round 1: a durable record was lost"
            ]
        );
        let missing = lines("writer: FOUND 0 7\n", TASKS);
        assert_eq!(ledger.check(3, &missing).len(), 1, "file 1 not reported");
        assert_eq!(ledger.records(), 9);
    }
}
