//! Memory lent to the server cannot be pulled from under it: a region
//! shared instead of lent is refused, nothing but a region can be lent, a
//! read-only region is refused, and after the client revokes everything
//! derived from its control and data regions the server still reads and
//! writes them — it neither faults nor loses the other client's work.

use conflux_abi::SysError;
use conflux_fs_client::{Error, Fs, Operand};
use conflux_fs_protocol::ipc;
use conflux_fs_protocol::ops::{O_RDONLY, PREAD};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{Message, Slot};
use conflux_userlib::testing::Checks;

use crate::config::caps;
use crate::raw;

/// A free slot for a read-only copy of the spare region.
const READ_ONLY: usize = caps::FIRST_FREE;

/// Refused transfers, before the spare region is attached.
pub fn refusals(c: &mut Checks) {
    c.eq(
        "a region shared, not lent, is refused",
        raw(
            caps::FS,
            &Message::new(ipc::ATTACH, &[]).with_cap(caps::SPARE),
        )
        .map(drop),
        Err(Error::Fs(FsError::NotLent)),
    );
    c.eq(
        "an endpoint cannot be lent (the kernel refuses)",
        raw(caps::FS, &Message::new(ipc::ATTACH, &[]).lending(caps::FS)).map(drop),
        Err(Error::Ipc(SysError::WrongKind)),
    );
    c.eq(
        "a read-only copy of a region",
        Slot(caps::SPARE).mint(READ_ONLY, conflux_abi::cap::rights::READ, 0),
        Ok(()),
    );
    c.eq(
        "a lent read-only region is refused (the server writes results)",
        raw(caps::FS, &Message::new(ipc::ATTACH, &[]).lending(READ_ONLY)).map(drop),
        Err(Error::Fs(FsError::Invalid)),
    );
    let _ = Slot(READ_ONLY).delete();
}

/// The attack: revoke what the server holds of both regions, then make
/// the server read the control region (a path) and write the data region
/// (a file's bytes). `spare` is the data region's number in the session.
pub fn revoke_under_the_server(c: &mut Checks, fs: &mut Fs, spare: u8) {
    c.eq(
        "revoke the server's copy of the control region",
        Slot(caps::FS_CONTROL).revoke().map(|n| n > 0),
        Ok(true),
    );
    c.eq(
        "revoke the server's copy of the data region",
        Slot(caps::SPARE).revoke().map(|n| n > 0),
        Ok(true),
    );
    c.eq(
        "after the revocations the server still reads the control region: stat /README",
        fs.stat("/README").map(|s| s.size > 0),
        Ok(true),
    );
    let fd = fs.open("/README", O_RDONLY, 0);
    c.that("open /README", fd.is_ok(), fd);
    let Ok(fd) = fd else { return };
    let into = Operand::Buf {
        region: spare,
        offset: 0,
        len: 64,
    };
    let args = [fd.0, 64, 0].map(Operand::Value);
    let read = fs.call(PREAD, &[args[0], into, args[1], args[2]]);
    c.eq(
        "after the revocations the server still writes the data region: pread into it",
        read.map(|n| n > 0),
        Ok(true),
    );
    let readme = fs.data(spare).map(|d| d.starts_with(b"Conflux"));
    c.eq("the bytes read are the file's", readme, Some(true));
    let _ = fs.close(fd);
}
