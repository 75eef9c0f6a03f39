//! The rings benchmark's guest side (`cargo make bench rings`, systems
//! `ringbench` and `ringbench-2cpu`): the file server's null operation
//! (NOP) by synchronous IPC and through its rings, as FlexSC measured
//! its null system call against exception-less submission.
//!
//! Metrics (TSC cycles under tcg; the runner turns `*_per_op` into rates):
//!
//! - `sync_nop_latency`: one VAN NOP, call to reply.
//! - `sync_nop_per_op`: a run of [`BATCH`] VAN NOPs back to back, per op.
//! - `ring_nop_latency`: one NOP entry submitted, the doorbell if the
//!   server asked, and waited for.
//! - `ring_nop_per_op`: [`BATCH`] NOP entries in flight (the depth),
//!   submitted, then reaped; per op.
//! - `ringc_nop_latency`: one compound entry of one NOP call.
//! - `ringc_nop_per_op`: [`BATCH`] compound entries of [`BATCH`] NOP
//!   calls each in flight; per NOP.
//!
//! Then dbsim and `ls -l` through each path, one request at a time
//! ([`workloads`]: `<path>_dbsim_latency`, `<path>_ls_l_latency`, the
//! path one of `sync`, `syncc` (a compound by IPC), `ring`, `ringc`), and
//! the many-client dbsim against N clients ([`many`]) if the manifest
//! starts client tasks.
//!
//! The same task runs in both systems; the runner names the
//! configuration from the system (one CPU, or the server alone on CPU 1)
//! and the metric's prefix. The task shuts the server down at the end.
//! In a system whose name ends in `-smoke` (the guest test
//! `ringbench-smoke`) every measurement runs a few rounds only: the test
//! checks the answers, not the times.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::format;

mod many;
mod workloads;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops;
use conflux_userlib::bench::Samples;
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use cosy_abi::ring::DEPTH;
use cosy_abi::Builder;

conflux_userlib::entry!(main);

/// Operations per timed batch: the rings' depth.
const BATCH: u32 = DEPTH;

/// How much each measurement runs.
pub struct Sizes {
    /// Timed samples per metric, after `warmup` untimed ones.
    pub rounds: usize,
    pub warmup: usize,
}

/// The NOP's sizes.
const NOP: Sizes = Sizes {
    rounds: 2_000,
    warmup: 200,
};
/// dbsim's and `ls -l`'s, one client: a request is 48 or 200 operations.
const WORKLOADS: Sizes = Sizes {
    rounds: 100,
    warmup: 10,
};
/// The smoke test's, for everything.
const SMOKE: Sizes = Sizes {
    rounds: 3,
    warmup: 1,
};
/// Clients in the many-client runs (as many as the manifest starts, at
/// most), and each client's requests per run.
const CLIENTS: [usize; 5] = [1, 2, 4, 8, 16];
const REQUESTS: usize = 60;
const SMOKE_REQUESTS: usize = 4;

fn timed(
    metric: &'static str,
    per: u64,
    sizes: &Sizes,
    mut op: impl FnMut() -> Result<(), Error>,
) -> Result<(), Error> {
    let mut s = Samples::new(metric, sizes.rounds);
    for i in 0..sizes.warmup + sizes.rounds {
        let t0 = rdtsc();
        op()?;
        let dt = rdtsc() - t0;
        if i >= sizes.warmup {
            s.push(dt / per);
        }
    }
    s.report();
    Ok(())
}

fn sync(fs: &mut Fs, sizes: &Sizes) -> Result<(), Error> {
    timed("sync_nop_latency", 1, sizes, || {
        fs.call(ops::NOP, &[]).map(drop)
    })?;
    timed("sync_nop_per_op", u64::from(BATCH), sizes, || {
        for _ in 0..BATCH {
            fs.call(ops::NOP, &[])?;
        }
        Ok(())
    })
}

/// Submits `n` entries made by `submit`, rings if asked, reaps `n`.
fn batch(
    fs: &mut Fs,
    n: u32,
    submit: &mut impl FnMut(&mut Fs) -> Result<(), Error>,
) -> Result<(), Error> {
    for _ in 0..n {
        submit(fs)?;
    }
    fs.ring_flush()?;
    for _ in 0..n {
        let r = fs.ring_wait()?;
        if !r.completion.is_ok() {
            println!(
                "CHECK FAILED: a ring entry answered {:#x}",
                r.completion.status
            );
            return Err(Error::Request(r.completion.status));
        }
    }
    Ok(())
}

fn rings(fs: &mut Fs, sizes: &Sizes) -> Result<(), Error> {
    let mut nop = |fs: &mut Fs| fs.ring_submit(ops::NOP, &[]).map(drop);
    timed("ring_nop_latency", 1, sizes, || batch(fs, 1, &mut nop))?;
    timed("ring_nop_per_op", u64::from(BATCH), sizes, || {
        batch(fs, BATCH, &mut nop)
    })?;

    let compound = |calls: u32| {
        let mut b = Builder::new();
        for _ in 0..calls {
            b.call_void(ops::NOP, ());
        }
        b.build().map_err(|_| Error::TooLarge)
    };
    let one = compound(1)?;
    let many = compound(BATCH)?;
    let mut single = |fs: &mut Fs| fs.ring_submit_compound(&one, &[]).map(drop);
    timed("ringc_nop_latency", 1, sizes, || batch(fs, 1, &mut single))?;
    let mut full = |fs: &mut Fs| fs.ring_submit_compound(&many, &[]).map(drop);
    timed("ringc_nop_per_op", u64::from(BATCH * BATCH), sizes, || {
        batch(fs, BATCH, &mut full)
    })
}

fn main() {
    let smoke = config::SYSTEM_NAME.ends_with("-smoke");
    let (nop, workloads, requests) = match smoke {
        true => (&SMOKE, &SMOKE, SMOKE_REQUESTS),
        false => (&NOP, &WORKLOADS, REQUESTS),
    };
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let result = (|| {
        sync(&mut fs, nop).map_err(|e| format!("the NOP by IPC: {e}"))?;
        fs.ring_open(config::caps::RING, config::caps::RING_ADDR)
            .map_err(|e| format!("open the rings in region `ring`: {e}"))?;
        rings(&mut fs, nop).map_err(|e| format!("the NOP through the rings: {e}"))?;
        workloads::run(&mut fs, workloads)
    })();
    // After a failure the clients are only told to quit, so the system
    // ends.
    let counts: &[usize] = if result.is_ok() { &CLIENTS } else { &[] };
    let many = many::run(counts, requests);
    if let Err(e) = &many {
        println!("CHECK FAILED: ringbench: the many-client dbsim: {e}");
    }
    // The server is shut down whatever happened, so the system ends.
    let shutdown = fs
        .shutdown()
        .map_err(|e| format!("shut the file server down: {e}"));
    let result = result.and(shutdown);
    match (result, many) {
        (Ok(()), Ok(())) => println!("ringbench: done"),
        (Err(e), _) => println!("CHECK FAILED: ringbench: {e}"),
        (Ok(()), Err(_)) => {}
    }
}
