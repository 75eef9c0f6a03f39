//! A client of the file server's rings whose server dies with entries in
//! flight (tests fs-ring-restart and fs-ring-restart-2cpu). It writes
//! files through the ring, each fsynced; then it writes one more as a
//! batch (two pwrites, the fsync, NOPs behind it) and the server, in
//! these systems only, faults in that fsync's write-back. The wait for
//! the unanswered entries must end in a clear error, not sleep for ever;
//! `Fs::reconnect` must open the rings again in their region, with
//! nothing left in flight and no ticket from before the restart given
//! out again; then single entries and a compound entry work through the
//! same rings, every file fsynced before the fault reads back intact,
//! several more reconnects each leave the rings served, and one more
//! data region still attaches as region 2 (the ring region was never
//! attached twice). The workload then carries on to the end.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod files;
mod ring;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use cosy_abi::ring::DEPTH;

conflux_userlib::entry!(main);

/// Files written and fsynced before the fault: the server dies in the
/// next fsync (after 8: `servers/fs/server/src/fault.rs`).
const BEFORE: u32 = 8;
/// Files of the whole workload.
const FILES: u32 = 12;
/// Reconnects after the first, with the server alive.
const AGAIN: u32 = 3;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    c.eq(
        "the ring region is attached and named",
        fs.ring_open(config::caps::RING, config::caps::RING_ADDR),
        Ok(1),
    );
    c.eq("mkdir /frr", fs.mkdir("/frr", 0o755), Ok(()));
    let durable = (0..BEFORE)
        .take_while(|n| files::write(&mut fs, *n).is_ok())
        .count() as u32;
    c.eq(
        "files written and fsynced through the ring",
        durable,
        BEFORE,
    );
    let doomed = match files::doomed_batch(&mut fs, BEFORE) {
        Ok(d) => d,
        Err(e) => {
            println!("CHECK FAILED: the batch the server should die in was not submitted: {e}");
            c.finish()
        }
    };
    let Some(ended) = doomed.ended else {
        println!("CHECK FAILED: the file server never died: every entry of the batch was answered");
        c.finish()
    };
    println!(
        "the server died with {} of the batch's {} entries unanswered; the wait for them ended with: {ended}",
        doomed.lost.len(),
        doomed.submitted
    );
    c.that(
        "the wait for entries the dead server never answered ends in a clear error, not a hang",
        matches!(
            ended,
            Error::ServerRestarted | Error::Fs(FsError::NotConnected)
        ),
        ended,
    );
    c.eq(
        "reconnect to the restarted server, rings included",
        fs.reconnect(),
        Ok(()),
    );
    after_reconnect(&mut c, &mut fs, &doomed.lost);
    c.eq("shut the file server down", fs.shutdown(), Ok(()));
    c.finish()
}

fn after_reconnect(c: &mut Checks, fs: &mut Fs, lost: &[conflux_fs_client::Ticket]) {
    c.eq(
        "the lost entries are in flight no more",
        fs.ring_in_flight(),
        Ok(0),
    );
    let waited = fs.ring_wait();
    c.that(
        "so waiting now is an error, not a hang",
        matches!(waited, Err(Error::NothingInFlight)),
        waited,
    );
    let fresh = ring::nops(fs, DEPTH);
    c.that(
        "the same rings serve again: 32 NOPs, no ticket from before the restart among them",
        fresh
            .as_ref()
            .is_ok_and(|t| t.len() == DEPTH as usize && t.iter().all(|t| !lost.contains(t))),
        fresh.map(|t| t.len()),
    );
    let intact = (0..BEFORE).filter(|n| files::check(fs, *n)).count() as u32;
    c.eq(
        "every file fsynced before the fault is intact, read through the ring",
        intact,
        BEFORE,
    );
    c.eq(
        "a compound through the ring works again: open, pwrite, fsync, close",
        files::write_by_compound(fs, BEFORE),
        Ok(u64::from(files::LEN)),
    );
    c.that(
        "and its file reads back with its CRC",
        files::check(fs, BEFORE),
        BEFORE,
    );
    let served = (0..AGAIN)
        .filter(|_| fs.reconnect().is_ok() && ring::nops(fs, DEPTH).is_ok_and(|t| t.len() == 32))
        .count() as u32;
    c.eq(
        "reconnected 3 more times, the rings served after each",
        served,
        AGAIN,
    );
    c.eq(
        "one more data region attaches, as region 2: the ring region was not attached twice",
        fs.attach(config::caps::SPARE, config::caps::SPARE_ADDR),
        Ok(2),
    );
    let rest = (BEFORE + 1..FILES)
        .take_while(|n| files::write(fs, *n).is_ok())
        .count() as u32;
    c.eq(
        "the workload carried on to the end through the ring",
        rest,
        FILES - BEFORE - 1,
    );
    let all = (0..FILES).filter(|n| files::check(fs, *n)).count() as u32;
    c.eq("every file reads back with its CRC", all, FILES);
}
