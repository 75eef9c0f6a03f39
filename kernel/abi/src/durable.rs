//! The crash test's lines: how a writer in the guest tells the host runner
//! which records it knows are on the disk, and what it found there after a
//! reboot, so that the runner — which saw the previous boot die — can tell
//! a lost record from one that never was durable.
//!
//! - `DURABLE <file> <seq>`: records 1..=seq of log file `file` are on the
//!   disk (an fsync covering them returned).
//! - `FOUND <file> <seq>`: after booting, log file `file` holds records
//!   1..=seq intact (and anything after them was cut off).
//!
//! The console puts the task's `name: ` in front. A task formats a
//! [`DurableLine`] with `Display` and the runner reads it back with
//! [`DurableLine::parse`], so the format is written down once, here.

use core::fmt;

/// One line of the crash-test protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurableLine {
    /// Records 1..=`seq` of `file` are durable.
    Durable { file: u32, seq: u64 },
    /// After a boot, `file` holds records 1..=`seq`.
    Found { file: u32, seq: u64 },
}

impl DurableLine {
    /// Reads a line (without the task prefix); `None` if it is not one.
    pub fn parse(line: &str) -> Option<Self> {
        let mut words = line.split_ascii_whitespace();
        let kind = words.next()?;
        let file = words.next()?.parse().ok()?;
        let seq = words.next()?.parse().ok()?;
        if words.next().is_some() {
            return None;
        }
        match kind {
            "DURABLE" => Some(Self::Durable { file, seq }),
            "FOUND" => Some(Self::Found { file, seq }),
            _ => None,
        }
    }
}

impl fmt::Display for DurableLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Durable { file, seq } => write!(f, "DURABLE {file} {seq}"),
            Self::Found { file, seq } => write!(f, "FOUND {file} {seq}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DurableLine;
    extern crate std;
    use std::string::ToString;

    #[test]
    fn lines_go_round() {
        for line in [
            DurableLine::Durable { file: 2, seq: 17 },
            DurableLine::Found { file: 0, seq: 0 },
        ] {
            assert_eq!(DurableLine::parse(&line.to_string()), Some(line));
        }
        assert_eq!(
            DurableLine::Durable { file: 1, seq: 9 }.to_string(),
            "DURABLE 1 9"
        );
    }

    #[test]
    fn other_lines_are_not_records() {
        for text in [
            "",
            "DURABLE",
            "DURABLE 1",
            "DURABLE 1 x",
            "DURABLE 1 2 3",
            "durable 1 2",
            "LOST 1 2",
            "DURABLE -1 2",
        ] {
            assert_eq!(DurableLine::parse(text), None, "{text:?}");
        }
    }
}
