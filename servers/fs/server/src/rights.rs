//! Each client's file rights, from the manifest: `FS_CLIENT_ROOTS` and
//! `FS_CLIENT_READ_ONLY`, aligned with the badges in `FS_CLIENTS` (`root`
//! and `access` on each client's capability; the whole tree read-write
//! where they are not written). A session takes its client's rights when
//! it connects and keeps them until it ends. A badge the manifest does not
//! list has no session to take rights into (`UnknownClient`, see
//! `clients`).

use conflux_fs_core::{Grant, Grants};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;

use crate::config::caps::{FS_CLIENTS, FS_CLIENT_READ_ONLY, FS_CLIENT_ROOTS};

const GRANTS: Grants<'static> = Grants {
    badges: FS_CLIENTS,
    roots: FS_CLIENT_ROOTS,
    read_only: FS_CLIENT_READ_ONLY,
};

/// The rights of the client with `badge`; a refusal is reported on the
/// console too, since the client may only see the code.
pub fn of(badge: u64) -> Result<Grant, FsError> {
    let grant = GRANTS.for_badge(badge);
    if let Err(e) = &grant {
        println!("client with badge {badge:#x} refused at connect: {e}");
    }
    grant
}

/// Whether the disk has the client's root, reported when it does not:
/// every path of the client would fail `NotFound`, and the likely cause
/// is a manifest written for another disk.
pub fn check_root(fs: &mut crate::serve::Fs, badge: u64, grant: &Grant) {
    match fs.lookup(grant.root()) {
        Ok(stat) if stat.is_dir() => {}
        Ok(_) => println!(
            "client with badge {badge:#x}: its root {} is not a directory on this disk; its paths will fail (fix `root` in the manifest or the disk)",
            grant.root()
        ),
        Err(e) => println!(
            "client with badge {badge:#x}: its root {} cannot be looked up ({e}); its paths will fail until it exists (fix `root` in the manifest or the disk)",
            grant.root()
        ),
    }
}
