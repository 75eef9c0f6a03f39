//! The per-call path (VAN): one IPC per file operation. Paths and data go
//! through the control region's staging area: paths in its first 8 KiB,
//! data after them. Reads and writes longer than the staging area are
//! split into several operations, each one IPC.

use alloc::string::String;
use alloc::vec::Vec;

use conflux_cosy_ipc::client::Operand;
use conflux_fs_protocol::ipc::BufArg;
use conflux_fs_protocol::ops;
use conflux_fs_protocol::record::{Dirent, DirentPlus, FsTotals, Stat};

use crate::{put_path, Error, Fs, PATHS};

/// An open file or directory on the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fd(pub u64);

impl Fs {
    /// Any operation, one IPC, operands as given (tests and tools use it
    /// to send exactly what they want).
    pub fn call(&mut self, op: u16, operands: &[Operand]) -> Result<u64, Error> {
        Ok(self.session.call(op, operands)?)
    }

    fn staging(&self) -> usize {
        self.session.control_len().saturating_sub(PATHS)
    }

    fn path_arg(&mut self, slot: usize, path: &str) -> Result<Operand, Error> {
        let word = put_path(self.control(), slot * 4096, path)?;
        let b = BufArg::unpack(word);
        Ok(Operand::Buf {
            region: 0,
            offset: b.offset,
            len: b.len,
        })
    }

    fn data_arg(len: usize) -> Operand {
        Operand::Buf {
            region: 0,
            offset: PATHS as u32,
            len: len as u32,
        }
    }

    /// Opens `path` (`ops::O_*` flags; `mode` for a file it creates).
    pub fn open(&mut self, path: &str, flags: u64, mode: u64) -> Result<Fd, Error> {
        let p = self.path_arg(0, path)?;
        let fd = self.call(ops::OPEN, &[p, Operand::Value(flags), Operand::Value(mode)])?;
        Ok(Fd(fd))
    }

    pub fn close(&mut self, fd: Fd) -> Result<(), Error> {
        self.call(ops::CLOSE, &[Operand::Value(fd.0)]).map(drop)
    }

    /// Reads at the file position into `buf`; returns the bytes read
    /// (fewer only at the end of the file).
    pub fn read(&mut self, fd: Fd, buf: &mut [u8]) -> Result<usize, Error> {
        self.read_inner(fd, buf, None)
    }

    /// Reads at `offset` (the position stays).
    pub fn pread(&mut self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<usize, Error> {
        self.read_inner(fd, buf, Some(offset))
    }

    fn read_inner(&mut self, fd: Fd, buf: &mut [u8], at: Option<u64>) -> Result<usize, Error> {
        let step = self.staging().max(1);
        let mut done = 0;
        while done < buf.len() {
            let want = step.min(buf.len() - done);
            let mut operands = [
                Operand::Value(fd.0),
                Fs::data_arg(want),
                Operand::Value(want as u64),
                Operand::Value(0),
            ];
            let op = match at {
                Some(offset) => {
                    operands[3] = Operand::Value(offset + done as u64);
                    ops::PREAD
                }
                None => ops::READ,
            };
            let argc = if at.is_some() { 4 } else { 3 };
            let n = self.call(op, &operands[..argc])? as usize;
            let n = n.min(want);
            buf[done..done + n].copy_from_slice(&self.control()[PATHS..PATHS + n]);
            done += n;
            if n < want {
                break;
            }
        }
        Ok(done)
    }

    /// Writes `data` at the file position (the end with `O_APPEND`).
    pub fn write(&mut self, fd: Fd, data: &[u8]) -> Result<usize, Error> {
        self.write_inner(fd, data, None)
    }

    /// Writes `data` at `offset` (the position stays).
    pub fn pwrite(&mut self, fd: Fd, data: &[u8], offset: u64) -> Result<usize, Error> {
        self.write_inner(fd, data, Some(offset))
    }

    fn write_inner(&mut self, fd: Fd, data: &[u8], at: Option<u64>) -> Result<usize, Error> {
        let step = self.staging().max(1);
        let mut done = 0;
        for chunk in data.chunks(step) {
            self.control()[PATHS..PATHS + chunk.len()].copy_from_slice(chunk);
            let n = chunk.len();
            let mut operands = [
                Operand::Value(fd.0),
                Fs::data_arg(n),
                Operand::Value(n as u64),
                Operand::Value(0),
            ];
            let op = match at {
                Some(offset) => {
                    operands[3] = Operand::Value(offset + done as u64);
                    ops::PWRITE
                }
                None => ops::WRITE,
            };
            let argc = if at.is_some() { 4 } else { 3 };
            done += self.call(op, &operands[..argc])? as usize;
        }
        Ok(done)
    }

    /// Moves the position (`ops::SEEK_*`); returns the new one.
    pub fn seek(&mut self, fd: Fd, offset: i64, whence: u64) -> Result<u64, Error> {
        let operands = [
            Operand::Value(fd.0),
            Operand::Value(offset as u64),
            Operand::Value(whence),
        ];
        self.call(ops::SEEK, &operands)
    }

    fn record_out(
        &mut self,
        op: u16,
        mut operands: Vec<Operand>,
        len: usize,
    ) -> Result<&[u8], Error> {
        operands.push(Fs::data_arg(len));
        self.call(op, &operands)?;
        Ok(&self.session.control()[PATHS..PATHS + len])
    }

    pub fn stat(&mut self, path: &str) -> Result<Stat, Error> {
        let p = self.path_arg(0, path)?;
        let bytes = self.record_out(ops::STAT, alloc::vec![p], Stat::SIZE)?;
        Stat::decode(bytes).ok_or(Error::Request(0))
    }

    /// The stat of `name` (one component, as `readdir` gave it) in the
    /// directory open as `fd`: `ls -l`'s per-entry call, one IPC.
    pub fn statat(&mut self, fd: Fd, name: &[u8]) -> Result<Stat, Error> {
        // Names the paths of this client can carry are UTF-8 (`put_path`).
        let path = core::str::from_utf8(name)
            .map_err(|_| Error::Fs(conflux_fs_protocol::FsError::Invalid))?;
        let p = self.path_arg(0, path)?;
        let bytes = self.record_out(
            ops::STATAT,
            alloc::vec![Operand::Value(fd.0), p],
            Stat::SIZE,
        )?;
        Stat::decode(bytes).ok_or(Error::Request(0))
    }

    pub fn fstat(&mut self, fd: Fd) -> Result<Stat, Error> {
        let bytes = self.record_out(ops::FSTAT, alloc::vec![Operand::Value(fd.0)], Stat::SIZE)?;
        Stat::decode(bytes).ok_or(Error::Request(0))
    }

    /// The next entries of the directory open as `fd` (empty at the end).
    pub fn readdir(&mut self, fd: Fd) -> Result<Vec<Dirent>, Error> {
        let room = (self.staging() / Dirent::SIZE).min(64);
        let len = room * Dirent::SIZE;
        let operands = [
            Operand::Value(fd.0),
            Fs::data_arg(len),
            Operand::Value(len as u64),
        ];
        let n = self.call(ops::READDIR, &operands)? as usize;
        let bytes = &self.session.control()[PATHS..PATHS + len];
        Ok(bytes
            .chunks(Dirent::SIZE)
            .take(n.min(room))
            .filter_map(Dirent::decode)
            .collect())
    }

    /// The next entries of the directory open as `fd`, each with its
    /// status (`readdirplus`: `ls -l` in one IPC per batch, no `statat`
    /// per entry); empty at the end.
    pub fn readdir_plus(&mut self, fd: Fd) -> Result<Vec<DirentPlus>, Error> {
        let room = (self.staging() / DirentPlus::SIZE).min(64);
        let len = room * DirentPlus::SIZE;
        let operands = [
            Operand::Value(fd.0),
            Fs::data_arg(len),
            Operand::Value(len as u64),
        ];
        let n = self.call(ops::READDIRPLUS, &operands)? as usize;
        let bytes = &self.session.control()[PATHS..PATHS + len];
        Ok(bytes
            .chunks(DirentPlus::SIZE)
            .take(n.min(room))
            .filter_map(DirentPlus::decode)
            .collect())
    }

    fn path_op(&mut self, op: u16, path: &str, extra: Option<u64>) -> Result<(), Error> {
        let p = self.path_arg(0, path)?;
        match extra {
            Some(v) => self.call(op, &[p, Operand::Value(v)]),
            None => self.call(op, &[p]),
        }
        .map(drop)
    }

    fn two_paths(&mut self, op: u16, a: &str, b: &str) -> Result<(), Error> {
        let (pa, pb) = (self.path_arg(0, a)?, self.path_arg(1, b)?);
        self.call(op, &[pa, pb]).map(drop)
    }

    pub fn mkdir(&mut self, path: &str, mode: u64) -> Result<(), Error> {
        self.path_op(ops::MKDIR, path, Some(mode))
    }

    pub fn rmdir(&mut self, path: &str) -> Result<(), Error> {
        self.path_op(ops::RMDIR, path, None)
    }

    pub fn unlink(&mut self, path: &str) -> Result<(), Error> {
        self.path_op(ops::UNLINK, path, None)
    }

    pub fn rename(&mut self, from: &str, to: &str) -> Result<(), Error> {
        self.two_paths(ops::RENAME, from, to)
    }

    pub fn link(&mut self, existing: &str, new: &str) -> Result<(), Error> {
        self.two_paths(ops::LINK, existing, new)
    }

    pub fn truncate(&mut self, path: &str, len: u64) -> Result<(), Error> {
        self.path_op(ops::TRUNCATE, path, Some(len))
    }

    pub fn ftruncate(&mut self, fd: Fd, len: u64) -> Result<(), Error> {
        self.call(ops::FTRUNCATE, &[Operand::Value(fd.0), Operand::Value(len)])
            .map(drop)
    }

    pub fn fsync(&mut self, fd: Fd) -> Result<(), Error> {
        self.call(ops::FSYNC, &[Operand::Value(fd.0)]).map(drop)
    }

    pub fn chdir(&mut self, path: &str) -> Result<(), Error> {
        self.path_op(ops::CHDIR, path, None)
    }

    pub fn getcwd(&mut self) -> Result<String, Error> {
        let len = self.call(ops::GETCWD, &[Fs::data_arg(4096)])? as usize;
        let bytes = &self.session.control()[PATHS..PATHS + len.min(4096)];
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    pub fn statfs(&mut self) -> Result<FsTotals, Error> {
        let bytes = self.record_out(ops::STATFS, Vec::new(), FsTotals::SIZE)?;
        FsTotals::decode(bytes).ok_or(Error::Request(0))
    }

    /// Writes everything back and flushes the disk.
    pub fn sync(&mut self) -> Result<(), Error> {
        self.call(ops::SYNC, &[]).map(drop)
    }
}
