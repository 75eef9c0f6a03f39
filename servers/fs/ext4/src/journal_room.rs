//! A workaround for one rsext4 0.9.2 bug: its unmount fails once the
//! journal has filled past two thirds, which any long-running system
//! reaches (a 4 MiB journal after about 200 synced transactions).
//!
//! **The bug.** rsext4 keeps committed transactions in the journal until
//! it needs the room: whenever a new transaction opens, it first
//! checkpoints old ones (writes their blocks home and moves the journal's
//! tail) until a third of the journal is free. A transaction opened by a
//! metadata operation's handle does that safely. But a block changed in
//! place outside any handle (`Jbd2Dev::update_block`, which unmount uses
//! for the superblock's clean state) hands its image to the journal
//! while rsext4 still counts it as an unfinished edit, and the checkpoint
//! refuses to run beside an unfinished edit (`Busy`,
//! `jbd2:checkpoint_with_unfinished_block_edit`, which reaches callers as
//! `Io`). A sync leaves no transaction open, so the superblock write at
//! unmount opens one, and fails whenever less than a third is free.
//! Nothing else of ours writes outside a handle while a transaction may
//! be closed: group descriptors and the superblock are otherwise written
//! inside the handles of the operations that change them, and cached
//! inodes and bitmaps go out through a path that checkpoints safely.
//!
//! **The workaround.** rsext4 has no call that checkpoints on its own,
//! but opening a handle makes the room. So before unmounting, after a
//! sync has closed every transaction, [`make_room`] opens one through a
//! create whose name rsext4 refuses inside the handle (`.`): the room is
//! made, the create is rolled back, nothing else changes. The superblock
//! write then finds its third free. Delete this module once rsext4 hands
//! the image over before checkpointing (publishes the held block in
//! `Jbd2Dev::write_block` before `enqueue_journal_update`); the test
//! `journal_wrap` shows whether it still needs to exist.

use rsext4::{Ext4ErrorKind, FileName, FilePermissions, MutationContext};

use crate::device::BlockDevice;
use crate::error::{Error, Result};
use crate::fs::Inner;

/// A name rsext4 refuses to create, checked only once the handle is open.
const REFUSED: &[u8] = b".";

/// Makes at least a third of the journal free, checkpointing the oldest
/// committed transactions if needed. Call it with no transaction open
/// (right after a sync); otherwise rsext4 makes no room.
pub(crate) fn make_room<D: BlockDevice>(inner: &mut Inner<D>) -> Result<()> {
    let name = FileName::new(REFUSED).map_err(|_| Error::InvalidPath)?;
    let permissions = FilePermissions::new(0).map_err(|_| Error::InvalidArgument)?;
    let root = inner.root_inode();
    match inner.create_regular_file(MutationContext::new(0, 0, 0, 0), root, name, permissions) {
        // The refusal rsext4 gives for the name itself, after the handle
        // (and with it the checkpoint) ran.
        Err(e) if e.kind() == Ext4ErrorKind::InvalidInput => Ok(()),
        // A failed checkpoint or a journal too full to make room.
        Err(e) => Err(e.into()),
        // rsext4 created `.`: the refusal this relies on is gone, and the
        // root directory now has an entry e2fsck will reject.
        Ok(_) => Err(Error::Corrupt),
    }
}
