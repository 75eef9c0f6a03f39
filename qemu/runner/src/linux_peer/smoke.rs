//! The Linux peer's smoke test in `cargo make test` (alone: `cargo make
//! test linux-peer`): fetch the inputs if this machine has not yet, boot
//! Linux under tcg with the IPC anchors at a few rounds, and check that
//! every record the bench would write comes back and parses.

use std::time::{Duration, Instant};

use crate::accel::Accel;
use crate::guest_test::Tally;

/// Recorded rounds per IPC metric: enough for a median, few enough for
/// a quick boot.
const ROUNDS: u32 = 200;
/// The records a smoke run must give: getpid, and pipe and eventfd round
/// trips through syscalls and io_uring, each median, p99 and mean.
const RECORDS: usize = 5 * 3;

/// Runs the smoke test and counts it.
pub fn in_tests(tally: &mut Tally) {
    let start = Instant::now();
    match run() {
        Ok(n) => {
            println!(
                "linux-peer smoke [tcg] ... ok ({n} records, {:.1} s)",
                start.elapsed().as_secs_f64()
            );
            tally.passed += 1;
        }
        Err(e) => {
            println!(
                "linux-peer smoke [tcg] ... FAILED ({:.1} s)\n    - {e}",
                start.elapsed().as_secs_f64()
            );
            tally.failed += 1;
            tally.failures.push("linux-peer smoke".into());
        }
    }
}

fn run() -> Result<usize, String> {
    let work = super::Workloads::Ipc(ROUNDS);
    let built = super::prepare(work.machine())?;
    let run = super::boot(&built, Accel::Tcg, work, Duration::from_secs(120))?;
    let found = super::records(&run.output, Accel::Tcg)
        .map_err(|e| format!("{e}\nconsole:\n{}", run.output))?;
    if found.len() != RECORDS || !found.iter().all(|r| r.bench == "ipc" && r.value > 0) {
        return Err(format!(
            "expected {RECORDS} nonzero ipc records, got {found:?}\nconsole:\n{}",
            run.output
        ));
    }
    Ok(found.len())
}
