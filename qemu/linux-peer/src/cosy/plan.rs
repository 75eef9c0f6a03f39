//! The Cosy plan: the same file Conflux's `cargo make bench cosy` runs
//! (`qemu/cosybench/bench/plan`, on the cosybench disk at `/plan`), so
//! both sides run the same workloads with the same parameters and rounds.
//! A line is `WORKLOAD ROUNDS PARAM...` (as `apps/bench/cosybench/src/plan.rs`
//! reads it); `#` starts a comment.

/// A workload of the Cosy papers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    NullLoop,
    Copy,
    Grep,
    Dbsim,
    LsL,
    Bonnie,
}

impl Workload {
    const ALL: [Workload; 6] = [
        Workload::NullLoop,
        Workload::Copy,
        Workload::Grep,
        Workload::Dbsim,
        Workload::LsL,
        Workload::Bonnie,
    ];

    /// The name in plans and records (`bench`).
    pub fn name(self) -> &'static str {
        match self {
            Workload::NullLoop => "null-loop",
            Workload::Copy => "copy",
            Workload::Grep => "grep",
            Workload::Dbsim => "dbsim",
            Workload::LsL => "ls-l",
            Workload::Bonnie => "bonnie",
        }
    }
}

/// One plan line.
#[derive(Debug, PartialEq, Eq)]
pub struct Step {
    pub workload: Workload,
    /// Timed rounds (one untimed warm-up round comes first).
    pub rounds: u32,
    pub params: Vec<String>,
}

/// The steps of plan text `text`, or the first line that is not one.
pub fn parse(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| format!("cosy plan line {}: {why}: `{line}`", i + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, rounds, params @ ..] = words.as_slice() else {
            return Err(bad("expected `WORKLOAD ROUNDS PARAM...`"));
        };
        let workload = Workload::ALL
            .into_iter()
            .find(|w| w.name() == *name)
            .ok_or_else(|| {
                bad("unknown workload (known: null-loop, copy, grep, dbsim, ls-l, bonnie)")
            })?;
        let rounds = rounds
            .parse()
            .ok()
            .filter(|r| (1..=100_000).contains(r))
            .ok_or_else(|| bad("ROUNDS must be a whole number from 1 to 100000"))?;
        if params.is_empty() {
            return Err(bad("no parameters after the rounds"));
        }
        steps.push(Step {
            workload,
            rounds,
            params: params.iter().map(|p| (*p).to_owned()).collect(),
        });
    }
    Ok(steps)
}

/// A count in a plan (null-loop lengths, dbsim's reads, bonnie's sizes):
/// a whole number from 1 to `max`.
pub fn count(word: &str, max: u64) -> Result<u64, String> {
    word.parse()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("`{word}` must be a whole number from 1 to {max}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflux_s_own_cosy_plan_parses() {
        let steps = parse(include_str!("../../../cosybench/bench/plan")).unwrap();
        let names: Vec<&str> = steps.iter().map(|s| s.workload.name()).collect();
        assert_eq!(
            names,
            [
                "ls-l",
                "ls-l",
                "null-loop",
                "copy",
                "grep",
                "dbsim",
                "dbsim",
                "bonnie"
            ]
        );
        assert_eq!(steps[0].rounds, 5);
        assert_eq!(steps[0].params, ["/ls/5000"]);
        assert_eq!(
            steps[5].params,
            ["/cosy/db-64m.bin", "1000", "1-procs", "2-procs", "4-procs"]
        );
    }

    #[test]
    fn each_mistake_names_its_line() {
        assert!(parse("grep 2")
            .unwrap_err()
            .contains("line 1: no parameters"));
        assert!(parse("\nfly 2 /x")
            .unwrap_err()
            .contains("line 2: unknown workload"));
        assert!(parse("grep 0 /x").unwrap_err().contains("ROUNDS"));
        assert!(parse("grep").unwrap_err().contains("expected"));
        assert_eq!(parse("# only a comment\n\n").unwrap(), []);
    }

    #[test]
    fn counts_are_bounded() {
        assert_eq!(count("3000", 100_000), Ok(3000));
        assert!(count("0", 10).is_err());
        assert!(count("11", 10).unwrap_err().contains("from 1 to 10"));
        assert!(count("x", 10).is_err());
    }
}
