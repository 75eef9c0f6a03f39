//! The Cosy workloads on Linux (`cargo make bench linux`, the cosybench
//! machine): null loop, copy, grep, dbsim (1, 2 and 4 processes),
//! `ls -l` (cold and warm) and bonnie's phases through Linux's system calls
//! (`linux-syscall`) and through io_uring (`linux-io_uring`: [`uring`]),
//! on the ext4 disk Conflux's `bench cosy` uses,
//! running the plan on that disk (`/plan`: [`plan`]). Each does per run
//! what Conflux's VAN run does (`apps/bench/cosybench/src/*.rs`): the same
//! files, 4 KiB chunks, counts and block sequences, so the answers are
//! the ones Conflux's task prints (`BENCH answer` lines read alike).
//!
//! Timing is Conflux's (`apps/bench/cosybench/src/measure.rs`): one untimed
//! warm-up round, then ROUNDS timed ones; a sample is the TSC across one
//! whole run (system calls first, then io_uring, each with its rounds);
//! the median, p99 and mean go out as record lines
//! `BENCH <bench>__<linux_syscall|linux_io_uring>__<param>`. Every run's answer must be the
//! first run's and the one the workload must give (entries listed, bytes
//! copied, matches counted by an independent read), or the check fails.
//! bonnie's phases too ([`bonnie`]).

mod bonnie;
mod dbsim;
mod files;
mod ls_l;
pub mod plan;
mod uring;

use std::io;

pub use crate::fs_ops::Via;
use crate::report::{rdtsc, say, Checks, Samples};
use plan::{Step, Workload};

/// Both ways, system calls first (as Conflux runs VAN first).
pub const VIAS: [Via; 2] = [Via::Syscall, Via::IoUring];

/// Runs every step of the plan, in order.
pub fn run(checks: &mut Checks, steps: &[Step]) {
    for step in steps {
        say(&format!(
            "{} ({} rounds)",
            step.workload.name(),
            step.rounds
        ));
        let done = match step.workload {
            Workload::NullLoop => files::null_loop(checks, step),
            Workload::Grep => files::grep(checks, step),
            Workload::Copy => files::copy(checks, step),
            Workload::Dbsim => dbsim::run(checks, step),
            Workload::LsL => ls_l::run(checks, step),
            Workload::Bonnie => bonnie::run(checks, step),
        };
        if let Err(e) = done {
            checks.that(step.workload.name(), false, e);
        }
    }
}

/// `rounds` timed runs of `run` after one untimed warm-up run, recorded
/// as `bench`/`via`/`param`; `run` returns its answer and the TSC its run
/// took. Every answer must equal `expected` (when known) and the first
/// run's.
pub fn rounds(
    checks: &mut Checks,
    bench: &str,
    param: &str,
    via: Via,
    rounds: u32,
    expected: Option<u64>,
    mut run: impl FnMut() -> io::Result<(u64, u64)>,
) -> Result<(), String> {
    let config = via.config();
    let mut samples = Samples::new(bench, config, param, rounds as usize);
    let mut first = None;
    for round in 0..=rounds {
        let (answer, took) =
            run().map_err(|e| format!("{bench} {param} {config} round {round}: {e}"))?;
        let reference = *first.get_or_insert(answer);
        if round == 0 {
            say(&format!("{bench} {param} {config}: answer Some({answer})"));
        }
        let want = expected.unwrap_or(reference);
        if answer != want || answer != reference {
            let what = format!("{bench} {param} {config} round {round}: the answer");
            checks.that(&what, false, format!("{answer}, expected {want}"));
            return Ok(());
        }
        if round > 0 {
            samples.push(took);
        }
    }
    checks.that(
        &format!("{bench} {param} {config}: every run answered alike"),
        true,
        "",
    );
    samples.report();
    Ok(())
}

/// `run`'s answer and the TSC across it.
pub fn timed(run: impl FnOnce() -> io::Result<u64>) -> io::Result<(u64, u64)> {
    let start = rdtsc();
    let answer = run()?;
    Ok((answer, rdtsc() - start))
}

/// A size as Conflux's records name it: `16MiB`, `128KiB`, or bytes
/// (`apps/bench/cosybench/src/copy.rs`'s `size_name`).
pub fn size_name(size: u64) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{}MiB", s >> 20),
        s if s >= 1 << 10 && s % (1 << 10) == 0 => format!("{}KiB", s >> 10),
        s => format!("{s}B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_named_as_conflux_names_them() {
        assert_eq!(size_name(16 << 20), "16MiB");
        assert_eq!(size_name(128 << 10), "128KiB");
        assert_eq!(size_name(4097), "4097B");
    }

    #[test]
    fn a_wrong_or_changing_answer_fails_its_check() {
        let mut c = Checks::default();
        rounds(&mut c, "grep", "1KiB", Via::Syscall, 2, Some(5), || {
            Ok((5, 1))
        })
        .unwrap();
        assert_eq!(c.summary(), "all 1 checks passed");
        let mut c = Checks::default();
        rounds(&mut c, "grep", "1KiB", Via::Syscall, 2, Some(4), || {
            Ok((5, 1))
        })
        .unwrap();
        assert_eq!(c.summary(), "1 of 1 checks failed");
        let mut n = 0;
        let mut c = Checks::default();
        rounds(&mut c, "grep", "1KiB", Via::IoUring, 2, None, || {
            n += 1;
            Ok((n, 1))
        })
        .unwrap();
        assert_eq!(c.summary(), "1 of 1 checks failed");
    }
}
