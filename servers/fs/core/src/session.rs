//! One client's file-system state — its file rights, open handles and
//! current directory — and the server-wide table of inodes that are
//! open, which makes a handle to a deleted file fail as `Stale` instead of
//! reaching whatever file later gets the same inode number.
//!
//! A session is reached only through its own client's requests (the
//! server keys sessions by the caller's badge), and a handle is an index
//! into that session's table alone: no client can name another's files.
//! Its [`Grant`] is fixed when the client connects; every path the client
//! names is resolved inside the grant's root, and the current directory
//! is kept as the client sees it (from its root), so `getcwd` never tells
//! a confined client where its root is.

use alloc::collections::BTreeMap;
use alloc::string::String;

use conflux_ext4::{DirCursor, Ino};
use conflux_fs_protocol::FsError;

use crate::path::{self, ClientPath};
use crate::rights::Grant;

/// Handles one session may have open at once.
pub const MAX_OPEN: usize = 64;

/// An open handle.
#[derive(Clone, Copy, Debug)]
pub struct OpenFile {
    pub ino: Ino,
    pub dir: bool,
    pub read: bool,
    pub write: bool,
    pub append: bool,
    /// Byte position (files) — `read`, `write` and `seek` move it.
    pub pos: u64,
    /// Where `readdir` goes on (directories).
    pub cursor: DirCursor,
    /// [`Inodes`]' clock when it was opened.
    opened_at: u64,
}

impl OpenFile {
    /// A handle opened now.
    pub fn new(ino: Ino, dir: bool, read: bool, write: bool, append: bool) -> Self {
        OpenFile {
            ino,
            dir,
            read,
            write,
            append,
            pos: 0,
            cursor: DirCursor::START,
            opened_at: 0,
        }
    }
}

/// Which inodes are open, by how many handles, and when each was last
/// deleted while open.
#[derive(Debug, Default)]
pub struct Inodes {
    clock: u64,
    open: BTreeMap<u32, Use>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Use {
    handles: u32,
    deleted_at: Option<u64>,
}

impl Inodes {
    fn opened(&mut self, ino: Ino) -> u64 {
        self.clock += 1;
        self.open.entry(ino.0).or_default().handles += 1;
        self.clock
    }

    fn closed(&mut self, ino: Ino) {
        if let Some(u) = self.open.get_mut(&ino.0) {
            u.handles = u.handles.saturating_sub(1);
            if u.handles == 0 {
                self.open.remove(&ino.0);
            }
        }
    }

    /// Inode `ino` lost its last name: every handle open on it now goes
    /// stale, while handles opened later (on a new file that reuses the
    /// number) do not.
    pub fn deleted(&mut self, ino: Ino) {
        self.clock += 1;
        if let Some(u) = self.open.get_mut(&ino.0) {
            u.deleted_at = Some(self.clock);
        }
    }

    fn is_stale(&self, file: &OpenFile) -> bool {
        self.open
            .get(&file.ino.0)
            .and_then(|u| u.deleted_at)
            .is_some_and(|at| at > file.opened_at)
    }

    /// Handles open on all sessions (for tests and statistics).
    pub fn open_handles(&self) -> u32 {
        self.open.values().map(|u| u.handles).sum()
    }
}

/// One client's state.
#[derive(Debug)]
pub struct Session {
    grant: Grant,
    /// As the client sees it: absolute from its root, normalised.
    cwd: String,
    files: [Option<OpenFile>; MAX_OPEN],
    /// The most handles open at once: `MAX_OPEN`, or the client's `quota`
    /// in the manifest if lower.
    handles: usize,
}

impl Session {
    /// A new session with the rights `grant`, standing at its root.
    pub fn new(grant: Grant) -> Self {
        Session {
            grant,
            cwd: String::from("/"),
            files: [None; MAX_OPEN],
            handles: MAX_OPEN,
        }
    }

    /// The same, with at most `quota` handles open at once (the `quota` on
    /// the client's capability in the manifest; `None`, or more than
    /// `MAX_OPEN`, leaves `MAX_OPEN`).
    pub fn with_handle_quota(self, quota: Option<u32>) -> Self {
        let handles = quota.map_or(MAX_OPEN, |q| (q as usize).min(MAX_OPEN));
        Session { handles, ..self }
    }

    /// What this client may do.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// The current directory as the client sees it.
    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// The current directory as the file system names it.
    pub fn real_cwd(&self) -> Result<String, FsError> {
        path::under(self.grant.root(), &self.cwd)
    }

    /// The path operand `raw`, resolved inside this client's root.
    pub fn resolve(&self, raw: &[u8]) -> Result<ClientPath, FsError> {
        ClientPath::resolve(self.grant.root(), &self.cwd, raw)
    }

    /// Moves to `dir` (already checked to be a directory).
    pub fn set_cwd(&mut self, dir: &ClientPath) -> Result<(), FsError> {
        let mut cwd = String::new();
        cwd.try_reserve(dir.seen().len())
            .map_err(|_| FsError::NoMemory)?;
        cwd.push_str(dir.seen());
        self.cwd = cwd;
        Ok(())
    }

    /// Takes the lowest free handle for `file`.
    pub fn open(&mut self, inodes: &mut Inodes, mut file: OpenFile) -> Result<u64, FsError> {
        if self.open_count() >= self.handles {
            return Err(FsError::TooManyOpen);
        }
        let (fd, slot) = self
            .files
            .iter_mut()
            .enumerate()
            .find(|(_, f)| f.is_none())
            .ok_or(FsError::TooManyOpen)?;
        file.opened_at = inodes.opened(file.ino);
        *slot = Some(file);
        Ok(fd as u64)
    }

    /// The open file behind handle `fd`: `BadHandle` if none, `Stale` if
    /// its file was deleted since.
    pub fn get(&mut self, inodes: &Inodes, fd: u64) -> Result<&mut OpenFile, FsError> {
        let file = usize::try_from(fd)
            .ok()
            .and_then(|i| self.files.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or(FsError::BadHandle)?;
        if inodes.is_stale(file) {
            return Err(FsError::Stale);
        }
        Ok(file)
    }

    /// Closes handle `fd` (a stale one too).
    pub fn close(&mut self, inodes: &mut Inodes, fd: u64) -> Result<(), FsError> {
        let slot = usize::try_from(fd)
            .ok()
            .and_then(|i| self.files.get_mut(i))
            .ok_or(FsError::BadHandle)?;
        let file = slot.take().ok_or(FsError::BadHandle)?;
        inodes.closed(file.ino);
        Ok(())
    }

    /// Closes every handle: the client left, died or reconnected.
    pub fn close_all(&mut self, inodes: &mut Inodes) {
        for slot in &mut self.files {
            if let Some(file) = slot.take() {
                inodes.closed(file.ino);
            }
        }
    }

    /// Handles open in this session.
    pub fn open_count(&self) -> usize {
        self.files.iter().flatten().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(ino: u32) -> OpenFile {
        OpenFile::new(Ino(ino), false, true, false, false)
    }

    fn session() -> Session {
        Session::new(Grant::whole_tree())
    }

    #[test]
    fn handles_are_per_session_and_reused_lowest_first() {
        let mut inodes = Inodes::default();
        let (mut a, mut b) = (session(), session());
        assert_eq!(a.open(&mut inodes, file(12)).unwrap(), 0);
        assert_eq!(a.open(&mut inodes, file(13)).unwrap(), 1);
        assert_eq!(b.get(&inodes, 0).unwrap_err(), FsError::BadHandle);
        a.close(&mut inodes, 0).unwrap();
        assert_eq!(a.close(&mut inodes, 0).unwrap_err(), FsError::BadHandle);
        assert_eq!(a.open(&mut inodes, file(14)).unwrap(), 0);
        assert_eq!(a.get(&inodes, u64::MAX).unwrap_err(), FsError::BadHandle);
        assert_eq!(inodes.open_handles(), 2);
        a.close_all(&mut inodes);
        assert_eq!(inodes.open_handles(), 0);
    }

    #[test]
    fn the_table_fills_up() {
        let mut inodes = Inodes::default();
        let mut s = session();
        for _ in 0..MAX_OPEN {
            s.open(&mut inodes, file(12)).unwrap();
        }
        assert_eq!(
            s.open(&mut inodes, file(12)).unwrap_err(),
            FsError::TooManyOpen
        );
    }

    #[test]
    fn a_quota_lowers_the_limit_and_a_close_makes_room() {
        let mut inodes = Inodes::default();
        let mut s = session().with_handle_quota(Some(3));
        for _ in 0..3 {
            s.open(&mut inodes, file(12)).unwrap();
        }
        assert_eq!(
            s.open(&mut inodes, file(12)).unwrap_err(),
            FsError::TooManyOpen
        );
        s.close(&mut inodes, 1).unwrap();
        assert_eq!(s.open(&mut inodes, file(12)), Ok(1));
        let big = session().with_handle_quota(Some(1 << 20));
        assert_eq!(big.handles, MAX_OPEN, "never past the table");
    }

    #[test]
    fn a_departed_client_gives_back_every_handle_round_after_round() {
        // What the server does when the supervisor says a client is gone
        // (and on reconnect): `close_all`, then a fresh session.
        let mut inodes = Inodes::default();
        let mut other = session().with_handle_quota(Some(4));
        for i in 0..4 {
            other.open(&mut inodes, file(30 + i)).unwrap();
        }
        for round in 0..1000 {
            let mut gone = session().with_handle_quota(Some(4));
            for i in 0..4 {
                gone.open(&mut inodes, file(12 + i % 2)).unwrap();
            }
            assert_eq!(
                gone.open(&mut inodes, file(12)).unwrap_err(),
                FsError::TooManyOpen,
                "round {round}: at its quota"
            );
            assert_eq!(inodes.open_handles(), 8);
            gone.close_all(&mut inodes);
            assert_eq!(gone.open_count(), 0);
            assert_eq!(
                inodes.open_handles(),
                4,
                "round {round}: back to the baseline"
            );
        }
        assert!(
            other.get(&inodes, 3).is_ok(),
            "the other client never lost a handle"
        );
        other.close_all(&mut inodes);
        assert_eq!(inodes.open_handles(), 0);
    }

    #[test]
    fn a_deleted_inode_stales_old_handles_only() {
        let mut inodes = Inodes::default();
        let (mut a, mut b) = (session(), session());
        let old = a.open(&mut inodes, file(20)).unwrap();
        inodes.deleted(Ino(20));
        // The number is reused by a new file that b opens.
        let new = b.open(&mut inodes, file(20)).unwrap();
        assert_eq!(a.get(&inodes, old).unwrap_err(), FsError::Stale);
        assert!(b.get(&inodes, new).is_ok());
        a.close(&mut inodes, old).unwrap();
        b.close(&mut inodes, new).unwrap();
        assert_eq!(inodes.open_handles(), 0);
    }
}

#[cfg(test)]
mod confined {
    use super::*;
    use crate::rights::Access;

    #[test]
    fn the_current_directory_is_kept_as_the_client_sees_it() {
        let mut s = Session::new(Grant::new("/www", Access::ReadOnly).unwrap());
        assert_eq!(s.cwd(), "/");
        assert_eq!(s.real_cwd().unwrap(), "/www");
        let dir = s.resolve(b"sub/../sub/deeper").unwrap();
        s.set_cwd(&dir).unwrap();
        assert_eq!(s.cwd(), "/sub/deeper");
        assert_eq!(s.real_cwd().unwrap(), "/www/sub/deeper");
        let up = s.resolve(b"../../../../..").unwrap();
        assert_eq!(up.real(), "/www");
        s.set_cwd(&up).unwrap();
        assert_eq!(s.cwd(), "/");
    }
}
