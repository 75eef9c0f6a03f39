//! What one client may do to the file tree: a root directory it cannot
//! leave and read-only or read-write access below it — a directory
//! capability, as Capsicum's and Fuchsia's are, held by the server for the
//! client's badge.
//!
//! The manifest gives them per client capability (`root`, `access`; the
//! server gets them as generated constants aligned with its client
//! badges), and a session takes its [`Grant`] when the client connects,
//! so every operation of the session, per call or inside a compound, is
//! held to it. Paths are confined in `path`; here is which operations a
//! read-only client is refused ([`changes_files`]) and which grant a
//! badge gets ([`Grants::for_badge`]).

use alloc::string::String;

use conflux_ext4::{check_name, MAX_PATH};
use conflux_fs_protocol::ops::{self, O_ACCMODE, O_CREAT, O_RDWR, O_TRUNC, O_WRONLY};
use conflux_fs_protocol::FsError;

/// Whether a client may change files below its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

/// One client's file rights: its root (absolute, normalised: no `.`,
/// `..`, empty component or trailing `/`) and its access below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    root: String,
    access: Access,
}

impl Grant {
    /// The whole tree, read-write: what the manifest gives a client that
    /// says nothing about files.
    pub fn whole_tree() -> Grant {
        Grant {
            root: String::from("/"),
            access: Access::ReadWrite,
        }
    }

    /// Rights below `root`, which must be absolute and normalised, each
    /// name a valid ext4 name (`Invalid`, or `NameTooLong`).
    pub fn new(root: &str, access: Access) -> Result<Grant, FsError> {
        if !root.starts_with('/') || root.len() > 1 && root.ends_with('/') {
            return Err(FsError::Invalid);
        }
        if root.len() > MAX_PATH {
            return Err(FsError::NameTooLong);
        }
        for name in root.split('/').skip(1).filter(|_| root != "/") {
            check_name(name.as_bytes()).map_err(crate::errors::fs_error)?;
        }
        let mut owned = String::new();
        owned
            .try_reserve(root.len())
            .map_err(|_| FsError::NoMemory)?;
        owned.push_str(root);
        Ok(Grant {
            root: owned,
            access,
        })
    }

    /// The root, as the file system names it.
    pub fn root(&self) -> &str {
        &self.root
    }

    pub fn access(&self) -> Access {
        self.access
    }

    /// `ReadOnlyClient` if this grant is read-only and `opcode` (with its
    /// operands `value(i)`) would change files.
    pub fn check(&self, opcode: u16, value: impl Fn(usize) -> u64) -> Result<(), FsError> {
        if self.access == Access::ReadOnly && changes_files(opcode, value) {
            return Err(FsError::ReadOnlyClient);
        }
        Ok(())
    }
}

/// Whether operation `opcode` can change files (data, names or sizes);
/// `value(1)` is `open`'s flags. Opening for writing, creating or
/// truncating changes files; `fsync` and `sync` only write back what was
/// changed already. An operation the protocol adds later counts as a
/// change until it is listed here, so a new operation is never open to
/// read-only clients by omission.
pub fn changes_files(opcode: u16, value: impl Fn(usize) -> u64) -> bool {
    match opcode {
        ops::OPEN => {
            let flags = value(1);
            matches!(flags & O_ACCMODE, O_WRONLY | O_RDWR) || flags & (O_CREAT | O_TRUNC) != 0
        }
        ops::NOP
        | ops::CLOSE
        | ops::READ
        | ops::PREAD
        | ops::SEEK
        | ops::STAT
        | ops::FSTAT
        | ops::STATAT
        | ops::READDIR
        | ops::READDIRPLUS
        | ops::FSYNC
        | ops::CHDIR
        | ops::GETCWD
        | ops::STATFS
        | ops::SYNC => false,
        // An opcode outside the table is refused as unknown, not here.
        other => ops::name(other).is_some(),
    }
}

/// The file rights the manifest gives an endpoint's clients: badges
/// ascending, and per badge its root and whether it is read-only (the
/// server's generated `NAME_CLIENTS`, `NAME_CLIENT_ROOTS` and
/// `NAME_CLIENT_READ_ONLY`).
#[derive(Clone, Copy, Debug)]
pub struct Grants<'a> {
    pub badges: &'a [u64],
    pub roots: &'a [&'a str],
    pub read_only: &'a [bool],
}

impl Grants<'_> {
    /// The grant of `badge`, as the manifest lists it. A badge it does not
    /// list (minted at run time) gets nothing (`NoFileRights`): the file
    /// server keeps sessions only for the manifest's clients, and refuses
    /// any other badge before it asks (`UnknownClient`), so the server
    /// never hands out rights the manifest did not write.
    pub fn for_badge(&self, badge: u64) -> Result<Grant, FsError> {
        self.listed(badge).unwrap_or(Err(FsError::NoFileRights))
    }

    fn listed(&self, badge: u64) -> Option<Result<Grant, FsError>> {
        let i = self.badges.iter().position(|b| *b == badge)?;
        let (root, read_only) = (self.roots.get(i)?, self.read_only.get(i)?);
        let access = if *read_only {
            Access::ReadOnly
        } else {
            Access::ReadWrite
        };
        Some(Grant::new(root, access))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_must_be_absolute_and_normalised() {
        assert!(Grant::new("/", Access::ReadOnly).is_ok());
        assert!(Grant::new("/www/site", Access::ReadOnly).is_ok());
        for bad in ["", "www", "/www/", "//www", "/a/./b", "/a/../b", "/a\0b"] {
            assert_eq!(
                Grant::new(bad, Access::ReadOnly),
                Err(FsError::Invalid),
                "{bad:?}"
            );
        }
        let long = alloc::format!("/{}", "n".repeat(256));
        assert_eq!(
            Grant::new(&long, Access::ReadOnly),
            Err(FsError::NameTooLong)
        );
    }

    #[test]
    fn read_only_refuses_exactly_the_operations_that_change_files() {
        let ro = Grant::new("/www", Access::ReadOnly).unwrap();
        let rw = Grant::new("/www", Access::ReadWrite).unwrap();
        let reads = [
            ops::NOP,
            ops::CLOSE,
            ops::READ,
            ops::PREAD,
            ops::SEEK,
            ops::STAT,
            ops::FSTAT,
            ops::STATAT,
            ops::READDIR,
            ops::READDIRPLUS,
            ops::FSYNC,
            ops::CHDIR,
            ops::GETCWD,
            ops::STATFS,
            ops::SYNC,
        ];
        for op in ops::ALL.iter().copied().filter(|op| *op != ops::OPEN) {
            let want = if reads.contains(&op) {
                Ok(())
            } else {
                Err(FsError::ReadOnlyClient)
            };
            assert_eq!(ro.check(op, |_| 0), want, "{:?}", ops::name(op));
            assert_eq!(rw.check(op, |_| 0), Ok(()));
        }
        let open = |flags: u64| ro.check(ops::OPEN, move |i| if i == 1 { flags } else { 0 });
        assert_eq!(open(ops::O_RDONLY), Ok(()));
        assert_eq!(open(ops::O_RDONLY | ops::O_DIRECTORY), Ok(()));
        for flags in [O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, ops::O_RDONLY | O_CREAT] {
            assert_eq!(open(flags), Err(FsError::ReadOnlyClient), "{flags:#x}");
        }
        // An unknown opcode is left for the dispatcher to call unknown.
        assert_eq!(ro.check(999, |_| 0), Ok(()));
    }

    const TABLE: Grants<'static> = Grants {
        badges: &[0, 2, 5],
        roots: &["/www", "/", "/box"],
        read_only: &[false, true, false],
    };

    #[test]
    fn a_listed_badge_gets_its_own_grant() {
        assert_eq!(
            TABLE.for_badge(2),
            Ok(Grant::new("/", Access::ReadOnly).unwrap())
        );
        assert_eq!(
            TABLE.for_badge(5),
            Ok(Grant::new("/box", Access::ReadWrite).unwrap())
        );
    }

    #[test]
    fn an_unlisted_badge_gets_nothing() {
        assert_eq!(TABLE.for_badge(0x77), Err(FsError::NoFileRights));
        // Tables cut short (never generated so) give nothing rather than
        // a neighbour's rights.
        let short = Grants {
            badges: &[3],
            roots: &[],
            read_only: &[],
        };
        assert_eq!(short.for_badge(3), Err(FsError::NoFileRights));
    }
}
