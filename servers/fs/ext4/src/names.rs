//! Operations that add, remove or move names: create, mkdir, unlink,
//! rmdir, rename and hard links.
//!
//! rsext4 leaves an inode whose last name is removed allocated (an orphan
//! for a VFS that may still hold it open) and its unmount fails while
//! one remains. This layer reaps such an inode in the same call, so no
//! caller can forget: once its last name is gone, a file's data is gone,
//! and an inode number still held by a caller then reads `NotFound`.
//!
//! Each operation tells the inode and name caches (`meta_cache`) what it
//! changed, after rsext4's call and before its result is looked at: the
//! parent directories were touched (times, size, links), a removed or
//! replaced name is unnamed, an inode that may have been freed is
//! forgotten and a removed directory takes its cached names with it.

use rsext4::{FilePermissions, MutationContext, RenameOptions, UnlinkOutcome};

use crate::device::BlockDevice;
use crate::error::{Error, Result};
use crate::fs::{file_name, number, FileSystem};
use crate::path;
use crate::types::{FileType, Stat};

/// Owner and umask of everything made here: one user, root, and the
/// permissions exactly as asked.
const CONTEXT: MutationContext = MutationContext::new(0, 0, 0, 0);

impl<D: BlockDevice> FileSystem<D> {
    /// Makes the empty file `path` with permissions `perm` (`0o644`);
    /// `Exists` if the name is taken.
    pub fn create(&mut self, path: &str, perm: u16) -> Result<Stat> {
        let (parent, name) = self.free_name(path)?;
        let made = self.inner.create_regular_file(
            CONTEXT,
            number(parent.ino)?,
            file_name(name)?,
            permissions(perm)?,
        );
        self.cache.touched(parent.ino);
        Ok(Stat::from_info(&made?))
    }

    /// Makes the empty directory `path`.
    pub fn mkdir(&mut self, path: &str, perm: u16) -> Result<Stat> {
        let (parent, name) = self.free_name(path)?;
        let made = self.inner.create_directory(
            CONTEXT,
            number(parent.ino)?,
            file_name(name)?,
            permissions(perm)?,
        );
        self.cache.touched(parent.ino);
        Ok(Stat::from_info(&made?))
    }

    /// Removes the name `path` of a file (not a directory: `IsADirectory`).
    pub fn unlink(&mut self, path: &str) -> Result<()> {
        let (parent, name, target) = self.existing(path)?;
        if target.is_dir() {
            return Err(Error::IsADirectory);
        }
        let outcome = self.inner.unlink(number(parent.ino)?, file_name(name)?);
        self.removed(&parent, name, &target);
        self.reap(outcome?)
    }

    /// Removes the empty directory `path`.
    pub fn rmdir(&mut self, path: &str) -> Result<()> {
        let (parent, name, target) = self.existing(path)?;
        if !target.is_dir() {
            return Err(Error::NotADirectory);
        }
        let outcome = self
            .inner
            .remove_empty_directory(number(parent.ino)?, file_name(name)?);
        self.removed(&parent, name, &target);
        self.reap(outcome?)
    }

    /// Moves `from` to `to`, replacing what `to` names as POSIX `rename`
    /// does: a file replaces a file, a directory an empty directory.
    pub fn rename(&mut self, from: &str, to: &str) -> Result<()> {
        let (from_parent, from_name, source) = self.existing(from)?;
        let (to_names, to_name) = path::split_last(to)?;
        let to_parent = self.walk(to_names.iter().copied())?;
        let (from_names, _) = path::split_last(from)?;
        if from_names == to_names && from_name == to_name {
            return Ok(());
        }
        if source.is_dir() && to_names.starts_with(&path::components(from)?) {
            // Moving a directory below itself would cut it off the tree.
            return Err(Error::InvalidArgument);
        }
        let replaced = self.child(&to_parent, to_name)?;
        if let Some(target) = replaced {
            if target.ino == source.ino {
                // Two names of one file: POSIX leaves both in place.
                return Ok(());
            }
            match (source.is_dir(), target.is_dir()) {
                (true, false) => return Err(Error::NotADirectory),
                (false, true) => return Err(Error::IsADirectory),
                _ => {}
            }
        }
        let outcome = self.inner.rename(
            number(from_parent.ino)?,
            file_name(from_name)?,
            number(to_parent.ino)?,
            file_name(to_name)?,
            RenameOptions::REPLACE,
        );
        // The source keeps its inode (and a directory its names) under
        // the new name; its ctime (and a directory's `..`) changed.
        self.cache.unnamed(from_parent.ino, from_name);
        self.cache.touched(from_parent.ino);
        self.cache.touched(source.ino);
        if let Some(target) = replaced {
            self.removed(&to_parent, to_name, &target);
        } else {
            self.cache.unnamed(to_parent.ino, to_name);
            self.cache.touched(to_parent.ino);
        }
        match outcome?.replaced {
            Some(replaced) => self.reap(replaced),
            None => Ok(()),
        }
    }

    /// Gives the file `existing` the further name `new`.
    pub fn link(&mut self, existing: &str, new: &str) -> Result<Stat> {
        let target = self.lookup(existing)?;
        if target.kind == FileType::Directory {
            return Err(Error::IsADirectory);
        }
        let (parent, name) = self.free_name(new)?;
        let linked =
            self.inner
                .hard_link(number(target.ino)?, number(parent.ino)?, file_name(name)?);
        self.cache.touched(parent.ino);
        self.cache.touched(target.ino);
        Ok(Stat::from_info(&linked?))
    }

    /// The parent directory and last name of `path`, which must not exist.
    fn free_name<'p>(&mut self, path: &'p str) -> Result<(Stat, &'p [u8])> {
        let (names, name) = path::split_last(path)?;
        let parent = self.walk(names.iter().copied())?;
        match self.child(&parent, name)? {
            Some(_) => Err(Error::Exists),
            None => Ok((parent, name)),
        }
    }

    /// The parent directory, last name and inode of `path`, which must
    /// exist.
    fn existing<'p>(&mut self, path: &'p str) -> Result<(Stat, &'p [u8], Stat)> {
        let (names, name) = path::split_last(path)?;
        let parent = self.walk(names.iter().copied())?;
        let target = self.child(&parent, name)?.ok_or(Error::NotFound)?;
        Ok((parent, name, target))
    }

    /// The name `name` of `target` in `parent` was removed or replaced (or
    /// an attempt may have done part of it): the name is no longer
    /// cached, the parent's attributes are read again, the inode (whose
    /// link count changed, or which may be freed) is forgotten, and a
    /// directory's own names go with it.
    fn removed(&mut self, parent: &Stat, name: &[u8], target: &Stat) {
        self.cache.unnamed(parent.ino, name);
        self.cache.touched(parent.ino);
        self.cache.forget(target.ino);
        if target.is_dir() {
            self.cache.dir_gone(target.ino);
        }
    }

    /// Frees the inode a removal left without names.
    fn reap(&mut self, outcome: UnlinkOutcome) -> Result<()> {
        if outcome.requires_reap() {
            self.inner.reap_unlinked_inode(outcome.inode)?;
        }
        Ok(())
    }
}

fn permissions(perm: u16) -> Result<FilePermissions> {
    FilePermissions::new(perm).map_err(|_| Error::InvalidArgument)
}
