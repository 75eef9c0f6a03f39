//! Malformed messages: unknown labels, too many words, capabilities sent
//! where none is taken or missing where one is, a transfer the kernel
//! refuses, requests before connecting.

use conflux_abi::SysError;
use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ipc::{self, VAN_BASE};
use conflux_fs_protocol::ops::STAT;
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{set_long_word, Message};
use conflux_userlib::testing::Checks;

use crate::raw;

const FS: usize = crate::config::caps::FS;

fn fs_err<T>(e: FsError) -> Result<T, Error> {
    Err(Error::Fs(e))
}

/// Requests from a client that has not connected.
pub fn before_connecting(c: &mut Checks) {
    c.eq(
        "stat before connecting",
        raw(FS, &Message::new(VAN_BASE + u32::from(STAT), &[0, 0])).map(drop),
        fs_err(FsError::NotConnected),
    );
    c.eq(
        "run before connecting",
        raw(FS, &Message::new(ipc::RUN, &[0, 64])).map(drop),
        fs_err(FsError::NotConnected),
    );
}

pub fn run(c: &mut Checks, fs: &mut Fs) {
    c.eq(
        "an unknown label",
        raw(FS, &Message::new(99, &[1, 2])).map(drop),
        fs_err(FsError::NoSuchOp),
    );
    c.eq(
        "an operation number past the table",
        raw(FS, &Message::new(VAN_BASE + 4000, &[])).map(drop),
        fs_err(FsError::NoSuchOp),
    );
    for i in 4..40 {
        set_long_word(i, 0xDEAD_BEEF_0000 + i as u64);
    }
    let stat = VAN_BASE + u32::from(STAT);
    c.eq(
        "40 words: more than any request takes, refused, not cut",
        raw(FS, &Message::new(stat, &[0, 0, 0, 0]).with_len(40)).map(drop),
        fs_err(FsError::TooManyWords),
    );
    c.eq(
        "stat with a third word",
        raw(FS, &Message::new(stat, &[0, 0, 7])).map(drop),
        fs_err(FsError::TooManyWords),
    );
    c.eq(
        "release with two words",
        raw(FS, &Message::new(ipc::RELEASE, &[0, 1])).map(drop),
        fs_err(FsError::TooManyWords),
    );
    c.eq(
        "detach with a word",
        raw(FS, &Message::new(ipc::DETACH, &[1])).map(drop),
        fs_err(FsError::TooManyWords),
    );
    c.eq(
        "run with 33 parameters (one per register is the most)",
        raw(FS, &Message::new(ipc::RUN, &[0, 64]).with_len(35)).map(drop),
        fs_err(FsError::TooManyWords),
    );
    capabilities(c, fs);
}

/// Capability transfers the server does not take, and one the kernel
/// refuses; after each, a region must still attach (the slot where
/// capabilities land is empty again).
fn capabilities(c: &mut Checks, fs: &mut Fs) {
    let spare = crate::config::caps::SPARE;
    let stat = VAN_BASE + u32::from(STAT);
    c.eq(
        "a capability sent with stat",
        raw(FS, &Message::new(stat, &[0, 0]).with_cap(spare)).map(drop),
        fs_err(FsError::UnexpectedCap),
    );
    c.eq(
        "a capability sent with run",
        raw(FS, &Message::new(ipc::RUN, &[0, 64]).with_cap(spare)).map(drop),
        fs_err(FsError::UnexpectedCap),
    );
    c.eq(
        "attach without a capability",
        raw(FS, &Message::new(ipc::ATTACH, &[])).map(drop),
        fs_err(FsError::MissingCap),
    );
    c.eq(
        "attach an endpoint, shared, as a region",
        raw(FS, &Message::new(ipc::ATTACH, &[]).with_cap(FS)).map(drop),
        fs_err(FsError::NotLent),
    );
    c.eq(
        "a transfer through a capability without the grant right",
        raw(
            crate::config::caps::FS_NOGRANT,
            &Message::new(ipc::ATTACH, &[]).with_cap(spare),
        )
        .map(drop),
        Err(Error::Ipc(SysError::MissingRight)),
    );
    c.eq(
        "a region still attaches after all that",
        fs.attach(spare, crate::config::caps::SPARE_ADDR),
        Ok(1),
    );
}
