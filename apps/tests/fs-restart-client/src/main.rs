//! File-server restart test. The client writes files of three 4 KiB
//! chunks, each fsynced, into `/fsr`; in system `fs-restart` the server
//! faults on purpose in the fsync of a later file, while that file's
//! writes sit unsynced in the server's cache and some of them are on the
//! device. The client's outstanding fsync must
//! fail with `ServerRestarted` (not hang, not succeed), the client
//! reconnects to the restarted server, every file fsynced before the fault
//! must read back with its CRC, handles from before are gone, and the
//! workload goes on to the end. The runner checks the disk with e2fsck.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod files;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Files the workload writes; the server faults in the fsync of the ninth
/// (after 8 fsyncs: see `servers/fs/server/src/fault.rs`).
const FILES: u32 = 16;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    c.eq("mkdir /fsr", fs.mkdir("/fsr", 0o755), Ok(()));
    let mut durable = 0;
    let mut failed = None;
    for n in 0..FILES {
        match files::write(&mut fs, n) {
            Ok(_) => durable = n + 1,
            Err((stale, e)) => {
                failed = Some((n, stale, e));
                break;
            }
        }
    }
    let Some((at, stale, e)) = failed else {
        println!("CHECK FAILED: the file server never restarted during the workload");
        c.finish()
    };
    c.eq(
        "the outstanding call failed with a clean error",
        e,
        Error::ServerRestarted,
    );
    println!("the server died while file {at} was being written ({durable} files fsynced before)");
    // `Fs::reconnect` tries again while the kernel still reports the old
    // instance (the first call through a stale capability refreshes it).
    c.eq("reconnect to the restarted server", fs.reconnect(), Ok(()));
    c.eq(
        "a handle from before the restart is gone",
        fs.close(stale),
        Err(Error::Fs(FsError::BadHandle)),
    );
    let intact = (0..durable).filter(|n| files::check(&mut fs, *n)).count() as u32;
    c.eq(
        "every file fsynced before the fault is intact",
        intact,
        durable,
    );
    let mut rest = true;
    for n in at..FILES {
        rest &= files::write(&mut fs, n).is_ok();
    }
    c.that("the workload carried on to the end", rest, at);
    let all = (0..FILES).filter(|n| files::check(&mut fs, *n)).count() as u32;
    c.eq("every file reads back with its CRC", all, FILES);
    c.eq("shut the file server down", fs.shutdown(), Ok(()));
    c.finish()
}
