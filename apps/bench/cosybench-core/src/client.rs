//! A client task of dbsim's multi-process runs (`apps/bench/cosybench-client`,
//! which the manifest runs as each client task): it
//! asks the leader for jobs over endpoint `cosybench_coord` ([`crate::job`])
//! and runs each against the file server on its own session (its own
//! control and data regions), as the leader runs its own share.

use alloc::format;

use conflux_fs_client::{Caps, Fs};
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use conflux_userlib::testing::Checks;

use crate::dbsim::{self, Compounds, Work};
use crate::job::{self, Job};
use crate::wire;

/// The capabilities a client's manifest entry gives it.
pub struct ClientCaps {
    pub fs: Caps,
    /// The data region's slot and where the manifest mapped it.
    pub data: (usize, u64),
    /// The leader's endpoint (`cosybench_coord`).
    pub coord: usize,
}

/// Serves jobs until the leader says quit, then ends the task (exit code:
/// the failed jobs and checks). A client that cannot reach the file
/// server still answers every job, as failed, so the leader (which waits
/// for every client) reports it instead of waiting forever.
pub fn main(caps: ClientCaps) -> ! {
    let mut checks = Checks::new();
    let session = Fs::connect(caps.fs).and_then(|mut fs| {
        let data = fs.attach(caps.data.0, caps.data.1)?;
        Ok((fs, data))
    });
    let mut session = match session {
        Ok(s) => Some(s),
        Err(e) => {
            let what = "connect to the file server and attach the data region fs_data";
            checks.that(what, false, e);
            None
        }
    };
    let coord = Endpoint(caps.coord);
    let mut served = 0u64;
    let mut failed = 0u64;
    // The compounds of the last work, kept: the leader sends the same work
    // in every configuration and round.
    let mut built: Option<(Work, Compounds)> = None;
    let mut msg = Message::new(job::READY, &[]);
    loop {
        let reply = match coord.call(&msg) {
            Ok(r) => r,
            Err(e) => {
                checks.that("call the leader (cosybench_coord)", false, e);
                break;
            }
        };
        if reply.label == job::QUIT {
            break;
        }
        let words = wire::words_of(&reply);
        let outcome = match (reply.label, Job::decode(&words), session.as_mut()) {
            (job::JOB, Ok(j), Some((fs, data))) => run(fs, *data, &mut built, &j),
            (job::JOB, Ok(_), None) => Err("no session with the file server (see above)".into()),
            (label, decoded, _) => Err(format!("not a job: label {label}, {decoded:?}")),
        };
        let finished = rdtsc();
        served += 1;
        msg = match outcome {
            Ok(answer) => Message::new(job::DONE, &[0, answer, finished]),
            Err(why) => {
                failed += 1;
                println!("CHECK FAILED: job {served}: {why}");
                Message::new(job::DONE, &[1, 0, finished])
            }
        };
    }
    checks.eq("jobs that failed", failed, 0);
    println!("served {served} jobs");
    checks.finish()
}

/// One job; its answer, or why it failed.
fn run(
    fs: &mut Fs,
    data: u8,
    built: &mut Option<(Work, Compounds)>,
    j: &Job,
) -> Result<u64, alloc::string::String> {
    if built.as_ref().is_none_or(|(w, _)| *w != j.work) {
        let compounds = dbsim::compounds(data, j.work).map_err(|e| format!("{e:?}"))?;
        *built = Some((j.work, compounds));
    }
    let Some((_, compounds)) = built.as_ref() else {
        return Err("no compounds".into());
    };
    dbsim::run(fs, j.config, data, compounds, &j.path, j.work)
        .map_err(|e| format!("dbsim {:?} on {}: {e}", j.config, j.path))
}
