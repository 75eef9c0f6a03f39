//! Runaway client (test fs-fair), less urgent than the file server: each
//! time it is told to go it runs one kind of compound, one after another,
//! until one is cancelled (the latency client detaches this session
//! through a capability with this client's badge); then it connects
//! again and says it is done. The kinds, in order ([`PHASES`]): a tight
//! loop asking for every step the server allows (each such compound that
//! ends must have used exactly the server's step limit), then endless
//! loops of `pwrite`s of 4 KiB, 64 KiB and 1 MiB from its data region.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{O_CREAT, O_RDWR, PWRITE};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use cosy_abi::typed::Failure;
use cosy_abi::{code, Builder, Cmp};

conflux_userlib::entry!(main);

/// More compounds than a phase can take: each phase ends by cancelling one.
const MOST: u32 = 100_000;

/// The compounds, one kind per phase: 0 spins, the others write this many
/// bytes per `pwrite`.
pub const PHASES: [u32; 4] = [0, 4 << 10, 64 << 10, 1 << 20];

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    for (phase, &size) in PHASES.iter().enumerate() {
        let Some(compound) = compound(&mut fs, size) else {
            c.that("set up the runaway compound", false, size);
            break;
        };
        let _ = Notification(config::caps::GO).wait();
        let (ran, last) = run_until_cancelled(&mut fs, &compound, size == 0);
        println!("phase {phase}: {ran} runaway compounds ran before one was cancelled");
        c.that(
            &format!("phase {phase}: runaway compounds ran until one was cancelled"),
            last.is_ok(),
            last,
        );
        // The latency client ended this session: start a new one.
        c.eq(&format!("phase {phase}: reconnect"), fs.reconnect(), Ok(()));
        let _ = Notification(config::caps::DONE).signal();
    }
    c.finish()
}

/// The compound of a phase: a tight loop, or `pwrite`s of `size` bytes
/// of the data region at offset 0 of `/runaway`, for ever.
fn compound(fs: &mut Fs, size: u32) -> Option<Vec<u8>> {
    let mut b = Builder::new();
    b.step_budget(u32::MAX);
    let (top, short) = (b.label(), b.label());
    b.bind(top);
    if size > 0 {
        if fs.data(1).is_none() {
            fs.attach(config::caps::DATA, config::caps::DATA_ADDR)
                .ok()?;
        }
        let fd = fs.open("/runaway", O_CREAT | O_RDWR, 0o644).ok()?;
        let (buf, n) = (b.buf(1, 0, size), b.reg());
        b.call(n, PWRITE, (fd.0, buf, u64::from(size), 0u64));
        // A short or failed write ends the run, so the test sees it.
        b.branch(Cmp::Ne, n, u64::from(size), short);
    }
    b.jump(top);
    b.bind(short);
    b.exit(1);
    b.build().ok()
}

/// The steps the last run of `compound` used, from its results area.
fn steps_used(fs: &mut Fs, compound: &[u8]) -> Option<u64> {
    let at = fs.compound_offset(compound.len())?;
    let bytes = fs.control().get(at..at + compound.len())?;
    let view = cosy_abi::Compound::new_checked(bytes).ok()?;
    Some(u64::from(view.report().steps))
}

/// Runs `compound` until the server cancels one; how many ended first,
/// and whether the phase ended as it should.
fn run_until_cancelled(fs: &mut Fs, compound: &[u8], spins: bool) -> (u32, Result<(), String>) {
    for ran in 0..MOST {
        match fs.run(compound, &[]) {
            // The budget stops it: an error naming the op it reached,
            // after every step the server allows if it spins.
            Err(Error::Compound(stop))
                if stop.error == Failure::Abi(code::BUDGET_EXHAUSTED)
                    && stop.op.is_some()
                    && (!spins || steps_used(fs, compound) == Some(fs.max_steps())) => {}
            Ok(r) => return (ran, Err(format!("{r:?}"))),
            Err(Error::Fs(FsError::Cancelled)) => return (ran, Ok(())),
            Err(e) => return (ran, Err(format!("{e:?}"))),
        }
    }
    (MOST, Err(String::from("never cancelled")))
}
