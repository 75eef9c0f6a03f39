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
//! The same task runs in both systems; the runner names the
//! configuration from the system (one CPU, or the server alone on CPU 1)
//! and the metric's prefix. The task shuts the server down at the end.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

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
/// Timed samples per metric, after [`WARMUP`] untimed ones.
const ROUNDS: usize = 2_000;
const WARMUP: usize = 200;

fn timed(
    metric: &'static str,
    per: u64,
    mut op: impl FnMut() -> Result<(), Error>,
) -> Result<(), Error> {
    let mut s = Samples::new(metric, ROUNDS);
    for i in 0..WARMUP + ROUNDS {
        let t0 = rdtsc();
        op()?;
        let dt = rdtsc() - t0;
        if i >= WARMUP {
            s.push(dt / per);
        }
    }
    s.report();
    Ok(())
}

fn sync(fs: &mut Fs) -> Result<(), Error> {
    timed("sync_nop_latency", 1, || fs.call(ops::NOP, &[]).map(drop))?;
    timed("sync_nop_per_op", u64::from(BATCH), || {
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

fn rings(fs: &mut Fs) -> Result<(), Error> {
    let mut nop = |fs: &mut Fs| fs.ring_submit(ops::NOP, &[]).map(drop);
    timed("ring_nop_latency", 1, || batch(fs, 1, &mut nop))?;
    timed("ring_nop_per_op", u64::from(BATCH), || {
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
    timed("ringc_nop_latency", 1, || batch(fs, 1, &mut single))?;
    let mut full = |fs: &mut Fs| fs.ring_submit_compound(&many, &[]).map(drop);
    timed("ringc_nop_per_op", u64::from(BATCH * BATCH), || {
        batch(fs, BATCH, &mut full)
    })
}

fn main() {
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let result = (|| {
        sync(&mut fs)?;
        fs.ring_open(config::caps::RING, config::caps::RING_ADDR)?;
        rings(&mut fs)?;
        fs.shutdown()
    })();
    match result {
        Ok(()) => println!("ringbench: done"),
        Err(e) => println!("CHECK FAILED: ringbench: {e}"),
    }
}
