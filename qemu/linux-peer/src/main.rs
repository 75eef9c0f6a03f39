//! The Linux peer's workloads (`cargo make bench linux`): static Linux
//! programs of Conflux's benchmarks, run by the initramfs's `/init` on
//! Debian's Linux in the same QEMU machine Conflux's benchmarks use. They
//! time with the TSC and print record lines exactly as Conflux's in-guest
//! benchmarks do (`report`), so one parser in the runner reads both.
//!
//! Usage: `linux-peer [ipc ROUNDS] [fs-ops PLAN ROOT] [cosy PLAN ROOT]
//! [echo PORT URING_PORT]`:
//! the IPC anchors with ROUNDS recorded round trips each, the fs-ops plan
//! file PLAN (`plan`) or the Cosy plan file PLAN (`cosy::plan`) on the
//! disk mounted at ROOT (read before it). For both the program makes
//! ROOT its root (`chroot`), so it names the plan's paths exactly as
//! Conflux's task does (`/fsops/file-1k.bin`: the same components to
//! walk, no mount point to cross). `echo PORT URING_PORT` serves TCP echo
//! through plain syscalls on PORT and through io_uring on URING_PORT
//! until the machine stops (`echo`). The last line says whether every
//! check held.

mod cosy;
mod echo;
mod fs_ops;
mod ipc;
mod plan;
mod report;
mod ring;

use report::{say, Checks};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut checks = Checks::default();
    if let Err(e) = run(&args, &mut checks) {
        checks.that("the command line", false, e);
    }
    say(&checks.summary());
}

/// Makes `root` the root directory and the working directory.
fn enter(root: &str) -> Result<(), String> {
    let path = std::ffi::CString::new(root).map_err(|e| format!("ROOT `{root}`: {e}"))?;
    // Safety: `path` is NUL-terminated and outlives the call.
    let r = unsafe { libc::chroot(path.as_ptr()) };
    if r != 0 {
        return Err(format!(
            "chroot {root}: {} (the fs-ops run needs root privileges)",
            std::io::Error::last_os_error()
        ));
    }
    std::env::set_current_dir("/").map_err(|e| format!("chdir / in {root}: {e}"))
}

/// Runs the suites `args` name, in order.
fn run(args: &[String], checks: &mut Checks) -> Result<(), String> {
    let usage =
        "usage: linux-peer [ipc ROUNDS] [fs-ops PLAN ROOT] [cosy PLAN ROOT] [echo PORT URING_PORT]";
    let mut rest = args;
    while let Some(word) = rest.first() {
        match (word.as_str(), &rest[1..]) {
            ("ipc", [rounds, tail @ ..]) => {
                let rounds = rounds
                    .parse()
                    .map_err(|_| format!("ipc ROUNDS `{rounds}` is not a whole number; {usage}"))?;
                ipc::run(checks, rounds);
                rest = tail;
            }
            ("fs-ops", [plan, root, tail @ ..]) => {
                let text = std::fs::read_to_string(plan)
                    .map_err(|e| format!("cannot read the plan {plan}: {e}"))?;
                let steps = plan::parse(&text)?;
                enter(root)?;
                fs_ops::run(checks, &steps);
                rest = tail;
            }
            ("cosy", [plan, root, tail @ ..]) => {
                let text = std::fs::read_to_string(plan)
                    .map_err(|e| format!("cannot read the Cosy plan {plan}: {e}"))?;
                let steps = cosy::plan::parse(&text)?;
                enter(root)?;
                cosy::run(checks, &steps);
                rest = tail;
            }
            ("echo", [port, uring_port, ..]) => {
                let parse = |p: &String| {
                    p.parse()
                        .map_err(|_| format!("echo port `{p}` is not a TCP port; {usage}"))
                };
                return Err(echo::serve_both(parse(port)?, parse(uring_port)?));
            }
            _ => return Err(format!("`{}` is not understood; {usage}", rest.join(" "))),
        }
    }
    Ok(())
}
