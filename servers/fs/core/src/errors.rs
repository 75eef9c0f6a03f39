//! The file system's errors as the protocol's codes. `conflux-ext4`'s
//! reasons map one to one where the protocol has the same reason; a
//! malformed path (`InvalidPath`) is an invalid argument to a client.

use conflux_ext4::Error;
use conflux_fs_protocol::FsError;

/// The protocol code for a file-system error.
pub fn fs_error(e: Error) -> FsError {
    match e {
        Error::NotFound => FsError::NotFound,
        Error::Exists => FsError::Exists,
        Error::NotADirectory => FsError::NotADirectory,
        Error::IsADirectory => FsError::IsADirectory,
        Error::NotEmpty => FsError::NotEmpty,
        Error::NoSpace => FsError::NoSpace,
        Error::NameTooLong => FsError::NameTooLong,
        Error::InvalidPath | Error::InvalidArgument => FsError::Invalid,
        Error::FileTooLarge => FsError::FileTooLarge,
        Error::TooManyLinks => FsError::TooManyLinks,
        Error::ReadOnly => FsError::ReadOnly,
        Error::Unsupported => FsError::Unsupported,
        Error::Io => FsError::Io,
        Error::Corrupt => FsError::Corrupt,
        Error::NoMemory => FsError::NoMemory,
    }
}
