//! fs-ops (`cargo make bench fs-ops`): what the file server costs per
//! operation, apart from the file server and the guest, so the host
//! tests it: the operations ([`Op`]), a plan line's parameters
//! ([`Spec`]), what a run of N operations must answer ([`Op::expected`])
//! and the digest its data is compared by ([`digest`]). The buffers'
//! offsets are in [`layout`]; the benchmark task runs the operations
//! (`apps/bench/cosybench/src/fs_ops`).

pub mod layout;

use core::fmt;

/// An operation whose cost per call is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// The null request: `nop`, which does nothing.
    Nop,
    /// `stat` of one file, warm.
    Stat,
    /// `open` then `close` of one file.
    OpenClose,
    /// A 4 KiB `pread` of a cached file, block after block.
    Pread,
    /// A 4 KiB `pwrite` of a cached file, block after block.
    Pwrite,
    /// A 64 KiB `read` of a cached file, from its start on.
    Read64k,
    /// `readdir`, per entry listed (in batches of [`layout::BATCH`]).
    Readdir,
    /// `readdirplus`, per entry listed with its status (`ls -l`'s
    /// listing; batches of [`layout::BATCH`]).
    Readdirplus,
    /// `open`, a `read` of up to 4 KiB and `close` of a 1 KiB file, a
    /// different file each time.
    OpenReadClose,
}

impl Op {
    /// Every operation, in the order the table prints them.
    pub const ALL: [Op; 9] = [
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

    /// Its name in plans and records.
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

    pub fn from_name(name: &str) -> Option<Op> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether it moves data, so that it has a zero-copy configuration
    /// (COSY-FAST); the null request has none, as the null loop has none.
    pub fn moves_data(self) -> bool {
        self != Op::Nop
    }

    /// What a run of `n` of it must answer: the calls made (nop, stat,
    /// open-close), the bytes moved (the reads and writes: a short read
    /// would make the figure that of less work) or the entries listed
    /// (readdir, readdirplus; `n` is the directory's size).
    pub fn expected(self, n: u64) -> u64 {
        match self {
            Op::Nop | Op::Stat | Op::OpenClose | Op::Readdir | Op::Readdirplus => n,
            Op::Pread | Op::Pwrite => n * u64::from(layout::BLOCK),
            Op::Read64k => n * u64::from(layout::DATA_LEN),
            Op::OpenReadClose => n * SMALL_FILE,
        }
    }

    /// The bytes of one entry it lists, for the operations that list a
    /// directory: a batch of them is what a run leaves in the app's
    /// buffer.
    pub fn entry_len(self) -> Option<u32> {
        match self {
            Op::Readdir => Some(layout::DIRENT),
            Op::Readdirplus => Some(layout::DIRENT_PLUS),
            _ => None,
        }
    }
}

/// The size of each file open-read-close reads.
pub const SMALL_FILE: u64 = 1024;
/// The most operations one run may make.
pub const MAX_N: u64 = 100_000;

/// One plan line's work: `OP N [PATH]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec<'a> {
    pub op: Op,
    /// Operations per run (readdir, readdirplus: the directory's
    /// entries).
    pub n: u64,
    /// The file (stat, open-close, pread, pwrite, read-64k) or directory
    /// (readdir, readdirplus, open-read-close: its files `f00000`,
    /// `f00001`, ...);
    /// empty for nop.
    pub path: &'a str,
}

/// Why a plan line's parameters were not understood.
#[derive(Debug, PartialEq, Eq)]
pub enum SpecError<'a> {
    UnknownOp(&'a str),
    BadCount(&'a str),
    MissingPath(Op),
    ExtraWords(&'a str),
    /// open-read-close: more files than the name table holds.
    TooManyFiles(u64),
}

impl fmt::Display for SpecError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownOp(op) => {
                write!(f, "unknown operation `{op}` (known:")?;
                for op in Op::ALL {
                    write!(f, " {}", op.name())?;
                }
                write!(f, ")")
            }
            SpecError::BadCount(n) => write!(
                f,
                "operations per run `{n}` must be a whole number from 1 to {MAX_N}"
            ),
            SpecError::MissingPath(op) => write!(
                f,
                "`{}` needs the path it works on after its count",
                op.name()
            ),
            SpecError::ExtraWords(w) => {
                write!(f, "`{w}` and what follows are more than `OP N [PATH]`")
            }
            SpecError::TooManyFiles(n) => write!(
                f,
                "open-read-close of {n} files: at most {} fit the name table (layout::MAX_NAMES)",
                layout::MAX_NAMES
            ),
        }
    }
}

impl<'a> Spec<'a> {
    /// The spec of a plan line's parameters (`pread 1000 /f.bin`).
    pub fn parse(params: &[&'a str]) -> Result<Spec<'a>, SpecError<'a>> {
        let name = params.first().copied().unwrap_or("");
        let op = Op::from_name(name).ok_or(SpecError::UnknownOp(name))?;
        let count = params.get(1).copied().unwrap_or("");
        let n = count
            .parse()
            .ok()
            .filter(|n| (1..=MAX_N).contains(n))
            .ok_or(SpecError::BadCount(count))?;
        let wants_path = op != Op::Nop;
        let path = match (wants_path, params.get(2)) {
            (true, Some(p)) => *p,
            (true, None) => return Err(SpecError::MissingPath(op)),
            (false, _) => "",
        };
        let rest = if wants_path { 3 } else { 2 };
        if let Some(extra) = params.get(rest) {
            return Err(SpecError::ExtraWords(extra));
        }
        if op == Op::OpenReadClose && n > u64::from(layout::MAX_NAMES) {
            return Err(SpecError::TooManyFiles(n));
        }
        Ok(Spec { op, n, path })
    }
}

/// FNV-1a over `bytes`: what the app's buffer holds after a run, which
/// every configuration must leave the same.
pub fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn every_operation_is_found_by_its_name() {
        for op in Op::ALL {
            assert_eq!(Op::from_name(op.name()), Some(op));
        }
        assert_eq!(Op::from_name("getpid"), None);
        assert!(!Op::Nop.moves_data() && Op::Stat.moves_data());
    }

    #[test]
    fn a_plan_line_gives_the_operation_its_count_and_path() {
        assert_eq!(
            Spec::parse(&["pread", "1000", "/f.bin"]),
            Ok(Spec {
                op: Op::Pread,
                n: 1000,
                path: "/f.bin"
            })
        );
        assert_eq!(
            Spec::parse(&["nop", "5"]),
            Ok(Spec {
                op: Op::Nop,
                n: 5,
                path: ""
            })
        );
    }

    #[test]
    fn each_mistake_is_named() {
        let err = |p: &[&str]| Spec::parse(p).unwrap_err().to_string();
        assert!(err(&["getpid", "1"]).contains("unknown operation `getpid` (known: nop stat"));
        assert!(err(&["stat", "0", "/f"]).contains("`0` must be a whole number from 1"));
        assert!(err(&["stat", "x", "/f"]).contains("`x`"));
        assert_eq!(
            err(&["stat", "3"]),
            "`stat` needs the path it works on after its count"
        );
        assert!(err(&["nop", "3", "/f"]).contains("`/f` and what follows"));
        assert!(err(&["pread", "3", "/f", "x"]).contains("`x` and what follows"));
        assert!(err(&["open-read-close", "100000", "/d"]).contains("at most"));
        assert!(Spec::parse(&["open-read-close", "960", "/d"]).is_ok());
    }

    #[test]
    fn the_answer_expected_counts_calls_bytes_or_entries() {
        assert_eq!(Op::Nop.expected(7), 7);
        assert_eq!(Op::Pread.expected(3), 3 * 4096);
        assert_eq!(Op::Read64k.expected(2), 2 * 65536);
        assert_eq!(Op::OpenReadClose.expected(5), 5 * 1024);
        assert_eq!(Op::Readdir.expected(1000), 1000);
        assert_eq!(Op::Readdirplus.expected(1000), 1000);
    }

    #[test]
    fn only_the_listings_have_entries_and_a_status_makes_them_larger() {
        assert_eq!(Op::Readdir.entry_len(), Some(layout::DIRENT));
        assert_eq!(Op::Readdirplus.entry_len(), Some(328));
        assert_eq!(Op::Stat.entry_len(), None);
        assert_eq!(Op::OpenReadClose.entry_len(), None);
    }

    #[test]
    fn readdirplus_takes_a_directory_like_readdir() {
        assert_eq!(
            Spec::parse(&["readdirplus", "1000", "/fsops/dir-1000"]),
            Ok(Spec {
                op: Op::Readdirplus,
                n: 1000,
                path: "/fsops/dir-1000"
            })
        );
        let err = Spec::parse(&["readdirplus", "70"]).unwrap_err().to_string();
        assert_eq!(
            err,
            "`readdirplus` needs the path it works on after its count"
        );
    }

    #[test]
    fn the_digest_tells_buffers_apart() {
        assert_eq!(digest(b""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(digest(b"ab"), digest(b"ba"));
        assert_ne!(digest(&[0; 4096]), digest(&[0; 4095]));
    }
}
