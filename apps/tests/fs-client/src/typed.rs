//! Failures as an app meets them: inside a compound (`is_err`,
//! `is_err(fd, NOT_FOUND)`), and outside it in the typed report: a
//! fail-fast compound on a missing file is `Err` naming the op and its
//! `FsError`, one that goes on reports its first failure and every op's
//! typed result. The region is laid out by an `Arena`.

use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, OpFailure};
use conflux_fs_protocol::ops::{self, O_RDONLY};
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;
use cosy_abi::typed::{Failure, OpValue, RunOutcome};
use cosy_abi::{Arena, ArenaError, Place};
use cosy_macro::cosy;

/// Bytes of the control region the arena may use (its end holds the
/// compound).
const ROOM: usize = 8192;

pub fn run(c: &mut Checks, fs: &mut Fs) {
    let mut arena = match Arena::new(0, &mut fs.control()[..ROOM]) {
        Ok(arena) => arena,
        Err(e) => return c.that("an arena over the control region", false, e),
    };
    let (Ok(names), Ok(stat)) = (arena.table(&["/t/b", "/t/not-there"]), arena.buffer(256)) else {
        return c.that("lay out the table and a buffer", false, ());
    };
    let past = arena.buffer(ROOM);
    c.eq(
        "an arena refuses a buffer past the region's end",
        past.map_err(|e| matches!(e, ArenaError::Full { .. })),
        Err(true),
    );
    fail_fast(c, fs, names.entry(1).unwrap_or(names.first), stat);
    goes_on(c, fs, names, stat);
}

fn fail_fast(c: &mut Checks, fs: &mut Fs, missing: Place, out: Place) {
    let compound = cosy!(ops::TABLE, || {
        #![fail_fast]
        let path = buf(missing);
        let out = buf(out);
        let fd = open(path, O_RDONLY, 0);
        fstat(fd, out);
        close(fd);
    });
    let Ok(bytes) = compound.build() else {
        return c.that("build the fail-fast compound", false, ());
    };
    let want = OpFailure {
        op: Some(0),
        name: "open",
        error: Failure::Service(FsError::NotFound),
    };
    let run = fs.run(&bytes, &[]);
    c.eq(
        "a fail-fast compound on a missing file is Err, naming the op",
        run.map(|r| r.outcome),
        Err(Error::Compound(want)),
    );
    c.eq(
        "... and reads like the shell's errors",
        Error::Compound(want).to_string(),
        "compound failed at op 0 (open): no such file or directory".to_string(),
    );
    c.eq(
        "... its file error",
        Error::Compound(want).fs(),
        Some(FsError::NotFound),
    );
}

fn goes_on(c: &mut Checks, fs: &mut Fs, names: cosy_abi::Table, out: Place) {
    // Stats every name of the table; counts the missing ones.
    let compound = cosy!(ops::TABLE, || {
        let mut at = 0;
        let path = buf_at(names.first, at);
        let out = buf(out);
        let mut missing = 0;
        for _ in 0..names.count {
            let r = stat(path, out);
            if is_err(r, NOT_FOUND) {
                missing += 1;
            }
            at += names.stride;
        }
        missing
    });
    let Ok(bytes) = compound.build() else {
        return c.that("build the compound that goes on", false, ());
    };
    let run = fs.run(&bytes, &[]);
    c.eq(
        "a compound that tests its results finishes, one missing",
        run.map(|r| (r.outcome, r.exit_value)),
        Ok((RunOutcome::FinishedWithFailures, 1)),
    );
    let first = run.ok().and_then(|r| r.first_failure);
    c.eq(
        "... its first failure is the stat of the missing name",
        first.map(|f| (f.op.is_some(), f.name, f.error)),
        Some((true, "stat", Failure::Service(FsError::NotFound))),
    );
    let text = first.map(|f| format!("{f}")).unwrap_or_default();
    c.that(
        "... which reads `op N (stat): no such file or directory`",
        text.starts_with("op ") && text.ends_with(" (stat): no such file or directory"),
        text,
    );
    c.eq(
        "... and `clean()` turns it into an error",
        run.map(|r| r.clean().map(drop).map_err(|f| f.name)),
        Ok(Err("stat")),
    );
    // Each op's entry is its last execution: the stat's failed.
    let failed: Vec<OpValue<FsError>> = fs
        .results()
        .filter(|v| matches!(v, OpValue::Err(_)))
        .collect();
    c.eq(
        "the per-op results, typed: one op's last run failed, with NotFound",
        failed,
        vec![OpValue::Err(Failure::Service(FsError::NotFound))],
    );
}
