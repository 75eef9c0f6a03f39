//! The null loop (Cosy's `getpid` loop, FSL-02-01 §4.2): N calls of the
//! file server's `nop`, which does nothing, so what is timed is the cost
//! of calling: N IPCs (VAN) against one IPC running a counted loop of N
//! calls (COSY). There is no COSY-FAST, as in the paper: no data moves.
//!
//! The COSY compound is prepared once (verified by the server) and run
//! with N as its parameter, as an app would run a loop it uses often.

use alloc::format;
use alloc::vec::Vec;

use conflux_fs_client::Error;
use conflux_fs_protocol::ops::{self, NOP};
use cosy_abi::BuildError;
use cosy_macro::cosy;

use crate::measure::{self, Config};
use crate::plan::{self, Step};
use crate::Bench;

/// `for _ in 0..n { nop() }` written with `cosy!`, `n` its parameter
/// (r0); exit value: `n`, reached only if every call succeeded (a failed
/// `nop` stops the compound: `#[fail_fast]`).
pub fn compound() -> Result<Vec<u8>, BuildError> {
    cosy!(ops::TABLE => #[fail_fast] #[step_budget(u32::MAX)] |n| {
        for _ in 0..n {
            nop();
        }
        n
    })
    .build()
}

pub fn run(b: &mut Bench, step: &Step<'_>) {
    let prepared = compound()
        .map_err(|e| format!("{e}"))
        .and_then(|c| b.fs.prepare(&c).map_err(|e| format!("{e}")));
    let handle = match prepared {
        Ok(h) => h,
        Err(e) => return b.checks.that("null-loop: prepare the compound", false, e),
    };
    for param in &step.params {
        let Some(n) = plan::length(param) else {
            continue;
        };
        measure::rounds(
            b,
            "null-loop",
            param,
            step.rounds,
            &[Config::Van, Config::Cosy],
            |b, config| match config {
                Config::Van => van(b, n),
                _ => cosy(b, handle, n),
            },
        );
    }
}

/// N IPCs; the answer is how many returned 0.
fn van(b: &mut Bench, n: u64) -> Result<u64, Error> {
    let mut zeros = 0;
    for _ in 0..n {
        if b.fs.call(NOP, &[])? == 0 {
            zeros += 1;
        }
    }
    Ok(zeros)
}

/// One IPC; the answer is the loop's count, if it finished.
fn cosy(b: &mut Bench, handle: u64, n: u64) -> Result<u64, Error> {
    Ok(b.fs.run_prepared(handle, &[n])?.exit_value)
}
