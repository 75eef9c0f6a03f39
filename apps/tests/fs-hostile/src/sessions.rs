//! Sessions cannot be hoarded: this client opens a session under each of
//! eight more badges the manifest gives it, and a ninth client still
//! connects (this client's own session, dropped and made again); a badge
//! minted at run time, which the manifest does not list, is refused with
//! `UnknownClient`. Before each badge had a reserved session slot, eight
//! sessions filled the server's table and locked every other client out.

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ipc::{self, VAN_BASE};
use conflux_fs_protocol::ops::{O_RDONLY, STAT};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{Message, Slot};
use conflux_userlib::testing::Checks;

use crate::config::caps;
use crate::raw;

/// The eight extra badges' endpoint capabilities.
const EXTRA: [usize; 8] = [
    caps::AS_1,
    caps::AS_2,
    caps::AS_3,
    caps::AS_4,
    caps::AS_5,
    caps::AS_6,
    caps::AS_7,
    caps::AS_8,
];
/// Handles this client may have open at once (`quota` on its capability
/// in the manifest).
const QUOTA: usize = 16;
/// A free slot for the control region lent to each extra session, and
/// one for the minted capability.
const LENT: usize = caps::FIRST_FREE + 1;
const MINTED: usize = caps::FIRST_FREE + 2;

pub fn run(c: &mut Checks, fs: &mut Fs) {
    let mut connected = 0;
    for ep in EXTRA {
        let _ = Slot(LENT).delete();
        let _ = Slot(caps::SPARE).copy(LENT);
        let connect = Message::new(ipc::CONNECT, &[ipc::VERSION]).lending(LENT);
        connected += usize::from(raw(ep, &connect).is_ok());
    }
    let _ = Slot(LENT).delete();
    c.eq("eight more sessions, one per badge", connected, 8);
    c.eq(
        "with those open, another client still connects",
        fs.reconnect(),
        Ok(()),
    );
    c.eq(
        "and is served: stat /README",
        fs.stat("/README").map(|s| s.size > 0),
        Ok(true),
    );
    handle_quota(c, fs);
    c.eq(
        "mint a badge the manifest does not list",
        Slot(caps::FS_UNBADGED).mint(MINTED, conflux_abi::cap::rights::ALL, 0x77),
        Ok(()),
    );
    let _ = Slot(LENT).delete();
    let _ = Slot(caps::SPARE).copy(LENT);
    let connect = Message::new(ipc::CONNECT, &[ipc::VERSION]).lending(LENT);
    c.eq(
        "a minted badge cannot open a session",
        raw(MINTED, &connect).map(drop),
        Err(Error::Fs(FsError::UnknownClient)),
    );
    c.eq(
        "nor make a request",
        raw(MINTED, &Message::new(VAN_BASE + u32::from(STAT), &[0, 0])).map(drop),
        Err(Error::Fs(FsError::UnknownClient)),
    );
    let _ = Slot(LENT).delete();
    let _ = Slot(MINTED).delete();
    for ep in EXTRA {
        let _ = raw(ep, &Message::new(ipc::DETACH, &[]));
    }
}

/// The manifest gives this client a quota of [`QUOTA`] handles: in its
/// fresh session exactly that many opens succeed, the next is refused
/// with `TooManyOpen`, and a close makes room again.
fn handle_quota(c: &mut Checks, fs: &mut Fs) {
    let mut open = alloc::vec::Vec::new();
    let refused = loop {
        match fs.open("/README", O_RDONLY, 0) {
            Ok(fd) if open.len() <= QUOTA => open.push(fd),
            Ok(_) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    c.eq("open handles up to the quota", open.len(), QUOTA);
    c.eq(
        "one more past the quota",
        refused,
        Err(Error::Fs(FsError::TooManyOpen)),
    );
    let last = open.pop();
    c.eq(
        "a close makes room for one more",
        last.map(|fd| fs.close(fd).and_then(|()| fs.open("/README", O_RDONLY, 0)))
            .map(|r| r.is_ok()),
        Some(true),
    );
    for fd in open {
        let _ = fs.close(fd);
    }
}
