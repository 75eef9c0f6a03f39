//! Linux's cost of the same operations, as the design brief
//! (`DESIGN-BRIEF.md`, "Reference figures measured here") and issue 24
//! quote them: Debian's Linux 6.1 on the same QEMU, `-smp 1`, icount,
//! guest instructions per call (`ls -l` per entry: two of them added,
//! readdir's share per entry and an `fstatat`). This run measures none
//! of them (the Linux peer in the runner comes with its own issue), so
//! the table labels them as the brief's and shows them beside icount
//! rows only.

/// Said under the table.
pub const NOTE: &str = "Linux: the design brief's figures (Linux 6.1 on the same QEMU, icount, instructions per call; DESIGN-BRIEF.md, issue 24), not measured by this run";

/// Linux's figure for fs-ops operation `op`, with the call it is of;
/// `None` where the brief gives none.
pub fn figure(op: &str) -> Option<&'static str> {
    match op {
        "nop" => Some("getpid 321"),
        "stat" => Some("fstatat 3,186"),
        "pread" => Some("pread syscall 1,908"),
        "readdir" => Some("338 per entry"),
        // Linux has no readdirplus: `ls -l` lists, then stats each entry.
        "readdirplus" => Some("ls -l ~3,500 per entry (readdir 338 + fstatat 3,186)"),
        "open-read-close" => Some("7,827-8,303"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_brief_gives_six_of_the_nine_operations() {
        let ops = [
            "nop",
            "stat",
            "open-close",
            "pread",
            "pwrite",
            "read-64k",
            "readdir",
            "readdirplus",
            "open-read-close",
        ];
        let given: Vec<&str> = ops.iter().filter_map(|op| figure(op)).collect();
        assert_eq!(given.len(), 6);
        assert_eq!(figure("nop"), Some("getpid 321"));
        assert_eq!(figure("pwrite"), None);
        let ls = figure("readdirplus").unwrap();
        assert!(ls.starts_with("ls -l ~3,500") && ls.contains("338 + fstatat 3,186"));
        assert!(NOTE.contains("not measured by this run"));
    }
}
