//! Database simulation (FSL-02-01 §4.3), with 1, 2 or 4 processes: the
//! workload itself is `cosybench_core::dbsim` (random 4 KiB `pread`s of
//! a file, every second one written back). In a run of `p` processes
//! this task is process 0 and `p - 1` client tasks (`crate::clients`)
//! run the same work at the same time, each from its own block
//! sequence, each on its own session with the file server, all in the
//! run's configuration. The time is from the common start (read just
//! before the clients are handed their jobs) to the last process's end
//! (each client reports the TSC when it finished); the answer is the
//! sum of the processes' answers.
//!
//! Plan parameters: the file, then the numbers of reads per process,
//! and the process counts as `N-procs` (default `1-procs`). The record's
//! parameter is `SIZE-N-procs-READS` (`64MiB-4-procs-3000`; before the
//! multi-process runs it was `SIZE-1-proc-READS`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use conflux_userlib::sys::rdtsc;
use cosybench_core::dbsim::{self, seed, Compounds, Work, BLOCK};
use cosybench_core::job::Job;

use crate::copy::size_name;
use crate::measure::{self, Config};
use crate::plan::{self, Step};
use crate::Bench;

/// The most processes a run may have (this task and its clients).
const MAX_PROCS: u64 = 16;

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let Some((file, rest)) = step.params.split_first() else {
        return;
    };
    let blocks = match b.fs.stat(file) {
        Ok(st) if st.size >= BLOCK => st.size / BLOCK,
        other => {
            let what = format!("dbsim: {file} is a file of at least one block");
            return b.checks.that(&what, false, other);
        }
    };
    let (procs, counts): (Vec<&str>, Vec<&str>) = rest.iter().partition(|w| w.ends_with("-procs"));
    let mut processes = Vec::new();
    for word in &procs {
        match word.trim_end_matches("-procs").parse::<u64>() {
            Ok(p) if (1..=MAX_PROCS).contains(&p) => processes.push(p),
            _ => {
                let what = format!("dbsim: `{word}` is N-procs with N from 1 to {MAX_PROCS}");
                return b.checks.that(&what, false, ());
            }
        }
    }
    if processes.is_empty() {
        processes.push(1);
    }
    for count in counts {
        let Some(reads) = plan::length(count) else {
            let what = format!("dbsim: reads `{count}` is a whole number from 1 to 100000");
            return b.checks.that(&what, false, ());
        };
        let work = Work {
            reads,
            blocks,
            seed: seed(0),
        };
        let compounds = match dbsim::compounds(b.data, work) {
            Ok(c) => c,
            Err(e) => return b.checks.that("dbsim: build the compounds", false, e),
        };
        for &p in &processes {
            let param = format!("{}-{p}-procs-{reads}", size_name(blocks * BLOCK));
            measure::rounds_timed(
                b,
                "dbsim",
                &param,
                step.rounds,
                &Config::ALL,
                |b, config| together(b, config, file, work, &compounds, p),
            );
        }
    }
}

/// One run of `p` processes in `config`: the answers' sum and the time
/// from the common start to the last process's end.
fn together(
    b: &mut Bench,
    config: Config,
    file: &str,
    work: Work,
    compounds: &Compounds,
    p: u64,
) -> Result<(u64, u64), String> {
    let helpers = p as usize - 1;
    if helpers > 0 {
        b.clients.gather()?;
    }
    let start = rdtsc();
    if helpers > 0 {
        let job = Job {
            config,
            work,
            path: file.into(),
        };
        b.clients.start(helpers, &job, seed)?;
    }
    let own = dbsim::run(&mut b.fs, config, b.data, compounds, file, work);
    let mut end = rdtsc();
    let others = if helpers > 0 {
        b.clients.finish()
    } else {
        Ok(Vec::new())
    };
    let mut total = own.map_err(|e| format!("dbsim {config:?} on {file}: {e}"))?;
    for done in others? {
        total += done.answer;
        end = end.max(done.finished);
    }
    Ok((total, end - start))
}
