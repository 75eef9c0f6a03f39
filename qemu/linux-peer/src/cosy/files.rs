//! The null loop, grep and copy on Linux, each run as Conflux's VAN run
//! makes it: the null loop is N `getpid` system calls (Cosy's own null
//! loop, FSL-02-01 §4.2; Conflux calls its file server's `nop`); grep
//! reads a file in 4 KiB chunks and counts `cf` in each chunk (matches
//! across a chunk boundary not counted, as on Conflux); copy reads a
//! file in 4 KiB chunks and writes each to `/cosy/copy.out` (created,
//! truncated), the copy compared with its source before the timed runs.
//! Each through system calls, then through io_uring (`super::uring`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};

use super::plan::{count, Step};
use super::uring::{self, Uring};
use super::{rounds, size_name, timed, Via, VIAS};
use crate::report::Checks;

/// grep's string (`apps/bench/cosybench/src/grep.rs`).
pub const STRING: &[u8] = b"cf";
/// The chunk every read and write moves.
const CHUNK: usize = 4096;
/// Where each copy goes, replaced every run.
const TARGET: &str = "/cosy/copy.out";

pub fn null_loop(checks: &mut Checks, step: &Step) -> Result<(), String> {
    for param in &step.params {
        let n = count(param, 100_000).map_err(|e| format!("null-loop length {e}"))?;
        let mut u = ring()?;
        for via in VIAS {
            rounds(
                checks,
                "null-loop",
                param,
                via,
                step.rounds,
                Some(n),
                || {
                    timed(|| match via {
                        Via::Syscall => Ok(getpids(n)),
                        Via::IoUring => uring::nops(&mut u, n),
                    })
                },
            )?;
        }
    }
    Ok(())
}

/// A ring for a step's io_uring runs, made before they are timed.
pub fn ring() -> Result<Uring, String> {
    Uring::new().map_err(|e| format!("cannot set up an io_uring: {e}"))
}

/// `n` getpid calls; how many answered a process id.
fn getpids(n: u64) -> u64 {
    let mut ok = 0;
    for _ in 0..n {
        // Safety: getpid takes no arguments and cannot fail.
        if unsafe { libc::syscall(libc::SYS_getpid) } > 0 {
            ok += 1;
        }
    }
    ok
}

pub fn grep(checks: &mut Checks, step: &Step) -> Result<(), String> {
    for file in &step.params {
        let whole = fs::read(file).map_err(|e| format!("grep: read {file}: {e}"))?;
        let expected: u64 = whole.chunks(CHUNK).map(|c| matches(c, STRING)).sum();
        let size = whole.len() as u64;
        let param = size_name(size);
        let mut u = ring()?;
        for via in VIAS {
            rounds(
                checks,
                "grep",
                &param,
                via,
                step.rounds,
                Some(expected),
                || {
                    timed(|| match via {
                        Via::Syscall => search(file),
                        Via::IoUring => uring::grep(&mut u, file, size),
                    })
                },
            )?;
        }
    }
    Ok(())
}

/// One grep run: the matches in `file`'s chunks.
fn search(file: &str) -> io::Result<u64> {
    let mut f = File::open(file)?;
    let mut chunk = vec![0u8; CHUNK];
    let mut total = 0;
    loop {
        let n = f.read(&mut chunk)?;
        total += matches(&chunk[..n], STRING);
        if n != CHUNK {
            return Ok(total);
        }
    }
}

/// Occurrences of `needle` in `hay` that do not overlap, each found
/// leftmost after the one before (as Conflux's `SEARCH` counts them).
pub fn matches(hay: &[u8], needle: &[u8]) -> u64 {
    let (mut at, mut n) = (0, 0);
    while let Some(i) = hay[at..].windows(needle.len()).position(|w| w == needle) {
        n += 1;
        at += i + needle.len();
    }
    n
}

pub fn copy(checks: &mut Checks, step: &Step) -> Result<(), String> {
    for source in &step.params {
        let size = fs::metadata(source)
            .map_err(|e| format!("copy: stat {source}: {e}"))?
            .len();
        let mut u = ring()?;
        for via in VIAS {
            let mut once = || match via {
                Via::Syscall => copy_once(source),
                Via::IoUring => uring::copy(&mut u, source, size, TARGET),
            };
            let config = via.config();
            once().map_err(|e| format!("copy {source} -> {TARGET} {config}: {e}"))?;
            let same = fs::read(source).ok() == fs::read(TARGET).ok();
            checks.that(
                &format!("copy {source} {config}: the copy equals its source"),
                same,
                "it differs",
            );
            let param = size_name(size);
            rounds(checks, "copy", &param, via, step.rounds, Some(size), || {
                timed(&mut once)
            })?;
        }
    }
    Ok(())
}

/// One copy run: the bytes written.
fn copy_once(source: &str) -> io::Result<u64> {
    let mut from = File::open(source)?;
    let mut to = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(TARGET)?;
    let mut chunk = vec![0u8; CHUNK];
    let mut total = 0;
    loop {
        let n = from.read(&mut chunk)?;
        let written = to.write(&chunk[..n])?;
        total += written as u64;
        if written != n {
            return Err(io::Error::other(format!(
                "a write of {n} bytes wrote {written}"
            )));
        }
        if n != CHUNK {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_do_not_overlap() {
        assert_eq!(matches(b"cfcfc", b"cf"), 2);
        assert_eq!(matches(b"ccff", b"cf"), 1);
        assert_eq!(matches(b"c", b"cf"), 0);
        assert_eq!(matches(b"aaaa", b"aa"), 2);
    }

    #[test]
    fn the_null_loop_makes_every_call() {
        assert_eq!(getpids(7), 7);
    }
}
