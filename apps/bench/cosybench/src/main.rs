//! Cosy benchmark task (`cargo make bench cosy`): the workloads of the
//! Cosy papers (FSL-02-01, HotOS 2003) — null loop, copy, grep, dbsim
//! (with 1, 2 and 4 processes: `crate::clients`), ls -l, bonnie —
//! and the file server's cost per operation (`cargo make bench fs-ops`:
//! [`fs_ops`]) against the real file server
//! (`servers/fs/server`, ext4 on virtio-blk), each in three configurations:
//!
//! - **VAN**: one IPC per file operation through `conflux-fs-client`'s
//!   typed calls, which copy data between the control region and the
//!   app's own buffers (what a system call's `copy_to_user` does).
//! - **COSY**: the workload as one compound in the control region, each
//!   operation's data copied between the operation's buffer and the
//!   app's buffer by the compound (`COPY`), as Cosy's compounds copied
//!   between kernel and user buffers.
//! - **COSY-FAST**: the same compound without those copies: the
//!   operations use the app's buffer in a data region the app attached
//!   (`cosybench_core::Config`).
//!
//! What runs comes from the plan file on the disk ([`plan`]), so the
//! benchmark system and the smoke test differ only in their disks. Each
//! workload is a module of its own; each writes its compound in one
//! function per configuration with `cosy!` (crate `cosy-macro`), from the same loop its VAN
//! configuration runs as ordinary Rust. Every run's result
//! is checked (the same answer in every configuration, a copy equal to
//! its source), so a figure is never that of wrong work; times go to the
//! console as record lines ([`measure`]) for the runner.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod bonnie;
mod clients;
mod copy;
mod dbsim;
mod fs_ops;
mod grep;
mod ls_l;
mod measure;
mod null_loop;
mod plan;

use alloc::vec::Vec;
use conflux_fs_client::{Error, Fs};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

use clients::Clients;

conflux_userlib::entry!(main);

/// Where the plan is (on the disk the manifest builds from a folder).
const PLAN: &str = "/plan";

/// What every workload runs with.
pub struct Bench {
    pub fs: Fs,
    /// The attached data region's number in buffer operands.
    pub data: u8,
    pub checks: Checks,
    /// The client tasks of dbsim's multi-process runs.
    pub clients: Clients,
}

impl Bench {
    /// A workload's COSY compound (`build(None)`: in the control region,
    /// its data copied to and from the app's buffer) and COSY-FAST
    /// compound (`build(Some(data region))`); `None`, with a failed check
    /// naming `workload`, if either does not build.
    pub fn compounds<E: core::fmt::Debug>(
        &mut self,
        workload: &str,
        build: impl Fn(Option<u8>) -> Result<Vec<u8>, E>,
    ) -> Option<(Vec<u8>, Vec<u8>)> {
        match (build(None), build(Some(self.data))) {
            (Ok(cosy), Ok(fast)) => Some((cosy, fast)),
            (c, f) => {
                let what = alloc::format!("{workload}: build the compounds");
                self.checks.that(&what, false, (c.err(), f.err()));
                None
            }
        }
    }

    /// Runs `compound` once after `place` wrote its inputs into `region`
    /// (0: the control region, else the data region); its exit value.
    /// `TooLarge` if `place` finds no room there.
    pub fn run_compound(
        &mut self,
        region: u8,
        compound: &[u8],
        place: impl FnOnce(&mut [u8]) -> bool,
    ) -> Result<u64, Error> {
        cosybench_core::run_in(&mut self.fs, region, compound, place)
    }
}

fn main() {
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let data = match fs.attach(config::caps::FS_DATA, config::caps::FS_DATA_ADDR) {
        Ok(n) => n,
        Err(e) => {
            println!("CHECK FAILED: attach the data region fs_data: {e}; the benchmark stops");
            conflux_userlib::sys::exit(1)
        }
    };
    let mut bench = Bench {
        fs,
        data,
        checks: Checks::new(),
        clients: Clients::new(
            config::caps::COSYBENCH_COORD,
            config::caps::FIRST_FREE,
            &config::TASK_NAMES,
        ),
    };
    let text = match plan::read(&mut bench.fs, PLAN) {
        Ok(t) => t,
        Err(e) => {
            println!("CHECK FAILED: read the plan {PLAN}: {e}; the benchmark stops");
            conflux_userlib::sys::exit(1)
        }
    };
    for line in text.lines() {
        match plan::Step::parse(line) {
            Ok(None) => {}
            Ok(Some(step)) => run(&mut bench, &step),
            Err(e) => {
                let what = alloc::format!("plan line `{line}`: {e}");
                bench.checks.that(&what, false, ())
            }
        }
    }
    let quit = bench.clients.quit();
    let what = alloc::format!("tell the {} client tasks to quit", bench.clients.count());
    bench.checks.eq(&what, quit, Ok(()));
    let down = bench.fs.shutdown();
    bench.checks.eq("shut the file server down", down, Ok(()));
    bench.checks.finish()
}

fn run(bench: &mut Bench, step: &plan::Step<'_>) {
    println!("{} ({} rounds)", step.workload, step.rounds);
    match step.workload {
        plan::Workload::NullLoop => null_loop::run(bench, step),
        plan::Workload::Copy => copy::run(bench, step),
        plan::Workload::Grep => grep::run(bench, step),
        plan::Workload::Dbsim => dbsim::run(bench, step),
        plan::Workload::LsL => ls_l::run(bench, step),
        plan::Workload::Bonnie => bonnie::run(bench, step),
        plan::Workload::FsOps => fs_ops::run(bench, step),
    }
}
