//! The fs-ops plan: the same file Conflux's `cargo make bench fs-ops`
//! runs (`qemu/cosybench/fsops/plan`, packed into the initramfs), so both
//! sides make the same operations the same number of times. A line is
//! `fs-ops ROUNDS OP N [PATH]`; `#` starts a comment.

/// An operation whose cost per call is measured: Conflux's own
/// (`cosybench_core::fs_ops::Op`), so names and expected answers are one
/// definition on both sides.
pub use cosybench_core::fs_ops::Op;

/// One plan line.
#[derive(Debug, PartialEq, Eq)]
pub struct Step {
    /// Timed rounds (one untimed warm-up round comes first).
    pub rounds: u32,
    pub op: Op,
    /// Operations per run (readdir, readdirplus: the directory's entries).
    pub n: u64,
    /// The file or directory, from the disk's root; empty for nop.
    pub path: String,
}

/// The steps of plan text `text`, or the first line that is not one.
pub fn parse(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| format!("plan line {}: {why}: `{line}`", i + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [bench, rounds, op, n, rest @ ..] = words.as_slice() else {
            return Err(bad("expected `fs-ops ROUNDS OP N [PATH]`"));
        };
        if *bench != "fs-ops" {
            return Err(bad("only fs-ops lines are known here"));
        }
        let op = Op::from_name(op).ok_or_else(|| bad("unknown operation"))?;
        let rounds = rounds
            .parse()
            .map_err(|_| bad("ROUNDS is not a whole number"))?;
        let n: u64 = n.parse().map_err(|_| bad("N is not a whole number"))?;
        if n == 0 {
            return Err(bad("N must be at least 1"));
        }
        let path = match (op, rest) {
            (Op::Nop, []) => String::new(),
            (Op::Nop, _) => return Err(bad("nop takes no path")),
            (_, [p]) => (*p).to_owned(),
            _ => return Err(bad("this operation takes exactly one path")),
        };
        steps.push(Step {
            rounds,
            op,
            n,
            path,
        });
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflux_s_own_plan_parses() {
        let text = include_str!("../../cosybench/fsops/plan");
        let steps = parse(text).unwrap();
        assert_eq!(steps.len(), 9);
        assert_eq!(
            steps[0],
            Step {
                rounds: 21,
                op: Op::Nop,
                n: 10000,
                path: String::new()
            }
        );
        let orc = &steps[8];
        assert_eq!(
            (orc.op, orc.n, orc.path.as_str()),
            (Op::OpenReadClose, 500, "/fsops/small")
        );
    }

    #[test]
    fn each_mistake_names_its_line() {
        assert!(parse("fs-ops 2 nop").unwrap_err().contains("line 1"));
        assert!(parse("\nfs-ops 2 fly 3 /x")
            .unwrap_err()
            .contains("line 2: unknown operation"));
        assert!(parse("fs-ops 2 stat 3")
            .unwrap_err()
            .contains("exactly one path"));
        assert!(parse("fs-ops 2 nop 3 /x").unwrap_err().contains("no path"));
        assert!(parse("fs-ops 2 nop 0").unwrap_err().contains("at least 1"));
        assert!(parse("grep 2 nop 3").unwrap_err().contains("only fs-ops"));
    }

    #[test]
    fn the_answers_count_calls_bytes_or_entries() {
        assert_eq!(Op::Pread.expected(3), 3 * 4096);
        assert_eq!(Op::Read64k.expected(2), 2 * 65536);
        assert_eq!(Op::OpenReadClose.expected(5), 5 * 1024);
        assert_eq!(Op::Readdirplus.expected(7), 7);
    }
}
