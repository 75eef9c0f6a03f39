//! Operations on names: mkdir, rmdir, unlink, rename, link, truncate,
//! and the current directory. Removing an inode's last name marks it
//! deleted in the open-inode table, so handles still open on it (in any
//! session) go stale rather than follow the number to a later file.

use conflux_ext4::{BlockDevice, Error, Stat};
use conflux_fs_protocol::FsError;
use cosy_abi::{Args, CallError};

use super::FileService;
use crate::errors::fs_error;
use crate::path::is_at_or_above;

impl<B: BlockDevice> FileService<'_, B> {
    pub(super) fn mkdir(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let path = self.path(args, 0)?;
        let perm = u16::try_from(args.value(1) & 0o7777).unwrap_or(0o755);
        self.fs.mkdir(path.entry()?, perm).map_err(fs_error)?;
        Ok(0)
    }

    pub(super) fn rmdir(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let path = self.path(args, 0)?;
        let gone = self.fs.lookup(path.entry()?).map_err(fs_error)?;
        if is_at_or_above(path.seen(), self.session.cwd()) {
            // Removing the directory a client stands in would leave its
            // relative paths pointing at nothing; POSIX allows refusing.
            return Err(FsError::Invalid.into());
        }
        self.fs.rmdir(path.real()).map_err(fs_error)?;
        self.inodes.deleted(gone.ino);
        Ok(0)
    }

    pub(super) fn unlink(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let path = self.path(args, 0)?;
        let gone = self.fs.lookup(path.entry()?).map_err(fs_error)?;
        self.fs.unlink(path.real()).map_err(fs_error)?;
        self.forget_if_last(&gone);
        Ok(0)
    }

    /// Both names are inside the client's root (as every path is), so
    /// nothing moves across it either way.
    pub(super) fn rename(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let (from, to) = (self.path(args, 0)?, self.path(args, 1)?);
        let (from, to) = (from.entry()?, to.entry()?);
        let moved = self.fs.lookup(from).map_err(fs_error)?;
        let replaced = match self.fs.lookup(to) {
            Ok(s) => Some(s),
            Err(Error::NotFound) => None,
            Err(e) => return Err(fs_error(e).into()),
        };
        self.fs.rename(from, to).map_err(fs_error)?;
        if let Some(r) = replaced.filter(|r| r.ino != moved.ino) {
            self.forget_if_last(&r);
        }
        Ok(0)
    }

    /// Both names are inside the client's root: a client cannot link a
    /// file from outside in, nor one of its own out.
    pub(super) fn link(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let (existing, new) = (self.path(args, 0)?, self.path(args, 1)?);
        self.fs
            .link(existing.real(), new.entry()?)
            .map_err(fs_error)?;
        Ok(0)
    }

    pub(super) fn truncate(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let path = self.path(args, 0)?;
        let stat = self.fs.lookup(path.real()).map_err(fs_error)?;
        self.fs.set_len(stat.ino, args.value(1)).map_err(fs_error)?;
        Ok(0)
    }

    pub(super) fn ftruncate(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let file = *self.session.get(self.inodes, args.value(0))?;
        if !file.write {
            return Err(FsError::BadHandle.into());
        }
        self.fs.set_len(file.ino, args.value(1)).map_err(fs_error)?;
        Ok(0)
    }

    pub(super) fn chdir(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let path = self.path(args, 0)?;
        let stat = self.fs.lookup(path.real()).map_err(fs_error)?;
        if !stat.is_dir() {
            return Err(FsError::NotADirectory.into());
        }
        self.session.set_cwd(&path)?;
        Ok(0)
    }

    /// The current directory as the client sees it: from its root, which
    /// it never learns the real path of.
    pub(super) fn getcwd(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let cwd = self.session.cwd().as_bytes();
        let out = args.buf_mut(0)?;
        out.get_mut(..cwd.len())
            .ok_or(FsError::BadBuffer)?
            .copy_from_slice(cwd);
        Ok(cwd.len() as u64)
    }

    /// A name of `gone` was removed: if it was its last, it no longer exists.
    fn forget_if_last(&mut self, gone: &Stat) {
        if gone.is_dir() || gone.links <= 1 {
            self.inodes.deleted(gone.ino);
        }
    }
}
