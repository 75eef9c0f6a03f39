//! Bystander client (test fs-fair): less urgent than the file server and
//! as urgent as the runaway client. Each time the latency client says
//! go, it times `stat` ([`ROUNDS`] of them): first with the server idle,
//! then once during each of the runaway client's phases, and writes the
//! p99 into the report region the latency client reads (word 0 idle,
//! word 1 + phase loaded). Without the server running a less urgent
//! client's slices at that client's priority, this task would not run at
//! all while a compound runs.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use conflux_fs_client::Fs;
use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::println;
use conflux_userlib::testing::{percentile, timed, Checks};

conflux_userlib::entry!(main);

/// Stats timed each time.
const ROUNDS: usize = 100;
/// The idle round and one per runaway phase.
const REPORTS: u64 = 5;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let report = Region(config::caps::REPORT)
        .premapped(config::caps::REPORT_ADDR, config::caps::REPORT_SIZE);
    for i in 0..REPORTS {
        let _ = Notification(config::caps::BY_GO).wait();
        let mut failed = 0;
        let times = timed(ROUNDS, || {
            failed += usize::from(fs.stat("/README").is_err())
        });
        let p99 = percentile(&times, 99);
        c.eq(&alloc::format!("round {i}: every stat answered"), failed, 0);
        println!("round {i}: stat p99 {p99} (TSC; instructions under icount)");
        c.eq(
            &alloc::format!("round {i}: report it"),
            report.write_u64(i * 8, p99).is_ok(),
            true,
        );
        let _ = Notification(config::caps::BY_READY).signal();
    }
    c.finish()
}
