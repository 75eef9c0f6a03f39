//! Operations on open handles and `stat`: open, read and write (at the
//! position or at an offset), seek, the stat family, readdir and
//! readdirplus.

use conflux_ext4::{BlockDevice, Error, Ino};
use conflux_fs_protocol::ops::{
    AT_CWD, O_ACCMODE, O_APPEND, O_CREAT, O_DIRECTORY, O_EXCL, O_KNOWN, O_RDONLY, O_RDWR, O_TRUNC,
    O_WRONLY, SEEK_CUR, SEEK_END, SEEK_SET,
};
use conflux_fs_protocol::record::{Dirent, DirentPlus};
use conflux_fs_protocol::FsError;
use cosy_abi::{Args, CallError};

use super::{kind, put, stat_record, FileService};
use crate::errors::fs_error;
use crate::session::OpenFile;

impl<B: BlockDevice> FileService<'_, B> {
    /// `open(path, flags, mode) -> fd`.
    pub(super) fn open(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let (flags, mode) = (args.value(1), args.value(2));
        let access = flags & O_ACCMODE;
        if flags & !O_KNOWN != 0 || access == O_ACCMODE {
            return Err(FsError::Invalid.into());
        }
        let writes = access == O_WRONLY || access == O_RDWR;
        if flags & O_TRUNC != 0 && !writes {
            return Err(FsError::Invalid.into());
        }
        let path = self.path(args, 0)?;
        let stat = match self.fs.lookup(path.real()) {
            Ok(_) if flags & O_CREAT != 0 && flags & O_EXCL != 0 => Err(FsError::Exists)?,
            Ok(s) => s,
            Err(Error::NotFound) if flags & O_CREAT != 0 => {
                let perm = u16::try_from(mode & 0o7777).unwrap_or(0o644);
                self.fs.create(path.entry()?, perm).map_err(fs_error)?
            }
            Err(e) => Err(fs_error(e))?,
        };
        let dir = stat.is_dir();
        if dir && writes {
            return Err(FsError::IsADirectory.into());
        }
        if !dir && flags & O_DIRECTORY != 0 {
            return Err(FsError::NotADirectory.into());
        }
        if flags & O_TRUNC != 0 && stat.size != 0 {
            self.fs.set_len(stat.ino, 0).map_err(fs_error)?;
        }
        let read = access == O_RDONLY || access == O_RDWR;
        let file = OpenFile::new(stat.ino, dir, read, writes, flags & O_APPEND != 0);
        Ok(self.session.open(self.inodes, file)?)
    }

    /// `read(fd, buf, len)` at the position, or `pread(.., offset)`.
    pub(super) fn read(
        &mut self,
        args: &mut Args<'_, '_>,
        at: Option<u64>,
    ) -> Result<u64, CallError> {
        let (fd, len) = (args.value(0), args.value(2));
        let file = *self.session.get(self.inodes, fd)?;
        if file.dir {
            return Err(FsError::IsADirectory.into());
        }
        if !file.read {
            return Err(FsError::BadHandle.into());
        }
        let buf = args.buf_mut(1)?;
        let len = usize::try_from(len).map_err(|_| FsError::BadBuffer)?;
        let buf = buf.get_mut(..len).ok_or(FsError::BadBuffer)?;
        let offset = at.unwrap_or(file.pos);
        let n = self.fs.read_at(file.ino, offset, buf).map_err(fs_error)?;
        if at.is_none() {
            self.session.get(self.inodes, fd)?.pos = offset + n as u64;
        }
        Ok(n as u64)
    }

    /// `write(fd, buf, len)` at the position (the end with `O_APPEND`), or
    /// `pwrite(.., offset)`.
    pub(super) fn write(
        &mut self,
        args: &mut Args<'_, '_>,
        at: Option<u64>,
    ) -> Result<u64, CallError> {
        let (fd, len) = (args.value(0), args.value(2));
        let file = *self.session.get(self.inodes, fd)?;
        if !file.write {
            return Err(FsError::BadHandle.into());
        }
        let len = usize::try_from(len).map_err(|_| FsError::BadBuffer)?;
        let data = args.buf(1)?.get(..len).ok_or(FsError::BadBuffer)?;
        let offset = match at {
            Some(offset) => offset,
            None if file.append => self.fs.stat(file.ino).map_err(fs_error)?.size,
            None => file.pos,
        };
        offset
            .checked_add(len as u64)
            .ok_or(FsError::FileTooLarge)?;
        self.fs.write_at(file.ino, offset, data).map_err(fs_error)?;
        if at.is_none() {
            self.session.get(self.inodes, fd)?.pos = offset + len as u64;
        }
        Ok(len as u64)
    }

    /// `seek(fd, offset, whence) -> position`; a position before the start
    /// is `Invalid`.
    pub(super) fn seek(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let (fd, offset, whence) = (args.value(0), args.value(1) as i64, args.value(2));
        let file = *self.session.get(self.inodes, fd)?;
        let base = match whence {
            SEEK_SET => 0,
            SEEK_CUR => file.pos,
            SEEK_END => self.fs.stat(file.ino).map_err(fs_error)?.size,
            _ => return Err(FsError::Invalid.into()),
        };
        let pos = base.checked_add_signed(offset).ok_or(FsError::Invalid)?;
        self.session.get(self.inodes, fd)?.pos = pos;
        Ok(pos)
    }

    /// `stat(path, out)`.
    pub(super) fn stat_path(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let path = self.path(args, 0)?;
        let stat = self.fs.lookup(path.real()).map_err(fs_error)?;
        put(stat_record(&stat).encode(args.buf_mut(1)?))
    }

    /// `fstat(fd, out)`.
    pub(super) fn fstat(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let file = *self.session.get(self.inodes, args.value(0))?;
        let stat = self.fs.stat(file.ino).map_err(fs_error)?;
        put(stat_record(&stat).encode(args.buf_mut(1)?))
    }

    /// `statat(dirfd, name, out)`.
    pub(super) fn statat(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let dirfd = args.value(0);
        let dir = if dirfd == AT_CWD {
            let cwd = self.session.real_cwd()?;
            self.fs.lookup(&cwd).map_err(fs_error)?.ino
        } else {
            let file = *self.session.get(self.inodes, dirfd)?;
            if !file.dir {
                return Err(FsError::NotADirectory.into());
            }
            file.ino
        };
        // One name, never a path: `..` and names with `/` are refused by
        // `lookup_at` (`Invalid`), so a directory handle at the client's
        // root leads nowhere above it.
        let name = crate::path::operand(args.buf(1)?);
        let stat = self.fs.lookup_at(dir, name).map_err(fs_error)?;
        put(stat_record(&stat).encode(args.buf_mut(2)?))
    }

    /// `readdir(fd, out, len) -> entries written`, or with each entry's
    /// status before it (`plus`: `readdirplus`).
    pub(super) fn readdir(
        &mut self,
        args: &mut Args<'_, '_>,
        plus: bool,
    ) -> Result<u64, CallError> {
        let (fd, len) = (args.value(0), args.value(2));
        let file = *self.session.get(self.inodes, fd)?;
        if !file.dir {
            return Err(FsError::NotADirectory.into());
        }
        let len = usize::try_from(len).map_err(|_| FsError::BadBuffer)?;
        let out = args.buf_mut(1)?.get_mut(..len).ok_or(FsError::BadBuffer)?;
        let (size, at) = match plus {
            true => (DirentPlus::SIZE, DirentPlus::DIRENT_OFFSET),
            false => (Dirent::SIZE, 0),
        };
        let room = out.len() / size;
        if room == 0 && !file.cursor.is_end() {
            return Err(FsError::BadBuffer.into());
        }
        let mut cursor = file.cursor;
        let mut written = 0;
        // `.` and `..` are dropped from each page, so a page can come back
        // short before the end: keep reading until the buffer is full.
        while written < room && !cursor.is_end() {
            let want = room - written;
            cursor = self
                .fs
                .read_dir_each(file.ino, cursor, want, |ino, k, name| {
                    let Some(d) = Dirent::new(ino.0, kind(k), name) else {
                        return;
                    };
                    d.encode(&mut out[written * size + at..]);
                    written += 1;
                })
                .map_err(fs_error)?;
        }
        if plus {
            // The names just listed put their inodes in the metadata
            // cache, so each status is a table lookup. A failure fails
            // the call before the position moves: nothing is skipped.
            for record in out.chunks_exact_mut(size).take(written) {
                let ino = u32::from_le_bytes([
                    record[at],
                    record[at + 1],
                    record[at + 2],
                    record[at + 3],
                ]);
                let stat = self.fs.stat(Ino(ino)).map_err(fs_error)?;
                stat_record(&stat).encode(record);
            }
        }
        self.session.get(self.inodes, fd)?.cursor = cursor;
        Ok(written as u64)
    }
}
