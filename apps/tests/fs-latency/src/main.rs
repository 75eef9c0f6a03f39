//! Latency client (test fs-fair), as urgent as the file server, and the
//! test's conductor. It times `stat` idle, and `pwrite`s of each size the
//! runaway client will write; then, for each of the runaway client's
//! phases (a tight loop, then endless `pwrite`s of 4 KiB, 64 KiB and
//! 1 MiB: see test-fs-runaway), it times `stat` again while that compound
//! runs, lets the bystander (less urgent than the server) do the same,
//! and judges both p99s: each may exceed its idle p99 by at most one
//! slice of the compound and the call in flight (see [`allowance`]).
//! Times are TSC deltas; under icount the TSC counts guest instructions,
//! so the figures do not depend on the host's load. Each phase ends with
//! the runaway session answering `Busy` to a request made through a
//! capability with its badge and the compound cancelled by detaching
//! that session; at the end it shuts the server down.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, Operand};
use conflux_fs_protocol::ipc::{self, SLICE_TSC, VAN_BASE};
use conflux_fs_protocol::ops::{O_CREAT, O_RDWR, PWRITE, STAT};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{Endpoint, Message, Notification, Region};
use conflux_userlib::println;
use conflux_userlib::testing::{percentile, timed, Checks};

conflux_userlib::entry!(main);

/// Stats timed in each phase.
const ROUNDS: usize = 200;

/// The runaway client's phases: 0 spins, the others write this many bytes
/// per `pwrite` (the same list as test-fs-runaway's).
const PHASES: [u32; 4] = [0, 4 << 10, 64 << 10, 1 << 20];

/// What the slicing itself may add to a `stat`'s p99, in instructions
/// (icount), beside the slice's own time: the idle p99 itself, or this
/// much if more. One slice of the runaway loop (128 steps) and the
/// server's turn around it added 6,300 to 6,400 at p99 (2026-11-25);
/// this is 2.5 times that. Without slices the whole budget of a million
/// steps (tens of millions of instructions) would be added.
const ALLOWANCE: u64 = 16_000;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let _ = stat_p99(&mut fs); // warm the cache
    let idle = stat_p99(&mut fs);
    let writes = write_costs(&mut c, &mut fs);
    let by_idle = bystander_round();
    println!(
        "stat p99 idle: {idle} here, {by_idle} for the bystander (TSC; instructions under icount)"
    );
    for (phase, (&size, &write)) in PHASES.iter().zip(&writes).enumerate() {
        let _ = Notification(config::caps::GO).signal();
        c.that(
            &format!("phase {phase}: the runaway client's compound is running"),
            busy(),
            (),
        );
        let loaded = stat_p99(&mut fs);
        let by_loaded = bystander_round();
        let what = match size {
            0 => String::from("a tight loop"),
            s => format!("pwrites of {} KiB", s >> 10),
        };
        println!(
            "phase {phase} ({what}): stat p99 {loaded} here (idle {idle}), {by_loaded} for the bystander (idle {by_idle}); one such pwrite costs {write}"
        );
        c.that(
            &format!("phase {phase}: stat p99 under {what} within the idle p99 plus one slice"),
            loaded <= idle + allowance(idle, write),
            (idle, loaded, write),
        );
        c.that(
            &format!("phase {phase}: a less urgent client's stat p99 under {what} within its idle p99 plus one slice"),
            by_loaded <= by_idle + allowance(by_idle, write),
            (by_idle, by_loaded, write),
        );
        c.that(
            &format!("phase {phase}: its session answers Busy meanwhile"),
            busy(),
            (),
        );
        c.eq(
            &format!("phase {phase}: detach its session: the compound is cancelled"),
            twin(&Message::new(ipc::DETACH, &[])),
            Ok(()),
        );
        let _ = Notification(config::caps::DONE).wait();
    }
    c.eq("shut the server down", fs.shutdown(), Ok(()));
    c.finish()
}

/// What a compound may add to a `stat`'s p99: one slice's time, the call
/// in flight when it ends (at most twice `write`, the measured cost of
/// one), and the slicing's own overhead (`ALLOWANCE`, or the idle p99).
/// Before slices were bounded by work, a slice of 4 KiB `pwrite`s was 127
/// of them, and a less urgent client did not run at all.
fn allowance(idle: u64, write: u64) -> u64 {
    match write {
        // A tight loop's slices end at their 128 steps, long before
        // SLICE_TSC.
        0 => idle.max(ALLOWANCE),
        _ => idle.max(ALLOWANCE) + SLICE_TSC + 2 * write,
    }
}

/// The 99th percentile of `ROUNDS` timed stats.
fn stat_p99(fs: &mut Fs) -> u64 {
    let times = timed(ROUNDS, || {
        if let Err(e) = fs.stat("/README") {
            println!("CHECK FAILED: stat /README: {e:?}");
        }
    });
    percentile(&times, 99)
}

/// The median cost of one `pwrite` of each phase's size (0 for the
/// spinning phase), from this client's own data region, idle.
fn write_costs(c: &mut Checks, fs: &mut Fs) -> Vec<u64> {
    let attached = fs.attach(config::caps::DATA, config::caps::DATA_ADDR);
    c.that("attach the data region", attached.is_ok(), attached);
    let fd = fs.open("/latency", O_CREAT | O_RDWR, 0o644);
    c.that("open /latency", fd.is_ok(), fd);
    let (Ok(region), Ok(fd)) = (attached, fd) else {
        return PHASES.iter().map(|_| 0).collect();
    };
    PHASES
        .iter()
        .map(|&size| {
            if size == 0 {
                return 0;
            }
            let buf = Operand::Buf {
                region,
                offset: 0,
                len: size,
            };
            let [fd, n, at] = [fd.0, u64::from(size), 0].map(Operand::Value);
            let times = timed(20, || {
                if let Err(e) = fs.call(PWRITE, &[fd, buf, n, at]) {
                    println!("CHECK FAILED: pwrite of {size} bytes: {e:?}");
                }
            });
            percentile(&times, 50)
        })
        .collect()
}

/// Lets the bystander time its stats (it runs only while this task waits)
/// and reads the p99 it reports.
fn bystander_round() -> u64 {
    static ROUND: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
    let round = ROUND.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    let _ = Notification(config::caps::BY_GO).signal();
    let _ = Notification(config::caps::BY_READY).wait();
    Region(config::caps::REPORT)
        .premapped(config::caps::REPORT_ADDR, config::caps::REPORT_SIZE)
        .read_u64(round * 8)
        .unwrap_or(u64::MAX)
}

/// A request on the runaway client's session.
fn twin(msg: &Message) -> Result<(), Error> {
    let reply = Endpoint(config::caps::FS_AS_RUNAWAY).call(msg)?;
    Error::from_status(reply.label, reply.words[0]).map_or(Ok(()), Err)
}

/// Whether the runaway session answers `Busy` to a stat within a few
/// tries (between two of its compounds it has none running). Between
/// tries this task sleeps a tick: the runaway client is less urgent, so
/// it runs only while this one waits.
fn busy() -> bool {
    let stat = Message::new(VAN_BASE + u32::from(STAT), &[0, 0]);
    let tick = Notification(config::caps::TICK);
    (0..100).any(|_| {
        let r = twin(&stat);
        if r != Err(Error::Fs(FsError::Busy)) && tick.timer(1).is_ok() {
            let _ = tick.wait();
        }
        r == Err(Error::Fs(FsError::Busy))
    })
}
