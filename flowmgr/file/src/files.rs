//! The task's one session with the file server, shared by its flows, and
//! the files they hold open in it.
//!
//! The session is made at the first START (the file server may still be
//! mounting when this task starts). When the server restarts, every
//! handle of the session is gone: the first call that finds it out
//! reconnects, and the session's *epoch* moves on, so each flow opens its
//! file again before its next operation ([`Files::fd`]) and retries the
//! same buffer at the same offset.

use conflux_flow_protocol::stage::FilePath;
use conflux_flow_stage::Failure;
use conflux_fs_client::{Caps, Error, Fd, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;

/// How a flow opens its file (again, after a restart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    /// Write, making the file if it does not exist (its directory must).
    Write,
}

impl Access {
    fn flags(self) -> u64 {
        use conflux_fs_protocol::ops::{O_CREAT, O_RDONLY, O_WRONLY};
        match self {
            Access::Read => O_RDONLY,
            Access::Write => O_WRONLY | O_CREAT,
        }
    }
}

/// A flow's file: its path, how it is opened, and its handle in the
/// session of `epoch` (`None`: not open now).
pub struct Open {
    pub path: FilePath,
    access: Access,
    fd: Option<(Fd, u64)>,
}

impl Open {
    pub fn new(path: FilePath, access: Access) -> Self {
        Self {
            path,
            access,
            fd: None,
        }
    }
}

/// The session with the file server.
pub struct Files {
    caps: Caps,
    fs: Option<Fs>,
    /// The server restarted since the session was made: connect again
    /// before the next operation.
    stale: bool,
    /// Moves on at every connection: handles of an older epoch are gone.
    epoch: u64,
}

impl Files {
    pub fn new(caps: Caps) -> Self {
        Self {
            caps,
            fs: None,
            stale: false,
            epoch: 0,
        }
    }

    /// The session: connected on first use, and again after the server
    /// restarted.
    pub fn fs(&mut self) -> Result<&mut Fs, Error> {
        match &mut self.fs {
            None => {
                self.fs = Some(Fs::connect(self.caps)?);
                self.epoch += 1;
            }
            Some(fs) if self.stale => {
                fs.reconnect()?;
                self.stale = false;
                self.epoch += 1;
                println!("connected to the file server again after its restart; the flows open their files again and retry their buffers");
            }
            Some(_) => {}
        }
        self.fs.as_mut().ok_or(Error::ServerRestarted)
    }

    /// The handle of `open`'s file in the current session, opening it if
    /// the session is new.
    pub fn fd(&mut self, open: &mut Open) -> Result<Fd, Error> {
        // Connecting (again) first moves the epoch on.
        self.fs()?;
        let epoch = self.epoch;
        if let Some((fd, e)) = open.fd {
            if e == epoch {
                return Ok(fd);
            }
        }
        open.fd = None;
        let fd = self
            .fs()?
            .open(open.path.as_str(), open.access.flags(), 0o644)?;
        open.fd = Some((fd, epoch));
        Ok(fd)
    }

    /// Closes `open`'s file if this session still has it.
    pub fn close(&mut self, open: &mut Open) {
        if let Some((fd, e)) = open.fd.take() {
            if e == self.epoch && !self.stale {
                if let Some(fs) = self.fs.as_mut() {
                    // A handle the server no longer has needs no closing.
                    let _ = fs.close(fd);
                }
            }
        }
    }

    /// What a failed operation means for the buffer: the server restarted
    /// (the session is made again before the next try) or is short of
    /// memory: try the same buffer again; anything else: give it up.
    pub fn failed(&mut self, e: Error) -> Failure {
        match e {
            Error::ServerRestarted | Error::Fs(FsError::NotConnected) => {
                self.stale = true;
                Failure::Transient
            }
            Error::Fs(FsError::NoMemory | FsError::Busy) => Failure::Transient,
            _ => Failure::Permanent,
        }
    }

    /// Runs `op` on `open`'s file; if the server restarted, connects again
    /// and runs it once more (for START, which has no later turn).
    pub fn once_more<T>(
        &mut self,
        open: &mut Open,
        mut op: impl FnMut(&mut Fs, Fd) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut run = |files: &mut Self| {
            let fd = files.fd(open)?;
            op(files.fs()?, fd)
        };
        match run(self) {
            Err(e @ (Error::ServerRestarted | Error::Fs(FsError::NotConnected))) => {
                let _ = self.failed(e);
                run(self)
            }
            r => r,
        }
    }
}
