//! dbsim on Linux (FSL-02-01 §4.3), with 1, 2 or 4 processes: random
//! 4 KiB `pread`s of a file, every second block written back with
//! `pwrite`, the blocks from `cosybench_core::work` (the same xorshift64
//! sequence and per-process seeds Conflux's processes use), through
//! system calls or through io_uring (`super::uring`). In a run of
//! `p` processes this program is process 0 and `p - 1` forked children
//! run process 1.. at the same time, each opening the file itself. The
//! children are forked before the clock starts and wait on a pipe (as
//! Conflux's client tasks wait for their job); the time is from the
//! common start (read just before the children are told to go) to the
//! last process's end (each child reports the TSC when it finished).
//! The answer is the sum over processes of bytes moved plus offsets read,
//! Conflux's answer, which must be what the block sequences give.
//! Params `SIZE-P-procs-READS` (`64MiB-4-procs-1000`), as Conflux's.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;

use cosybench_core::work::{next, seed, Work, BLOCK};

use super::files::ring;
use super::plan::{count, Step};
use super::uring::{self, Uring};
use super::{rounds, size_name, Via, VIAS};
use crate::ipc::check;
use crate::report::{rdtsc, Checks};

/// The most processes a run may have (Conflux's limit).
const MAX_PROCS: u64 = 16;

pub fn run(checks: &mut Checks, step: &Step) -> Result<(), String> {
    let Some((file, rest)) = step.params.split_first() else {
        return Err("dbsim: no file".into());
    };
    let size = std::fs::metadata(file)
        .map_err(|e| format!("dbsim: stat {file}: {e}"))?
        .len();
    let blocks = size / BLOCK;
    if blocks == 0 {
        return Err(format!("dbsim: {file} is shorter than one block"));
    }
    let (procs, counts): (Vec<&String>, Vec<&String>) =
        rest.iter().partition(|w| w.ends_with("-procs"));
    let mut processes = Vec::new();
    for word in procs {
        processes.push(
            count(word.trim_end_matches("-procs"), MAX_PROCS)
                .map_err(|e| format!("dbsim: processes {e}"))?,
        );
    }
    if processes.is_empty() {
        processes.push(1);
    }
    for reads in counts {
        let reads = count(reads, 100_000).map_err(|e| format!("dbsim: reads {e}"))?;
        for &p in &processes {
            let work = |k: u64| Work {
                reads,
                blocks,
                seed: seed(k),
            };
            let expected = (0..p).map(|k| answer_of(work(k))).sum();
            let param = format!("{}-{p}-procs-{reads}", size_name(blocks * BLOCK));
            let mut u = ring()?;
            for via in VIAS {
                rounds(
                    checks,
                    "dbsim",
                    &param,
                    via,
                    step.rounds,
                    Some(expected),
                    || together(file, p, &work, via, &mut u),
                )?;
            }
        }
    }
    Ok(())
}

/// What a run of `w` answers when every read and write moves a block:
/// per read its bytes and offset, per write its bytes.
pub fn answer_of(w: Work) -> u64 {
    let (mut x, mut total) = (w.seed, 0);
    for i in 0..w.reads {
        x = next(x);
        total += BLOCK + x % w.blocks * BLOCK;
        if i & 1 == 1 {
            total += BLOCK;
        }
    }
    total
}

/// One process's run of `w` on `file` through `via` (`u`: its ring).
fn one_via(via: Via, u: &mut Uring, file: &str, w: Work) -> io::Result<u64> {
    match via {
        Via::Syscall => one(file, w),
        Via::IoUring => uring::dbsim(u, file, w),
    }
}

/// One process's run of `w` on `file` (Conflux's VAN run).
fn one(file: &str, w: Work) -> io::Result<u64> {
    let f: File = OpenOptions::new().read(true).write(true).open(file)?;
    let mut block = vec![0u8; BLOCK as usize];
    let (mut x, mut total) = (w.seed, 0u64);
    for i in 0..w.reads {
        x = next(x);
        let at = x % w.blocks * BLOCK;
        total += f.read_at(&mut block, at)? as u64 + at;
        if i & 1 == 1 {
            total += f.write_at(&block, at)? as u64;
        }
    }
    Ok(total)
}

/// One run of `p` processes, process k running `work(k)` through `via`
/// (process 0 with ring `u`, each child with its own, made before the
/// start): the answers' sum and the TSC from the common start to the last
/// one's end.
fn together(
    file: &str,
    p: u64,
    work: &impl Fn(u64) -> Work,
    via: Via,
    u: &mut Uring,
) -> io::Result<(u64, u64)> {
    let go = pipe()?;
    let done = pipe()?;
    let mut children = Vec::new();
    for k in 1..p {
        // Safety: this program is single-threaded; the child only reads,
        // does its file work, writes to a pipe and exits.
        let child = check(unsafe { libc::fork() })?;
        if child == 0 {
            let own_ring = Uring::new();
            let mut byte = [0u8; 1];
            // Safety: `byte` has room for the one byte read.
            unsafe { libc::read(go[0], byte.as_mut_ptr().cast(), 1) };
            let answer = own_ring
                .and_then(|mut r| one_via(via, &mut r, file, work(k)))
                .unwrap_or(u64::MAX);
            let mut report = [0u8; 16];
            report[..8].copy_from_slice(&answer.to_ne_bytes());
            report[8..].copy_from_slice(&rdtsc().to_ne_bytes());
            // Safety: `report` holds the 16 bytes written (under
            // PIPE_BUF: one atomic write); `_exit` skips the parent's
            // atexit work.
            unsafe {
                libc::write(done[1], report.as_ptr().cast(), 16);
                libc::_exit(0)
            }
        }
        children.push(child);
    }
    let start = rdtsc();
    let wake = vec![1u8; children.len()];
    // Safety: `wake` holds the bytes written, one per child.
    unsafe { libc::write(go[1], wake.as_ptr().cast(), wake.len()) };
    let own = one_via(via, u, file, work(0));
    let mut end = rdtsc();
    let mut total = 0u64;
    let mut failed = own.is_err();
    for _ in &children {
        let mut report = [0u8; 16];
        // Safety: `report` has room for the 16 bytes read.
        let n = unsafe { libc::read(done[0], report.as_mut_ptr().cast(), 16) };
        let answer = u64::from_ne_bytes(report[..8].try_into().unwrap_or_default());
        let finished = u64::from_ne_bytes(report[8..].try_into().unwrap_or_default());
        failed |= n != 16 || answer == u64::MAX;
        total = total.wrapping_add(answer);
        end = end.max(finished);
    }
    for child in children {
        let mut status = 0;
        // Safety: `child` is this run's child; `status` is written.
        unsafe { libc::waitpid(child, &mut status, 0) };
    }
    for fd in go.into_iter().chain(done) {
        // Safety: the pipes' descriptors are this run's, closed once.
        unsafe { libc::close(fd) };
    }
    let own = own?;
    if failed {
        return Err(io::Error::other(format!(
            "a process of {p} failed its dbsim run on {file}"
        )));
    }
    Ok((own + total, end - start))
}

/// A pipe's read and write descriptors.
fn pipe() -> io::Result<[i32; 2]> {
    let mut fds = [0; 2];
    // Safety: `fds` has room for the two descriptors.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok(fds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_counts_bytes_and_offsets_read() {
        let w = Work {
            reads: 2,
            blocks: 4,
            seed: 1,
        };
        let a = next(1) % 4 * BLOCK;
        let b = next(next(1)) % 4 * BLOCK;
        assert_eq!(answer_of(w), BLOCK + a + BLOCK + b + BLOCK);
    }
}
