//! The file operations: numbers, operands and flags.
//!
//! An operation's number is its index in [`SPECS`]; compounds call it by
//! that number and the per-call path sends it as label
//! `VAN_BASE + number`. Paths and names are buffer operands (they end at
//! the first NUL byte or the buffer's end); a relative path is resolved
//! against the client's current directory. Every operation returns a
//! value (0 where there is nothing to say) or fails with an [`FsError`].
//! A client's file rights bound every operation: its paths resolve inside
//! its root (`/` and `..` are the root's), and a read-only client is
//! refused each operation that changes files (`ReadOnlyClient`).
//!
//! [`FsError`]: crate::FsError

use cosy_abi::{ArgKind, OpTable};

const V: ArgKind = ArgKind::Value;
const B: ArgKind = ArgKind::Buf;

/// The service's error codes by name (`NOT_FOUND`, ...), where `cosy!`
/// looks for them: `is_err(fd, NOT_FOUND)` in a compound over [`TABLE`].
pub use crate::error::codes as errors;

cosy_abi::operations! {
    /// `nop() -> 0`: does nothing (measures the cost of a call).
    NOP = 0, "nop", [];
    /// `open(path, flags, mode) -> fd`. `flags` are the `O_*` bits;
    /// `mode` the permission bits of a file it creates.
    OPEN = 1, "open", [B, V, V];
    /// `close(fd) -> 0`.
    CLOSE = 2, "close", [V];
    /// `read(fd, buf, len) -> bytes read` at the file position, which
    /// moves on; 0 at the end of the file. `len` at most the buffer's.
    READ = 3, "read", [V, B, V];
    /// `write(fd, buf, len) -> bytes written` at the file position (at
    /// the end with `O_APPEND`).
    WRITE = 4, "write", [V, B, V];
    /// `pread(fd, buf, len, offset) -> bytes read`; the position stays.
    PREAD = 5, "pread", [V, B, V, V];
    /// `pwrite(fd, buf, len, offset) -> bytes written`; the position stays.
    PWRITE = 6, "pwrite", [V, B, V, V];
    /// `seek(fd, offset, whence) -> new position`; `offset` is signed.
    SEEK = 7, "seek", [V, V, V];
    /// `stat(path, out) -> 0`: a [`crate::record::Stat`] into `out`.
    STAT = 8, "stat", [B, B];
    /// `fstat(fd, out) -> 0`.
    FSTAT = 9, "fstat", [V, B];
    /// `statat(dirfd, name, out) -> 0`: the entry `name` of the
    /// directory open as `dirfd` ([`AT_CWD`]: the current directory),
    /// found without walking a whole path again (`ls -l` in a compound).
    STATAT = 10, "statat", [V, B, B];
    /// `readdir(fd, out, len) -> entries`: fills `out` with as many
    /// [`crate::record::Dirent`]s as fit in `len` bytes from the
    /// directory's position on; 0 once all were read.
    READDIR = 11, "readdir", [V, B, V];
    /// `mkdir(path, mode) -> 0`.
    MKDIR = 12, "mkdir", [B, V];
    /// `rmdir(path) -> 0`: the directory must be empty.
    RMDIR = 13, "rmdir", [B];
    /// `unlink(path) -> 0`: removes a name of a file.
    UNLINK = 14, "unlink", [B];
    /// `rename(from, to) -> 0`: replaces `to` as POSIX does.
    RENAME = 15, "rename", [B, B];
    /// `link(existing, new) -> 0`: a hard link.
    LINK = 16, "link", [B, B];
    /// `truncate(path, len) -> 0`: cuts or extends (with zeros).
    TRUNCATE = 17, "truncate", [B, V];
    /// `ftruncate(fd, len) -> 0`.
    FTRUNCATE = 18, "ftruncate", [V, V];
    /// `fsync(fd) -> 0`: returns once everything written so far (to any
    /// file: the journal orders them) is on the disk.
    FSYNC = 19, "fsync", [V];
    /// `chdir(path) -> 0`: the client's current directory.
    CHDIR = 20, "chdir", [B];
    /// `getcwd(out) -> length`: the current directory, not NUL-terminated.
    GETCWD = 21, "getcwd", [B];
    /// `statfs(out) -> 0`: a [`crate::record::FsTotals`] into `out`.
    STATFS = 22, "statfs", [B];
    /// `sync() -> 0`: writes everything back and flushes the disk.
    SYNC = 23, "sync", [];
    /// `readdirplus(fd, out, len) -> entries`: as `readdir`, each entry a
    /// [`crate::record::DirentPlus`] — its status with its name, so
    /// `ls -l` needs no `statat` per entry (NFSv3's `READDIRPLUS`).
    READDIRPLUS = 24, "readdirplus", [V, B, V];
}

/// The op table compounds for the file server are verified against.
pub const TABLE: OpTable<'static> = OpTable::new("fs", SPECS);

/// The operation's name, for messages (`"op 99"`-style text is the
/// caller's job for numbers outside the table).
pub fn name(op: u16) -> Option<&'static str> {
    SPECS.get(usize::from(op)).map(|s| s.name)
}

/// Open for reading only.
pub const O_RDONLY: u64 = 0;
/// Open for writing only.
pub const O_WRONLY: u64 = 1;
/// Open for reading and writing.
pub const O_RDWR: u64 = 2;
/// The access-mode bits.
pub const O_ACCMODE: u64 = 3;
/// Create the file if it does not exist.
pub const O_CREAT: u64 = 0x40;
/// With `O_CREAT`: fail with `EEXIST` if it exists.
pub const O_EXCL: u64 = 0x80;
/// Cut the file to length 0 (needs write access).
pub const O_TRUNC: u64 = 0x200;
/// Every write goes to the end of the file.
pub const O_APPEND: u64 = 0x400;
/// Fail with `ENOTDIR` unless the path names a directory.
pub const O_DIRECTORY: u64 = 0x1_0000;
/// Every flag bit the server knows; any other is `EINVAL`.
pub const O_KNOWN: u64 = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_DIRECTORY;

/// `seek` from the start of the file.
pub const SEEK_SET: u64 = 0;
/// `seek` from the current position.
pub const SEEK_CUR: u64 = 1;
/// `seek` from the end of the file.
pub const SEEK_END: u64 = 2;

/// `statat`'s directory: the client's current directory.
pub const AT_CWD: u64 = u64::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_table_indices() {
        for (i, op) in ALL.iter().enumerate() {
            assert_eq!(usize::from(*op), i, "op {op} is not at its index");
        }
        assert_eq!(TABLE.get(READ).map(|s| s.name), Some("read"));
        assert_eq!(name(STATAT), Some("statat"));
        assert_eq!(name(999), None);
    }

    #[test]
    fn every_op_has_at_most_the_operands_a_call_carries() {
        for spec in SPECS {
            assert!(spec.args.len() <= 6, "{} has too many operands", spec.name);
        }
    }
}
