//! `MemFs`: a tiny in-memory file service, for examples, tests, the fuzz
//! target and the benchmark. Not a file system for real use.
//!
//! It shows what a server's `Service` implementation looks like: a static
//! op table, one `match` on the opcode, operands read through `Args`, and
//! errno-style service errors. Files live in fixed slots of a byte slice
//! the caller provides, so it needs no allocator.

use crate::args::Args;
use crate::service::{ArgKind, CallError, OpSpec, OpTable, Service};

/// `open(name: buf, flags, mode) -> fd`. The name ends at the first NUL
/// or the end of the buffer.
pub const OPEN: u16 = 0;
/// `read(fd, buf, len) -> bytes read`.
pub const READ: u16 = 1;
/// `write(fd, buf, len) -> bytes written`.
pub const WRITE: u16 = 2;
/// `seek(fd, offset, whence) -> new position` (whence 0 set, 1 cur, 2 end).
pub const SEEK: u16 = 3;
/// `close(fd) -> 0`.
pub const CLOSE: u16 = 4;
/// `nop() -> 0`: does nothing, for measuring call overhead.
pub const NOP: u16 = 5;

/// Open for reading only.
pub const O_RDONLY: u64 = 0;
/// Open for writing only.
pub const O_WRONLY: u64 = 1;
/// Open for reading and writing.
pub const O_RDWR: u64 = 2;
/// Create the file if it does not exist.
pub const O_CREAT: u64 = 0x40;
/// Truncate the file to length 0.
pub const O_TRUNC: u64 = 0x200;

/// No such file.
pub const ENOENT: u16 = 2;
/// Bad file descriptor, or not open for this access.
pub const EBADF: u16 = 9;
/// Too many open files.
pub const EMFILE: u16 = 24;
/// No room for another file.
pub const ENOSPC: u16 = 28;
/// Bad argument.
pub const EINVAL: u16 = 22;
/// Name longer than 32 bytes.
pub const ENAMETOOLONG: u16 = 36;

/// The error codes by name, where `cosy!` looks for them:
/// `is_err(fd, ENOENT)` in a compound over [`OPS`].
pub mod errors {
    pub use super::{EBADF, EINVAL, EMFILE, ENAMETOOLONG, ENOENT, ENOSPC};
}

const SPECS: [OpSpec; 6] = [
    OpSpec::new("open", &[ArgKind::Buf, ArgKind::Value, ArgKind::Value]),
    OpSpec::new("read", &[ArgKind::Value, ArgKind::Buf, ArgKind::Value]),
    OpSpec::new("write", &[ArgKind::Value, ArgKind::Buf, ArgKind::Value]),
    OpSpec::new("seek", &[ArgKind::Value, ArgKind::Value, ArgKind::Value]),
    OpSpec::new("close", &[ArgKind::Value]),
    OpSpec::new("nop", &[]),
];

/// The op table of [`MemFs`].
pub const OPS: OpTable<'static> = OpTable::new("memfs", &SPECS);

const MAX_FILES: usize = 8;
const MAX_FDS: usize = 8;
const NAME_LEN: usize = 32;

#[derive(Clone, Copy, Debug, Default)]
struct File {
    used: bool,
    name: [u8; NAME_LEN],
    name_len: usize,
    len: usize,
}

impl File {
    fn name(&self) -> &[u8] {
        self.name.get(..self.name_len).unwrap_or(&[])
    }
}

#[derive(Clone, Copy, Debug)]
struct Fd {
    file: usize,
    pos: u64,
    mode: u64,
}

/// See the module docs.
#[derive(Debug)]
pub struct MemFs<'a> {
    data: &'a mut [u8],
    slot_len: usize,
    files: [File; MAX_FILES],
    fds: [Option<Fd>; MAX_FDS],
    calls: u64,
}

fn err(code: u16) -> CallError {
    CallError::Service(code)
}

impl<'a> MemFs<'a> {
    /// A file system storing up to 8 files of at most `slot_len` bytes
    /// each in `data` (fewer if `data` is shorter than 8 slots).
    pub fn new(data: &'a mut [u8], slot_len: usize) -> Self {
        MemFs {
            data,
            slot_len,
            files: [File::default(); MAX_FILES],
            fds: [None; MAX_FDS],
            calls: 0,
        }
    }

    fn slots(&self) -> usize {
        self.data
            .len()
            .checked_div(self.slot_len)
            .unwrap_or(0)
            .min(MAX_FILES)
    }

    fn slot(&self, file: usize) -> &[u8] {
        let start = file * self.slot_len;
        self.data.get(start..start + self.slot_len).unwrap_or(&[])
    }

    fn slot_mut(&mut self, file: usize) -> &mut [u8] {
        let start = file * self.slot_len;
        self.data
            .get_mut(start..start + self.slot_len)
            .unwrap_or(&mut [])
    }

    fn find(&self, name: &[u8]) -> Option<usize> {
        self.files.iter().position(|f| f.used && f.name() == name)
    }

    /// Creates (or replaces) a file with these contents, host side.
    pub fn create(&mut self, name: &[u8], contents: &[u8]) -> Result<(), CallError> {
        let file = self.create_empty(name)?;
        let slot = self.slot_mut(file);
        slot.get_mut(..contents.len())
            .ok_or(err(ENOSPC))?
            .copy_from_slice(contents);
        if let Some(f) = self.files.get_mut(file) {
            f.len = contents.len();
        }
        Ok(())
    }

    fn create_empty(&mut self, name: &[u8]) -> Result<usize, CallError> {
        if name.len() > NAME_LEN || name.is_empty() {
            return Err(err(ENAMETOOLONG));
        }
        let slots = self.slots();
        let file = match self.find(name) {
            Some(file) => file,
            None => self
                .files
                .iter()
                .take(slots)
                .position(|f| !f.used)
                .ok_or(err(ENOSPC))?,
        };
        let f = self.files.get_mut(file).ok_or(err(ENOSPC))?;
        *f = File {
            used: true,
            name: [0; NAME_LEN],
            name_len: name.len(),
            len: 0,
        };
        f.name[..name.len()].copy_from_slice(name);
        Ok(file)
    }

    /// A file's contents.
    pub fn contents(&self, name: &[u8]) -> Option<&[u8]> {
        let file = self.find(name)?;
        self.slot(file).get(..self.files.get(file)?.len)
    }

    /// Number of service calls made so far.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// Number of open file descriptors.
    pub fn open_fds(&self) -> usize {
        self.fds.iter().filter(|fd| fd.is_some()).count()
    }

    fn fd(&mut self, fd: u64) -> Result<&mut Fd, CallError> {
        let slot = usize::try_from(fd).ok().and_then(|i| self.fds.get_mut(i));
        slot.and_then(Option::as_mut).ok_or(err(EBADF))
    }

    fn open(&mut self, args: &Args<'_, '_>) -> Result<u64, CallError> {
        let raw = args.buf(0)?;
        let name = raw.split(|&b| b == 0).next().unwrap_or(&[]);
        let (flags, mode) = (args.value(1), args.value(1) & 3);
        let file = match self.find(name) {
            Some(file) => file,
            None if flags & O_CREAT != 0 => self.create_empty(name)?,
            None => return Err(err(ENOENT)),
        };
        if flags & O_TRUNC != 0 {
            if let Some(f) = self.files.get_mut(file) {
                f.len = 0;
            }
        }
        let free = self
            .fds
            .iter()
            .position(Option::is_none)
            .ok_or(err(EMFILE))?;
        if let Some(slot) = self.fds.get_mut(free) {
            *slot = Some(Fd { file, pos: 0, mode });
        }
        Ok(free as u64)
    }

    fn read(&mut self, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let fd = *self.fd(args.value(0))?;
        if fd.mode == O_WRONLY {
            return Err(err(EBADF));
        }
        let len = args.value(2);
        let file_len = self.files.get(fd.file).map_or(0, |f| f.len) as u64;
        let buf = args.buf_mut(1)?;
        if len > buf.len() as u64 {
            return Err(err(EINVAL));
        }
        let n = len.min(file_len.saturating_sub(fd.pos)) as usize;
        let start = fd.pos as usize;
        let src = self
            .slot(fd.file)
            .get(start..start + n)
            .ok_or(err(EINVAL))?;
        buf.get_mut(..n).ok_or(err(EINVAL))?.copy_from_slice(src);
        self.fd(args.value(0))?.pos += n as u64;
        Ok(n as u64)
    }

    fn write(&mut self, args: &Args<'_, '_>) -> Result<u64, CallError> {
        let fd = *self.fd(args.value(0))?;
        if fd.mode == O_RDONLY {
            return Err(err(EBADF));
        }
        let len = args.value(2);
        let buf = args.buf(1)?;
        if len > buf.len() as u64 {
            return Err(err(EINVAL));
        }
        let start = usize::try_from(fd.pos).map_err(|_| err(ENOSPC))?;
        let n = (len as usize).min(self.slot_len.saturating_sub(start));
        if n == 0 && len > 0 {
            return Err(err(ENOSPC));
        }
        let file_len = self.files.get(fd.file).map_or(0, |f| f.len);
        let slot = self.slot_mut(fd.file);
        // A write past the end leaves a hole that reads as zeroes.
        if let Some(hole) = slot.get_mut(file_len.min(start)..start) {
            hole.fill(0);
        }
        let dst = slot.get_mut(start..start + n).ok_or(err(ENOSPC))?;
        dst.copy_from_slice(buf.get(..n).ok_or(err(EINVAL))?);
        if let Some(f) = self.files.get_mut(fd.file) {
            f.len = f.len.max(start + n);
        }
        self.fd(args.value(0))?.pos += n as u64;
        Ok(n as u64)
    }

    fn seek(&mut self, args: &Args<'_, '_>) -> Result<u64, CallError> {
        let fd = *self.fd(args.value(0))?;
        let len = self.files.get(fd.file).map_or(0, |f| f.len) as u64;
        let base = match args.value(2) {
            0 => 0,
            1 => fd.pos,
            2 => len,
            _ => return Err(err(EINVAL)),
        };
        // The offset is signed, as in lseek.
        let pos = base
            .checked_add_signed(args.value(1) as i64)
            .ok_or(err(EINVAL))?;
        self.fd(args.value(0))?.pos = pos;
        Ok(pos)
    }

    fn close(&mut self, fd: u64) -> Result<u64, CallError> {
        let slot = usize::try_from(fd)
            .ok()
            .and_then(|i| self.fds.get_mut(i))
            .ok_or(err(EBADF))?;
        slot.take().ok_or(err(EBADF))?;
        Ok(0)
    }
}

impl Service for MemFs<'_> {
    fn ops(&self) -> OpTable<'_> {
        OPS
    }

    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        self.calls += 1;
        match opcode {
            OPEN => self.open(args),
            READ => self.read(args),
            WRITE => self.write(args),
            SEEK => self.seek(args),
            CLOSE => self.close(args.value(0)),
            NOP => Ok(0),
            _ => Err(CallError::UnknownOp { opcode }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_read_write_seek_close_directly() {
        let mut backing = [0u8; 1024];
        let mut fs = MemFs::new(&mut backing, 128);
        fs.create(b"a", b"hello").unwrap();
        let mut region = [0u8; 16];
        region[..1].copy_from_slice(b"a");
        let mut regions = [&mut region[..]];
        let mut args = Args::new(&mut regions)
            .with_buf(0, 0, 8)
            .unwrap()
            .with_value(O_RDWR)
            .with_value(0);
        assert_eq!(fs.call(OPEN, &mut args), Ok(0));
        let mut args = Args::new(&mut regions)
            .with_value(0)
            .with_buf(0, 8, 8)
            .unwrap()
            .with_value(8);
        assert_eq!(fs.call(READ, &mut args), Ok(5));
        assert_eq!(&region[8..13], b"hello");
        let mut regions = [&mut region[..]];
        let mut args = Args::new(&mut regions)
            .with_value(0)
            .with_value(10)
            .with_value(0);
        assert_eq!(fs.call(SEEK, &mut args), Ok(10));
        let mut args = Args::new(&mut regions)
            .with_value(0)
            .with_buf(0, 8, 2)
            .unwrap()
            .with_value(2);
        assert_eq!(fs.call(WRITE, &mut args), Ok(2));
        assert_eq!(fs.contents(b"a").unwrap(), b"hello\0\0\0\0\0he");
        let mut args = Args::new(&mut regions).with_value(0);
        assert_eq!(fs.call(CLOSE, &mut args), Ok(0));
        assert_eq!(fs.call(CLOSE, &mut args), Err(CallError::Service(EBADF)));
        assert_eq!(fs.calls(), 6);
    }

    #[test]
    fn missing_file_and_bad_lengths_are_errors() {
        let mut backing = [0u8; 256];
        let mut fs = MemFs::new(&mut backing, 128);
        let mut region = *b"nope\0\0\0\0";
        let mut regions = [&mut region[..]];
        let mut args = Args::new(&mut regions)
            .with_buf(0, 0, 8)
            .unwrap()
            .with_value(0)
            .with_value(0);
        assert_eq!(fs.call(OPEN, &mut args), Err(CallError::Service(ENOENT)));
        let mut args = Args::new(&mut regions)
            .with_buf(0, 0, 8)
            .unwrap()
            .with_value(O_CREAT | O_RDWR)
            .with_value(0);
        assert_eq!(fs.call(OPEN, &mut args), Ok(0));
        let mut args = Args::new(&mut regions)
            .with_value(0)
            .with_buf(0, 0, 4)
            .unwrap()
            .with_value(5);
        assert_eq!(fs.call(WRITE, &mut args), Err(CallError::Service(EINVAL)));
        assert_eq!(
            fs.call(99, &mut args),
            Err(CallError::UnknownOp { opcode: 99 })
        );
    }
}
