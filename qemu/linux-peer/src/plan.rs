//! The fs-ops plan: the same file Conflux's `cargo make bench fs-ops`
//! runs (`qemu/cosybench/fsops/plan`, packed into the initramfs), so both
//! sides make the same operations the same number of times. A line is
//! `fs-ops ROUNDS OP N [PATH]`; `#` starts a comment.

/// An operation whose cost per call is measured (the names of
/// `cosybench_core::fs_ops::Op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Nop,
    Stat,
    OpenClose,
    Pread,
    Pwrite,
    Read64k,
    Readdir,
    Readdirplus,
    OpenReadClose,
}

impl Op {
    const ALL: [Op; 9] = [
        Op::Nop,
        Op::Stat,
        Op::OpenClose,
        Op::Pread,
        Op::Pwrite,
        Op::Read64k,
        Op::Readdir,
        Op::Readdirplus,
        Op::OpenReadClose,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Nop => "nop",
            Op::Stat => "stat",
            Op::OpenClose => "open-close",
            Op::Pread => "pread",
            Op::Pwrite => "pwrite",
            Op::Read64k => "read-64k",
            Op::Readdir => "readdir",
            Op::Readdirplus => "readdirplus",
            Op::OpenReadClose => "open-read-close",
        }
    }

    /// What a run of `n` must answer: calls, bytes moved or entries
    /// listed (as `cosybench_core::fs_ops::Op::expected`).
    pub fn expected(self, n: u64) -> u64 {
        match self {
            Op::Nop | Op::Stat | Op::OpenClose | Op::Readdir | Op::Readdirplus => n,
            Op::Pread | Op::Pwrite => n * 4096,
            Op::Read64k => n * 65536,
            Op::OpenReadClose => n * 1024,
        }
    }
}

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
        let op = Op::ALL
            .into_iter()
            .find(|o| o.name() == *op)
            .ok_or_else(|| bad("unknown operation"))?;
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
