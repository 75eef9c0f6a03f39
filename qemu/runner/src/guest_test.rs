//! In-guest tests: every manifest in `qemu/tests/` is a test system whose
//! `[test]` section says what its console must show, what it must never
//! show, and how the kernel must end (judged by `oracle`). Each runs once
//! per listed mode.

use crate::accel::{self, Accel};
use crate::{crash, disks, exchanges, host_test, image, oracle, qemu, soak, symbolize, workspace};
use conflux_manifest::TestSpec;
use std::time::Duration;

/// Pass/fail/skip counts for the whole run.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub failures: Vec<String>,
}

fn run_system(path: &std::path::Path, tally: &mut Tally) -> Result<(), String> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut built = image::build(path, image::Progress::Quiet)?;
    // Every run starts from the folder alone (see `disks`).
    built.fresh_disk = true;
    let spec = built
        .manifest
        .test
        .clone()
        .ok_or_else(|| format!("{}: a test system needs a [test] section", path.display()))?;
    for mode in &spec.modes {
        let accel = Accel::from_mode(*mode);
        if accel == Accel::Kvm && !accel::hardware_kvm() {
            println!("guest {name} [{accel}] ... skipped (no hardware KVM)");
            tally.skipped += 1;
            continue;
        }
        // Owned, so that a crash test can change `built` between rounds.
        let names: Vec<String> = built
            .manifest
            .tasks
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let tasks: Vec<&str> = names.iter().map(String::as_str).collect();
        let run = match &spec.crash {
            Some(crash) => {
                let c = crash::run(&mut built, &spec, crash, accel, &tasks)?;
                Judged {
                    output: c.output,
                    problems: c.problems,
                    elapsed: c.elapsed,
                }
            }
            None => one_run(&built, &spec, accel, &tasks)?,
        };
        let Judged {
            output,
            mut problems,
            elapsed,
        } = run;
        let log = workspace::root().join(format!("target/test-logs/{name}.{accel}.log"));
        let _ = std::fs::create_dir_all(log.parent().expect("log has a parent"));
        let _ = std::fs::write(&log, &output);
        if let Err(e) = disks::check(&built.manifest, &disks::image_path(&built.manifest)) {
            problems.push(e);
        }
        if problems.is_empty() {
            println!(
                "guest {name} [{accel}] ... ok ({:.1} s)",
                elapsed.as_secs_f64()
            );
            tally.passed += 1;
        } else {
            println!(
                "guest {name} [{accel}] ... FAILED ({:.1} s)",
                elapsed.as_secs_f64()
            );
            for p in &problems {
                println!("    - {p}");
            }
            println!("    console log: {}; last lines:", log.display());
            let lines: Vec<&str> = output.lines().collect();
            for l in &lines[lines.len().saturating_sub(15)..] {
                println!("    | {l}");
            }
            tally.failed += 1;
            tally.failures.push(format!("guest {name} [{accel}]"));
        }
    }
    Ok(())
}

/// A run's console, what is wrong with it, and how long it took.
struct Judged {
    output: String,
    problems: Vec<String>,
    elapsed: Duration,
}

/// One boot, judged by the oracle.
fn one_run(
    built: &image::Built,
    spec: &TestSpec,
    accel: Accel,
    tasks: &[&str],
) -> Result<Judged, String> {
    let timeout = Duration::from_secs(spec.timeout_secs.into());
    let mut run = qemu::run_captured_full(
        built,
        accel,
        timeout,
        &spec.kernel_args,
        &spec.nmi_after_ms,
        spec.input.as_bytes(),
        None,
        exchanges::beside(&built.manifest, timeout)?,
    )?;
    // The runner's source lines for kernel faults count as console
    // output, so a test can check them too.
    for l in symbolize::annotate(&run.output, &built.kernel) {
        run.output.push_str(&l);
        run.output.push('\n');
    }
    let mut problems = oracle::judge_end(spec, tasks, &run.output, run.status, run.stopped);
    problems.extend(run.beside.take().into_iter().flat_map(|b| b.problems));
    if run.nmis_injected < spec.nmi_after_ms.len() {
        problems.push(format!(
            "the runner injected {} of the {} NMIs in `nmi_after_ms` (see the [runner] lines of the log)",
            run.nmis_injected,
            spec.nmi_after_ms.len()
        ));
    }
    Ok(Judged {
        output: run.output,
        problems,
        elapsed: run.elapsed,
    })
}

/// Host tests (unless filtered), then every guest test; prints one closing tally line.
pub fn run_all(filter: Option<&str>) -> Result<(), String> {
    let mut tally = Tally::default();
    if filter.is_none() {
        host_test::run(&mut tally);
    }
    qemu::find_qemu()?;
    workspace::check_unique_names()?;
    for path in workspace::manifests_in(&workspace::tests_dir()) {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        if let Err(e) = run_system(&path, &mut tally) {
            println!("guest {name} ... FAILED\n    - {e}");
            tally.failed += 1;
            tally.failures.push(format!("guest {name}"));
        }
    }
    // The short soak, after the guest tests (`cargo make test soak` runs it alone).
    if filter.is_none_or(|f| "soak".contains(f)) {
        soak::in_tests(&mut tally);
    }
    // The Linux peer's smoke boot (`cargo make test linux-peer` alone).
    if filter.is_none_or(|f| "linux-peer".contains(f)) {
        crate::linux_peer::smoke::in_tests(&mut tally);
    }
    println!();
    for f in &tally.failures {
        println!("failed: {f}");
    }
    let skipped = if tally.skipped > 0 {
        format!(", {} skipped", tally.skipped)
    } else {
        String::new()
    };
    println!("{} passed, {} failed{skipped}", tally.passed, tally.failed);
    if tally.failed > 0 {
        return Err(format!("{} test(s) failed", tally.failed));
    }
    Ok(())
}
