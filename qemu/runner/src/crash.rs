//! Crash tests (`[test] crash = { rounds, after, kill_after_ms }`): the
//! system boots `rounds` times on one disk image. In every round but the
//! last, once the line `after` is on the console, QEMU is killed with
//! SIGKILL a random (seeded) delay later, mid-workload; the next boot must
//! find every record the guest reported durable (`ledger`). The last round
//! runs to the end and is judged like any test; the caller then runs
//! e2fsck on the image.

mod ledger;
mod seed;

use crate::accel::Accel;
use crate::image::Built;
use crate::oracle;
use crate::qemu::{self, Kill};
use conflux_manifest::{CrashSpec, TestSpec};
use std::time::Duration;

/// Every round's console (with the runner's notes), what went wrong, and
/// the total time.
pub struct Outcome {
    pub output: String,
    pub problems: Vec<String>,
    pub elapsed: Duration,
}

pub fn run(
    built: &mut Built,
    spec: &TestSpec,
    crash: &CrashSpec,
    accel: Accel,
    tasks: &[&str],
) -> Result<Outcome, String> {
    let seed = seed::seed()?;
    let rounds = seed::rounds(crash.rounds)?;
    println!(
        "    crash test: {rounds} rounds, seed {seed} (replay with {}={seed})",
        seed::SEED_ENV
    );
    let mut rng = seed::Rng::new(seed);
    let mut ledger = ledger::Ledger::default();
    let mut out = Outcome {
        output: format!("[runner] crash test: {rounds} rounds, seed {seed}\n"),
        problems: Vec::new(),
        elapsed: Duration::ZERO,
    };
    built.fresh_disk = true;
    for round in 1..=rounds {
        let last = round == rounds;
        let (min, max) = crash.kill_after_ms;
        let delay = Duration::from_millis(rng.between(min, max).into());
        let kill = (!last).then_some(Kill {
            line: &crash.after,
            delay,
        });
        let timeout = Duration::from_secs(spec.timeout_secs.into());
        let run = qemu::run_captured_full(
            built,
            accel,
            timeout,
            &spec.kernel_args,
            &[],
            spec.input.as_bytes(),
            kill.as_ref(),
            None,
        )?;
        built.fresh_disk = false;
        out.elapsed += run.elapsed;
        let lines = ledger::lines(&run.output, tasks);
        let mut problems = ledger.check(round, &lines);
        ledger.note(round, &lines);
        let note = if last {
            problems.extend(oracle::judge(spec, tasks, &run.output, run.status));
            "ran to the end".to_owned()
        } else {
            problems.extend(killed_round(spec, crash, round, &run));
            match run.killed_after {
                Some(after) => format!("killed {} ms after {:?}", after.as_millis(), crash.after),
                None => format!(
                    "not killed (was due {} ms after {:?})",
                    delay.as_millis(),
                    crash.after
                ),
            }
        };
        out.output.push_str(&format!(
            "\n[runner] round {round} of {rounds}: {note}; records known durable so far: {}\n",
            ledger.records()
        ));
        out.output.push_str(&run.output);
        println!(
            "    round {round}: {note} ({:.1} s), {} records known durable",
            run.elapsed.as_secs_f64(),
            ledger.records()
        );
        out.problems.extend(problems);
    }
    Ok(out)
}

/// What is wrong with a round that was to be killed.
fn killed_round(
    spec: &TestSpec,
    crash: &CrashSpec,
    round: u32,
    run: &qemu::Captured,
) -> Vec<String> {
    let mut problems = Vec::new();
    if run.killed_after.is_none() {
        problems.push(match run.status {
            None => format!(
                "round {round}: timed out before {:?} appeared and the kill came",
                crash.after
            ),
            Some(_) => format!(
                "round {round}: the guest ended before it was killed, so this round crashed \
                 nothing; make its workload longer than `kill_after_ms`'s maximum"
            ),
        });
    }
    let always = ["CHECK FAILED", "KERNEL FAULT", "KERNEL PANIC"];
    let extra = always
        .into_iter()
        .filter(|a| !spec.forbid.iter().any(|f| f == a));
    for text in spec.forbid.iter().map(String::as_str).chain(extra) {
        if run.output.contains(text) {
            problems.push(format!("round {round}: forbidden text {text:?} appeared"));
        }
    }
    problems
}
