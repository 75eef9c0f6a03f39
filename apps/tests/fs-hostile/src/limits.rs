//! A session's fixed limits, at each and one past it: prepared compounds
//! (`MAX_PREPARED`) and regions (`MAX_REGIONS`, the control region among
//! them). Up to the limit every request is served; the next is refused
//! `SessionFull` (not `TooManyOpen`, which is about open files) while
//! what the session holds keeps working; a release (compounds) or a new
//! session (regions) makes room again. The worker client on the same
//! server is not disturbed (its own checks run meanwhile).

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ipc::{self, MAX_PREPARED, MAX_REGIONS};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{Message, Slot};
use conflux_userlib::testing::Checks;
use cosy_abi::Builder;

use crate::config::caps;
use crate::raw;

/// A free slot for each copy of the spare region lent with ATTACH.
const LENT: usize = caps::FIRST_FREE + 3;

pub fn run(c: &mut Checks, fs: &mut Fs) {
    prepared(c, fs);
    regions(c, fs);
}

/// A compound that only exits with `value`.
fn exits(value: u64) -> Vec<u8> {
    let mut b = Builder::new();
    b.exit(value);
    b.build().unwrap_or_default()
}

/// Prepared compound `handle`'s exit value when run.
fn runs(fs: &mut Fs, handle: u64) -> Option<u64> {
    fs.run_prepared(handle, &[]).ok().map(|r| r.exit_value)
}

fn prepared(c: &mut Checks, fs: &mut Fs) {
    let mut handles = [u64::MAX; MAX_PREPARED];
    for (i, h) in handles.iter_mut().enumerate() {
        match fs.prepare(&exits(i as u64 + 1)) {
            Ok(got) => *h = got,
            Err(e) => return c.that("prepare up to the session's limit", false, e),
        }
    }
    c.that("prepare up to the session's limit", true, MAX_PREPARED);
    c.eq(
        "one prepared compound past the limit",
        fs.prepare(&exits(0)).err(),
        Some(Error::Fs(FsError::SessionFull)),
    );
    let all: Vec<_> = handles.iter().map(|&h| runs(fs, h)).collect();
    let want: Vec<_> = (1..=MAX_PREPARED as u64).map(Some).collect();
    c.eq("each kept compound still runs after the refusal", all, want);
    c.eq("release one", fs.release(handles[0]).is_ok(), true);
    c.eq(
        "the next prepare takes the freed handle",
        fs.prepare(&exits(9)).ok(),
        Some(handles[0]),
    );
    c.eq("and runs", runs(fs, handles[0]), Some(9));
    c.eq(
        "full again",
        fs.prepare(&exits(0)).err(),
        Some(Error::Fs(FsError::SessionFull)),
    );
    for h in handles {
        let _ = fs.release(h);
    }
}

/// ATTACH of a fresh copy of the spare region: the region number given.
fn attach() -> Result<u64, Error> {
    let _ = Slot(LENT).delete();
    let _ = Slot(caps::SPARE).copy(LENT);
    let got = raw(caps::FS, &Message::new(ipc::ATTACH, &[]).lending(LENT));
    let _ = Slot(LENT).delete();
    got.map(|w| w[0])
}

/// The session (made again by `sessions`) holds the control region (0)
/// and the spare this client attached earlier (1): the client library
/// attaches its regions again when it reconnects.
fn regions(c: &mut Checks, fs: &mut Fs) {
    let numbers: Vec<_> = (2..=MAX_REGIONS).map(|_| attach()).collect();
    let mut want: Vec<_> = (2..MAX_REGIONS as u64).map(Ok).collect();
    want.push(Err(Error::Fs(FsError::SessionFull)));
    c.eq(
        "data regions up to the session's limit, and one past it",
        numbers,
        want,
    );
    c.eq(
        "the session is still served: stat /README",
        fs.stat("/README").map(|s| s.size > 0),
        Ok(true),
    );
    c.eq(
        "a new session drops the extra regions",
        fs.reconnect(),
        Ok(()),
    );
    c.eq("and takes one again", attach(), Ok(2));
    let _ = fs.reconnect();
}
