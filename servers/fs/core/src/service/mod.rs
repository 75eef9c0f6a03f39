//! The file operations as a `cosy_abi::Service`: the one implementation
//! behind both of the server's paths — a compound's `CALL`s and the
//! one-operation IPC (which builds `Args` itself) — so both report the
//! same results and the same codes.
//!
//! A `FileService` is made per request from the mounted file system (with
//! its page cache, `Files`), the
//! server-wide open-inode table and the calling client's session; it owns
//! nothing. Buffers are the bounds-checked slices `Args` hands out, so an
//! operation can only touch the regions of the client that asked. The
//! session's file rights hold here, for both paths alike: `call` refuses
//! a read-only client every operation that changes files before it
//! starts, and every path operand is resolved inside the client's root.

mod data;
mod names;

use conflux_ext4::{BlockDevice, FileType};
use conflux_fs_protocol::{ops, record, FsError};
use cosy_abi::{Args, CallError, OpTable, Service};

use crate::errors::fs_error;
use crate::files::Files;
use crate::path::ClientPath;
use crate::session::{Inodes, Session};

/// The file operations for one client's request.
pub struct FileService<'a, B: BlockDevice> {
    pub fs: &'a mut Files<B>,
    pub inodes: &'a mut Inodes,
    pub session: &'a mut Session,
}

impl<B: BlockDevice> Service for FileService<'_, B> {
    fn ops(&self) -> OpTable<'_> {
        ops::TABLE
    }

    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        self.session.grant().check(opcode, |i| args.value(i))?;
        match opcode {
            ops::NOP => Ok(0),
            ops::OPEN => self.open(args),
            ops::CLOSE => Ok(self.session.close(self.inodes, args.value(0)).map(|_| 0)?),
            ops::READ => self.read(args, None),
            ops::WRITE => self.write(args, None),
            ops::PREAD => self.read(args, Some(args.value(3))),
            ops::PWRITE => self.write(args, Some(args.value(3))),
            ops::SEEK => self.seek(args),
            ops::STAT => self.stat_path(args),
            ops::FSTAT => self.fstat(args),
            ops::STATAT => self.statat(args),
            ops::READDIR => self.readdir(args, false),
            ops::READDIRPLUS => self.readdir(args, true),
            ops::MKDIR => self.mkdir(args),
            ops::RMDIR => self.rmdir(args),
            ops::UNLINK => self.unlink(args),
            ops::RENAME => self.rename(args),
            ops::LINK => self.link(args),
            ops::TRUNCATE => self.truncate(args),
            ops::FTRUNCATE => self.ftruncate(args),
            ops::FSYNC | ops::SYNC => self.sync(args, opcode == ops::FSYNC),
            ops::CHDIR => self.chdir(args),
            ops::GETCWD => self.getcwd(args),
            ops::STATFS => self.statfs(args),
            other => Err(CallError::UnknownOp { opcode: other }),
        }
    }

    /// Reads and writes cost a step per `BYTES_PER_STEP` bytes moved, and
    /// a flush ends the slice (it waits for the disk), so the server looks
    /// at its other clients between one client's big transfers.
    fn work(&self, opcode: u16, value: Option<u64>) -> u32 {
        match (opcode, value) {
            (ops::READ | ops::WRITE | ops::PREAD | ops::PWRITE, Some(bytes)) => {
                u32::try_from(bytes / cosy_abi::wire::BYTES_PER_STEP).unwrap_or(u32::MAX)
            }
            (ops::FSYNC | ops::SYNC, _) => u32::MAX,
            _ => 0,
        }
    }
}

impl<B: BlockDevice> FileService<'_, B> {
    /// Path operand `i`, resolved inside the client's root.
    fn path(&self, args: &Args<'_, '_>, i: usize) -> Result<ClientPath, CallError> {
        Ok(self.session.resolve(args.buf(i)?)?)
    }

    /// `fsync(fd)` (the handle's file, then the file system) or `sync()`.
    fn sync(&mut self, args: &mut Args<'_, '_>, check_fd: bool) -> Result<u64, CallError> {
        let synced = if check_fd {
            let file = *self.session.get(self.inodes, args.value(0))?;
            self.fs.sync_file(file.ino)
        } else {
            self.fs.sync()
        };
        synced.map_err(fs_error)?;
        Ok(0)
    }

    fn statfs(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let s = self.fs.stats();
        let totals = record::FsTotals {
            block_size: s.block_size,
            blocks: s.total_blocks,
            free_blocks: s.free_blocks,
            inodes: s.total_inodes,
            free_inodes: s.free_inodes,
            open_handles: self.inodes.open_handles(),
        };
        put(totals.encode(args.buf_mut(0)?))
    }
}

/// A record's `encode` result as the op's: 0, or `BadBuffer` when the
/// buffer was too small for it.
fn put(written: bool) -> Result<u64, CallError> {
    if written {
        Ok(0)
    } else {
        Err(FsError::BadBuffer.into())
    }
}

/// The protocol's kind for an inode's type.
fn kind(t: FileType) -> record::Kind {
    match t {
        FileType::File => record::Kind::File,
        FileType::Directory => record::Kind::Directory,
        FileType::Symlink => record::Kind::Symlink,
        FileType::Special => record::Kind::Special,
        FileType::Unknown => record::Kind::Unknown,
    }
}

/// The protocol's `stat` record for a file-system `Stat`.
pub fn stat_record(s: &conflux_ext4::Stat) -> record::Stat {
    record::Stat {
        ino: u64::from(s.ino.0),
        size: s.size,
        blocks: s.blocks,
        atime: s.atime,
        mtime: s.mtime,
        ctime: s.ctime,
        uid: s.uid,
        gid: s.gid,
        perm: s.perm,
        links: s.links,
        kind: kind(s.kind),
    }
}
