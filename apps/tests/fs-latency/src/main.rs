//! Latency client (test fs-fair): the p99 of `stat` while another client
//! runs runaway compounds may exceed its idle p99 by about one slice of
//! that compound at most, since the server runs compounds in slices and
//! serves other requests between them (see [`ALLOWANCE`]). Times are TSC deltas; under icount the TSC counts guest
//! instructions, so the figures do not depend on the host's load. Then,
//! through a capability with the runaway client's badge, it sees that
//! session answer `Busy` while a compound runs, and cancels the compound
//! by detaching the session; at the end it shuts the server down.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ipc::{self, VAN_BASE};
use conflux_fs_protocol::ops::STAT;
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::println;
use conflux_userlib::sys::{rdtsc, yield_now};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Stats timed in each phase.
const ROUNDS: usize = 200;

/// What a runaway compound may add to a `stat`'s p99, in instructions
/// (icount): the idle p99 itself, or this much if more. One slice of the
/// runaway loop (128 steps) and the server's turn around it added 6,300 to
/// 6,400 at p99 (2026-11-25, with a `stat` of 13,400 and, after the file
/// server's metadata caches, of 5,000); this is 2.5 times that. Without
/// slices the whole budget of a million steps (tens of millions of
/// instructions) would be added.
const ALLOWANCE: u64 = 16_000;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let _ = p99(&mut fs); // warm the cache
    let idle = p99(&mut fs);
    let _ = Notification(config::caps::GO).signal();
    c.that("the runaway client's compound is running", busy(), ());
    let loaded = p99(&mut fs);
    println!("stat p99: idle {idle}, while a runaway compound runs {loaded} (TSC; instructions under icount)");
    c.that(
        "stat p99 under a runaway compound within the idle p99 plus one slice",
        loaded <= idle + idle.max(ALLOWANCE),
        (idle, loaded),
    );
    c.that("its session answers Busy meanwhile", busy(), ());
    c.eq(
        "detach its session: the compound is cancelled",
        twin(&Message::new(ipc::DETACH, &[])),
        Ok(()),
    );
    let _ = Notification(config::caps::DONE).wait();
    c.eq("shut the server down", fs.shutdown(), Ok(()));
    c.finish()
}

/// The 99th percentile of `ROUNDS` timed stats.
fn p99(fs: &mut Fs) -> u64 {
    let mut times: Vec<u64> = (0..ROUNDS)
        .map(|_| {
            let t0 = rdtsc();
            let r = fs.stat("/README");
            let dt = rdtsc() - t0;
            if r.is_err() {
                println!("CHECK FAILED: stat /README: {r:?}");
            }
            dt
        })
        .collect();
    times.sort_unstable();
    times[ROUNDS * 99 / 100 - 1]
}

/// A request on the runaway client's session.
fn twin(msg: &Message) -> Result<(), Error> {
    let reply = Endpoint(config::caps::FS_AS_RUNAWAY).call(msg)?;
    Error::from_status(reply.label, reply.words[0]).map_or(Ok(()), Err)
}

/// Whether the runaway session answers `Busy` to a stat within a few
/// tries (between two of its compounds it has none running).
fn busy() -> bool {
    let stat = Message::new(VAN_BASE + u32::from(STAT), &[0, 0]);
    (0..100).any(|_| {
        let r = twin(&stat);
        if r != Err(Error::Fs(FsError::Busy)) {
            yield_now();
        }
        r == Err(Error::Fs(FsError::Busy))
    })
}
