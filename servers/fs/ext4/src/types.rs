//! What the file system hands back: inode numbers, kinds, `stat` records,
//! directory entries and the cursor that pages through a directory. None
//! of them names an rsext4 type, so callers never depend on the library.

use alloc::vec::Vec;

use rsext4::{DirectoryCursor, DirectoryEntryType, InodeInfo};

/// An inode number (ext4's, 1-based; the root directory is 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ino(pub u32);

/// What an inode is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    File,
    Directory,
    Symlink,
    /// A device node, FIFO or socket (made by the host's tools only).
    Special,
    /// A directory entry without a type.
    Unknown,
}

impl From<DirectoryEntryType> for FileType {
    fn from(kind: DirectoryEntryType) -> Self {
        match kind {
            DirectoryEntryType::RegularFile => FileType::File,
            DirectoryEntryType::Directory => FileType::Directory,
            DirectoryEntryType::Symlink => FileType::Symlink,
            DirectoryEntryType::Unknown => FileType::Unknown,
            DirectoryEntryType::CharacterDevice
            | DirectoryEntryType::BlockDevice
            | DirectoryEntryType::Fifo
            | DirectoryEntryType::Socket => FileType::Special,
        }
    }
}

/// An inode's attributes. Times are seconds since the Unix epoch, from
/// the clock the file system was mounted with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub ino: Ino,
    pub kind: FileType,
    /// Permission bits (`0o7777` at most; the type is in `kind`).
    pub perm: u16,
    /// Hard links: names for a file; for a directory 2 + its
    /// subdirectories.
    pub links: u16,
    /// Bytes.
    pub size: u64,
    /// 512-byte units allocated, as `stat` reports them.
    pub blocks: u64,
    pub uid: u32,
    pub gid: u32,
    pub atime: u32,
    pub mtime: u32,
    pub ctime: u32,
}

impl Stat {
    pub(crate) fn from_info(info: &InodeInfo) -> Self {
        Stat {
            ino: Ino(info.number.raw()),
            kind: info.file_type().into(),
            perm: info.mode & 0o7777,
            links: info.links,
            size: info.size,
            blocks: info.blocks,
            uid: info.uid,
            gid: info.gid,
            atime: info.atime,
            mtime: info.mtime,
            ctime: info.ctime,
        }
    }

    pub fn is_dir(&self) -> bool {
        self.kind == FileType::Directory
    }
}

/// One name in a directory (`.` and `..` are never listed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub ino: Ino,
    pub kind: FileType,
    pub name: Vec<u8>,
}

/// Where the next [`crate::FileSystem::read_dir`] call resumes. It stays
/// valid while the directory changes, though entries added or removed
/// meanwhile may or may not be seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirCursor(pub(crate) DirectoryCursor);

impl DirCursor {
    /// The first entry.
    pub const START: DirCursor = DirCursor(DirectoryCursor::Start);
    /// Past the last entry.
    pub(crate) const END: DirCursor = DirCursor(DirectoryCursor::End);

    /// True once the directory has been read to its end.
    pub fn is_end(self) -> bool {
        self.0 == DirectoryCursor::End
    }
}

/// Space on the file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsStats {
    pub block_size: u64,
    pub total_blocks: u64,
    pub free_blocks: u64,
    pub total_inodes: u32,
    pub free_inodes: u32,
}
