//! The file system's errors: one specific reason per variant, so the file
//! server can hand each client a precise code. rsext4's error kinds are
//! mapped here and nowhere else, which keeps the library replaceable.

use core::fmt;

use rsext4::{Ext4Error, Ext4ErrorKind};

/// Why a file-system operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// A path component or inode does not exist.
    NotFound,
    /// The name to create is already taken.
    Exists,
    /// A component before the last, or the target of a directory
    /// operation, is not a directory.
    NotADirectory,
    /// A file operation named a directory.
    IsADirectory,
    /// `rmdir`, or a rename onto a directory, found it not empty.
    NotEmpty,
    /// No free blocks or inodes are left.
    NoSpace,
    /// A name is longer than 255 bytes, or a path longer than
    /// [`crate::MAX_PATH`].
    NameTooLong,
    /// A path is empty, relative, holds a NUL byte, or names `.`, `..` or
    /// the root where an entry name is needed.
    InvalidPath,
    /// An argument the file system cannot take (an offset past the largest
    /// file, moving a directory below itself).
    InvalidArgument,
    /// The file would exceed the largest size ext4 allows.
    FileTooLarge,
    /// The inode already has the most hard links ext4 allows.
    TooManyLinks,
    /// The file system is mounted read-only (journal replay found errors).
    ReadOnly,
    /// The image uses an ext4 feature this implementation cannot handle.
    Unsupported,
    /// The block device failed a read, write or flush.
    Io,
    /// The on-disk metadata is inconsistent or fails its checksum.
    Corrupt,
    /// The heap could not satisfy an allocation.
    NoMemory,
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

impl Error {
    /// A short description of the reason, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Error::NotFound => "no such file or directory",
            Error::Exists => "the name already exists",
            Error::NotADirectory => "not a directory",
            Error::IsADirectory => "is a directory",
            Error::NotEmpty => "the directory is not empty",
            Error::NoSpace => "no space left on the file system",
            Error::NameTooLong => "a name is longer than 255 bytes or the path is too long",
            Error::InvalidPath => "the path is not a valid absolute path to an entry",
            Error::InvalidArgument => "invalid argument",
            Error::FileTooLarge => "the file would be larger than ext4 allows",
            Error::TooManyLinks => "too many hard links",
            Error::ReadOnly => "the file system is mounted read-only",
            Error::Unsupported => "the image uses an ext4 feature that is not supported",
            Error::Io => "the block device reported an I/O error",
            Error::Corrupt => "the file system's metadata is corrupt (run e2fsck on the image)",
            Error::NoMemory => "out of memory",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

impl From<Ext4Error> for Error {
    fn from(error: Ext4Error) -> Self {
        match error.kind() {
            Ext4ErrorKind::NotFound => Error::NotFound,
            Ext4ErrorKind::AlreadyExists => Error::Exists,
            Ext4ErrorKind::NotDirectory => Error::NotADirectory,
            Ext4ErrorKind::IsDirectory => Error::IsADirectory,
            Ext4ErrorKind::NotEmpty => Error::NotEmpty,
            Ext4ErrorKind::NoSpace | Ext4ErrorKind::QuotaExceeded => Error::NoSpace,
            Ext4ErrorKind::NoMemory => Error::NoMemory,
            Ext4ErrorKind::TooManyLinks => Error::TooManyLinks,
            Ext4ErrorKind::ReadOnly | Ext4ErrorKind::JournalAborted => Error::ReadOnly,
            Ext4ErrorKind::FileTooLarge | Ext4ErrorKind::Overflow => Error::FileTooLarge,
            Ext4ErrorKind::InvalidInput | Ext4ErrorKind::BadFileDescriptor => {
                Error::InvalidArgument
            }
            Ext4ErrorKind::UnsupportedFeature
            | Ext4ErrorKind::UnsupportedCapability
            | Ext4ErrorKind::Unsupported
            | Ext4ErrorKind::PermissionDenied => Error::Unsupported,
            Ext4ErrorKind::Io | Ext4ErrorKind::Timeout | Ext4ErrorKind::Busy => Error::Io,
            Ext4ErrorKind::Corrupted
            | Ext4ErrorKind::ChecksumMismatch
            | Ext4ErrorKind::BadSuperblock
            | Ext4ErrorKind::InvalidMagic => Error::Corrupt,
        }
    }
}
