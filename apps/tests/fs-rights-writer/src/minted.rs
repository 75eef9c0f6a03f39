//! A badge minted at run time from this task's unbadged capability: the
//! manifest does not list it, so the server has no session for it and no
//! rights to give it (`UnknownClient`): minting cannot widen a root, nor
//! open a way around one.

use conflux_abi::cap::rights::{GRANT, WRITE};
use conflux_fs_client::{Caps, Error, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Slot;
use conflux_userlib::testing::Checks;

use crate::config::caps::{FIRST_FREE, FS, MINTED_CONTROL, MINTED_CONTROL_ADDR};

/// A badge no capability in the manifest has.
const MINTED: u64 = 0x77;

pub fn run(c: &mut Checks) {
    c.eq(
        "mint badge 0x77 from the unbadged capability",
        Slot(FS).mint(FIRST_FREE, WRITE | GRANT, MINTED),
        Ok(()),
    );
    let caps = Caps {
        endpoint: FIRST_FREE,
        control: MINTED_CONTROL,
        control_addr: MINTED_CONTROL_ADDR,
    };
    c.eq(
        "minted: connect is refused",
        Fs::connect(caps).map(drop),
        Err(Error::Fs(FsError::UnknownClient)),
    );
    let _ = Slot(FIRST_FREE).delete();
}
