//! A badge minted at run time from this task's unbadged capability: the
//! manifest does not list it, and the server gives it its parent's root,
//! read-only (the kernel lets only an unbadged capability take a badge,
//! so the parent is known).

use conflux_abi::cap::rights::{GRANT, WRITE};
use conflux_fs_client::{Caps, Fs};
use conflux_fs_protocol::ops::{O_CREAT, O_WRONLY};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Slot;
use conflux_userlib::testing::Checks;

use crate::config::caps::{FIRST_FREE, FS, MINTED_CONTROL, MINTED_CONTROL_ADDR};
use crate::{contents, outcome, refused, text};

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
    let mut fs = match Fs::connect(caps) {
        Ok(fs) => fs,
        Err(e) => return c.that("connect with the minted badge", false, e),
    };
    c.eq("minted: getcwd", fs.getcwd(), Ok("/".into()));
    c.eq(
        "minted: /secret.txt is /box's, written above",
        contents(&mut fs, "/secret.txt"),
        text(b"mine"),
    );
    c.eq(
        "minted: stat /../www/index.html",
        outcome(fs.stat("/../www/index.html")),
        refused(FsError::NotFound),
    );
    let no = refused(FsError::ReadOnlyClient);
    c.eq(
        "minted: create /new (read-only)",
        outcome(fs.open("/new", O_WRONLY | O_CREAT, 0o644)),
        no,
    );
    c.eq(
        "minted: unlink /linked (read-only)",
        fs.unlink("/linked"),
        no,
    );
    let _ = fs.detach();
}
