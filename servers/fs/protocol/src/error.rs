//! Why a file operation failed: one code per reason, numbered as Linux
//! numbers its errno values so that they read familiarly. A compound op
//! that fails reports `0x8000 | code` as its status (cosy-abi's service
//! range); a per-call request gets the code in its reply.

cosy_abi::service_errors! {
    /// A failed file operation's reason.
    FsError {
        /// No file or directory by that name (or a component is missing).
        NotFound (NOT_FOUND) = 2, "no such file or directory";
        /// The disk failed a read, write or flush.
        Io (IO) = 5, "input/output error on the disk";
        /// The handle is not open, or not open for this access.
        BadHandle (BAD_HANDLE) = 9, "bad file handle (not open, or not open for this)";
        /// The server ran out of memory for this request.
        NoMemory (NO_MEMORY) = 12, "the file server is out of memory";
        /// A buffer is too small for what the operation writes, or a length
        /// runs past its buffer.
        BadBuffer (BAD_BUFFER) = 14, "a buffer is too small or a length runs past it";
        /// The name to create already exists.
        Exists (EXISTS) = 17, "the name already exists";
        /// A path component, or the operation's target, is not a directory.
        NotADirectory (NOT_A_DIRECTORY) = 20, "not a directory";
        /// A file operation named a directory.
        IsADirectory (IS_A_DIRECTORY) = 21, "is a directory";
        /// An argument is out of range or makes no sense here.
        Invalid (INVALID) = 22, "invalid argument";
        /// The client has every handle it may have open.
        TooManyOpen (TOO_MANY_OPEN) = 24, "too many open files";
        /// The file would grow past the largest size ext4 allows.
        FileTooLarge (FILE_TOO_LARGE) = 27, "file too large";
        /// No free blocks or inodes are left on the disk.
        NoSpace (NO_SPACE) = 28, "no space left on the disk";
        /// The file system is mounted read-only (its journal recorded errors).
        ReadOnly (READ_ONLY) = 30, "the file system is read-only";
        /// The file already has the most hard links ext4 allows.
        TooManyLinks (TOO_MANY_LINKS) = 31, "too many links";
        /// A name is longer than 255 bytes, or a path longer than 4096.
        NameTooLong (NAME_TOO_LONG) = 36, "name too long";
        /// The server has no operation by that number.
        NoSuchOp (NO_SUCH_OP) = 38, "no such operation";
        /// `rmdir`, or a rename onto a directory, found it not empty.
        NotEmpty (NOT_EMPTY) = 39, "directory not empty";
        /// The request needs a connection (its regions) the client has not made.
        NotConnected (NOT_CONNECTED) = 107, "not connected: connect to the file server first";
        /// The client's file rights are read-only (`access = "read-only"` on
        /// its capability in the manifest) and the operation would change
        /// the file tree: open for writing, creating or truncating, write,
        /// mkdir, rmdir, unlink, rename, link, truncate.
        ReadOnlyClient (READ_ONLY_CLIENT) = 13, "refused: this operation changes files, and your file rights are read-only (`access` on your file-server capability in the manifest)";
        /// CONNECT from a badge the manifest gives no file rights (its
        /// tables disagree; a badge it does not list at all gets
        /// `UnknownClient` first).
        NoFileRights (NO_FILE_RIGHTS) = 129, "refused: the manifest gives your badge no file rights; connect through a capability the manifest lists";
        /// The handle's file was deleted (by anyone) after it was opened.
        Stale (STALE) = 116, "the file was deleted while open";
        /// The disk's metadata is inconsistent or fails its checksum.
        Corrupt (CORRUPT) = 117, "the file system is corrupt (run e2fsck)";
        /// The image uses an ext4 feature the server cannot handle.
        Unsupported (UNSUPPORTED) = 95, "an ext4 feature the server does not support";
        /// The request carries more words than any request of its kind takes
        /// (refused whole, never cut).
        TooManyWords (TOO_MANY_WORDS) = 7, "the request carries more words than it takes";
        /// A compound of this session is still running; the session takes no
        /// other request until it ends (or is cancelled by DETACH or CONNECT).
        Busy (BUSY) = 16, "a compound of this session is still running";
        /// The request carries a capability, and this request takes none.
        UnexpectedCap (UNEXPECTED_CAP) = 74, "the request carries a capability it does not take";
        /// CONNECT or ATTACH came without the region capability it needs (or
        /// the kernel dropped it on the way).
        MissingCap (MISSING_CAP) = 126, "the request needs a region capability and carries none";
        /// The badge on the client's capability is none the manifest gave
        /// this server's clients (it was minted at run time): the server
        /// keeps a session only for each client the manifest names.
        UnknownClient (UNKNOWN_CLIENT) = 131, "unknown client: the manifest gives no capability with this badge to a client of the file server";
        /// CONNECT or ATTACH shared its region instead of lending it; the
        /// server maps only lent regions, which cannot be revoked under it.
        NotLent (NOT_LENT) = 1, "the region was shared, not lent: send it with Message::lending";
        /// The session has every region ([`conflux_cosy_ipc::MAX_REGIONS`],
        /// the control region among them) or prepared compound
        /// ([`conflux_cosy_ipc::MAX_PREPARED`]) it may have; open files
        /// are `TooManyOpen`.
        SessionFull (SESSION_FULL) = 132, "the session has every data region or prepared compound it may have: release a prepared compound, or detach and connect again to drop regions";
        /// The compound was cancelled before it ended: its session was
        /// detached or reconnected (a restarted client), or the server stopped.
        Cancelled (CANCELLED) = 125, "the compound was cancelled (session ended or server stopping)";
        /// CLIENT_GONE from a caller without the supervisor's badge: only
        /// the supervisor says that a client's task has ended.
        NotSupervisor (NOT_SUPERVISOR) = 130, "refused: only the supervisor (init) may say that a client is gone";
        /// RING named a region that is not an attached, formatted ring
        /// region (or is the control region).
        BadRing (BAD_RING) = 133, "the region is not an attached data region formatted as rings (cosy_abi::ring::Parts::format): attach it, format it, then send RING";
        /// RING_ENTER from a session without rings, or whose rings the
        /// server dropped because their indices were impossible.
        NoRing (NO_RING) = 134, "this session has no rings: send RING first; if it had, the server found the rings' indices impossible and dropped them";
        /// ATTACH found every capability slot the file server keeps for
        /// data regions held by some session (the slots are shared by all
        /// sessions and taken as regions are attached); the session keeps
        /// the regions it has. A slot comes free when a session ends
        /// (DETACH, a reconnect, or the client's task ending).
        TableFull (TABLE_FULL) = 135, "the file server's capability table is full: every slot for a data region is held by some session; work with the regions you have, or end a session (DETACH) to free its slots, then attach again";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_stay_in_the_service_range() {
        for e in FsError::ALL {
            assert_eq!(FsError::from_code(e.code()), Some(*e));
            assert!((1..=0x7FFF).contains(&e.code()), "{e:?}");
            assert!(!e.message().is_empty());
        }
        assert_eq!(FsError::from_code(0), None);
        assert_eq!(FsError::from_code(3), None);
    }

    #[test]
    fn codes_are_distinct() {
        for (i, a) in FsError::ALL.iter().enumerate() {
            for b in &FsError::ALL[i + 1..] {
                assert_ne!(a.code(), b.code(), "{a:?} and {b:?}");
            }
        }
    }
}
