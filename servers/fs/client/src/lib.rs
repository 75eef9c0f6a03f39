//! A task's client of the file server (`servers/fs/server`), with the three
//! paths every operation can take:
//!
//! - **VAN**: one IPC per operation. Paths and data are copied through
//!   the connection's control region, which plays the part of a system
//!   call's user buffer: the client copies in, the server copies out.
//!   `fs.stat("/etc/x")`, `fs.read(fd, &mut buf)`.
//! - **COSY**: a compound (built with `cosy_abi::Builder`, or a recipe
//!   from `conflux_fs_protocol::recipes`) run as one IPC; its buffers are
//!   in the control region, and the client copies results out.
//!   `fs.list_long("/")` is `ls -l` this way.
//! - **COSY-FAST**: the same, with buffers in a data region the client
//!   attached ([`Fs::attach`]) and uses in place: nothing is copied on the
//!   client's side. [`Fs::data`] gives the region's bytes, and
//!   `cosy_abi::RegionAlloc` hands out blocks of it.
//!
//! - **RING**: operations and compounds posted into a submission ring
//!   the server polls, answers reaped from a completion ring, no IPC per
//!   request while the server is busy (`ring.rs`, `docs/rings.md`).
//!
//! ```ignore
//! let mut fs = Fs::connect(Caps { endpoint: caps::FS, control: caps::FS_CONTROL,
//!                                 control_addr: caps::FS_CONTROL_ADDR })?;
//! let st = fs.stat("/README")?;                     // VAN
//! let mut b = cosy_abi::Builder::new();             // COSY: a compound
//! let (fd, n) = (b.reg(), b.reg());
//! let path = b.buf(0, 0, 16);
//! let into = b.buf(0, 4096, 4096);
//! b.call(fd, ops::OPEN, (path, ops::O_RDONLY, 0));
//! b.call(n, ops::READ, (fd, into, 4096));
//! b.call_void(ops::CLOSE, (fd,));
//! b.exit(n);
//! fs.control()[..8].copy_from_slice(b"/README\0");
//! let run = fs.run(&b.build()?, &[])?;              // one IPC
//! // A missing file: Err(Error::Compound(..)) if the compound is
//! // fail-fast ("op 0 (open): no such file or directory"), else
//! // Ok(run) with run.first_failure naming op 0 and FsError::NotFound.
//! ```
#![no_std]
#![deny(unsafe_code)]

extern crate alloc;

mod error;
mod ring;
mod van;

use alloc::vec::Vec;

use conflux_cosy_ipc::client::Session;
pub use conflux_cosy_ipc::client::{Caps, Operand};
use conflux_cosy_ipc::client_ring::SessionRings;
use conflux_fs_protocol::ipc::{self, BufArg, RunReply};
use conflux_fs_protocol::recipes::{list_long, ListLayout, LIST_TRUNCATED};
use conflux_fs_protocol::record::{Dirent, Stat};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Message;
use cosy_abi::typed::{op_values, OpValue};

pub use cosy_abi::ring::{Reaped, Ticket};
pub use error::{op_name, Error};

/// What [`Fs::run`] reports: how the compound ended, its exit value, and
/// the first op that failed with its [`FsError`].
pub type RunReport = cosy_abi::typed::RunReport<FsError>;
/// An op at fault: its index, its operation's name and why
/// (`op 1 (open): no such file or directory`).
pub type OpFailure = cosy_abi::typed::OpFailure<FsError>;
pub use van::Fd;

/// The [`Caps`] a task's manifest names `fs` (the endpoint) and
/// `fs_control` (the control region), read from its generated `config`.
#[macro_export]
macro_rules! manifest_caps {
    () => {
        $crate::Caps {
            endpoint: config::caps::FS,
            control: config::caps::FS_CONTROL,
            control_addr: config::caps::FS_CONTROL_ADDR,
        }
    };
}

/// Bytes of the control region kept for two paths (VAN requests).
const PATHS: usize = 2 * 4096;

/// A connection to the file server.
pub struct Fs {
    session: Session,
    /// The ring path, once [`Fs::ring_open`] set it up.
    rings: Option<SessionRings>,
}

impl Fs {
    /// Connects: shares the control region with the server.
    pub fn connect(caps: Caps) -> Result<Fs, Error> {
        Ok(Fs {
            session: Session::connect(caps)?,
            rings: None,
        })
    }

    /// For test tasks: [`Fs::connect`], or a `CHECK FAILED` line that says
    /// why and the end of the task.
    pub fn connect_or_fail(caps: Caps) -> Fs {
        Self::connect(caps).unwrap_or_else(|e| {
            conflux_userlib::println!("CHECK FAILED: connect to the file server: {e}");
            conflux_userlib::sys::exit(1)
        })
    }

    /// Connects again after [`Error::ServerRestarted`]: the new server
    /// instance gets the control region and every data region again, in
    /// the same order, so region numbers stay valid. Handles and
    /// prepared compounds are gone. Rings the old session had are opened
    /// again in their region by this call (calling [`Fs::ring_open`]
    /// again would attach that region a second time); entries that were
    /// in flight are never answered (whether they took effect is
    /// unknown, as for a call that failed), and their tickets never
    /// match a later answer. A reconnect that finds the server gone (a
    /// capability still naming the old instance, or a server that died
    /// again) is tried again a few times
    /// (`conflux_cosy_ipc::client_ring::SessionRings::reconnect`).
    pub fn reconnect(&mut self) -> Result<(), Error> {
        Ok(SessionRings::reconnect(&mut self.session, &mut self.rings)?)
    }

    /// Whether a call found the file server gone (it died or restarted)
    /// since the session was made or last remade: its handles are gone,
    /// and must be forgotten, not closed, before [`Fs::reconnect`] (a
    /// handle number of the new session may then name another file).
    pub fn lost(&self) -> bool {
        self.session.lost()
    }

    /// Shares the region in `slot` (mapped by the manifest at `addr`) as
    /// the next data region; returns its number in buffer operands (1, 2, ...).
    pub fn attach(&mut self, slot: usize, addr: u64) -> Result<u8, Error> {
        Ok(self.session.attach(slot, addr)?)
    }

    /// Asks the server to write everything back, unmount and stop (the
    /// client's badge must carry `ipc::ADMIN`). Returns once the disk is
    /// clean.
    pub fn shutdown(&mut self) -> Result<(), Error> {
        self.exchange(&Message::new(ipc::SHUTDOWN, &[])).map(drop)
    }

    /// Ends the session (the server closes its handles).
    pub fn detach(&mut self) -> Result<(), Error> {
        Ok(self.session.detach()?)
    }

    /// The control region's bytes (region 0 of every compound).
    pub fn control(&mut self) -> &mut [u8] {
        self.session.control()
    }

    /// Data region `number`'s bytes (1 for the first attached).
    pub fn data(&mut self, number: u8) -> Option<&mut [u8]> {
        self.session.data(number)
    }

    /// The most steps the server lets one run take.
    pub fn max_steps(&self) -> u64 {
        self.session.max_steps()
    }

    /// The most ops the server decodes in one compound.
    pub fn max_ops(&self) -> u64 {
        self.session.max_ops()
    }

    /// Sends `msg` and returns the reply's words, or its status as an error.
    fn exchange(&mut self, msg: &Message) -> Result<[u64; 4], Error> {
        Ok(self.session.exchange(msg)?)
    }

    /// Runs `compound` (placed at the end of the control region, so the
    /// region's start stays free for its buffers) with `params` in
    /// `r0`.. — one IPC. A compound stopped by a failing op (with
    /// `#![fail_fast]`) or by the step budget is [`Error::Compound`],
    /// naming the op; one that went on after failures is `Ok` with
    /// [`RunReport::first_failure`] set (`.clean()` makes that an error
    /// too); [`Fs::results`] gives every op's result.
    pub fn run(&mut self, compound: &[u8], params: &[u64]) -> Result<RunReport, Error> {
        let reply = self.session.run(compound, params)?;
        self.typed(reply)
    }

    /// Where [`Fs::run`] puts a compound of `len` bytes.
    pub fn compound_offset(&self, len: usize) -> Option<usize> {
        self.session.compound_offset(len)
    }

    /// Runs the compound already at `offset..offset + len` of the control
    /// region; as [`Fs::run`].
    pub fn run_at(
        &mut self,
        offset: usize,
        len: usize,
        params: &[u64],
    ) -> Result<RunReport, Error> {
        let reply = self.session.run_at(offset, len, params)?;
        self.typed(reply)
    }

    /// Verifies `compound` once (placed as [`Fs::run`] places it); returns
    /// a handle for [`Fs::run_prepared`].
    pub fn prepare(&mut self, compound: &[u8]) -> Result<u64, Error> {
        Ok(self.session.prepare(compound)?)
    }

    /// Runs a prepared compound with new parameters; as [`Fs::run`].
    pub fn run_prepared(&mut self, handle: u64, params: &[u64]) -> Result<RunReport, Error> {
        let reply = self.session.run_prepared(handle, params)?;
        self.typed(reply)
    }

    /// Every op's result from the last run, in op order, as long as its
    /// compound is still in the control region.
    pub fn results(&mut self) -> impl Iterator<Item = OpValue<FsError>> + '_ {
        op_values(self.session.last_compound().unwrap_or(&[]))
    }

    fn typed(&mut self, reply: RunReply) -> Result<RunReport, Error> {
        reply
            .typed(
                self.session.last_compound(),
                conflux_fs_protocol::ops::TABLE,
            )
            .map_err(Error::Compound)
    }

    /// Forgets a prepared compound, making room for another
    /// (`MAX_PREPARED` per session).
    pub fn release(&mut self, handle: u64) -> Result<(), Error> {
        Ok(self.session.release(handle)?)
    }

    /// `ls -l` of directory `path` as one compound (COSY): every entry
    /// with its stat, copied out of the control region. `Ok((list, true))`
    /// if the region could not hold them all (the first ones are listed).
    pub fn list_long(&mut self, path: &str) -> Result<(Vec<(Dirent, Stat)>, bool), Error> {
        let probe = list_long(ListLayout::packed(0, 0, 1)).map_err(|_| Error::TooLarge)?;
        let per = (Dirent::SIZE + Stat::SIZE) as u32;
        let room = self
            .session
            .control_len()
            .saturating_sub(probe.len() + 4096 + 64) as u32;
        let layout = ListLayout::packed(0, 0, room / per);
        let compound = list_long(layout).map_err(|_| Error::TooLarge)?;
        put_path(self.control(), 0, path)?;
        let reply = self.run(&compound, &[])?.clean()?;
        let count = (reply.exit_value & !LIST_TRUNCATED) as usize;
        let region = self.control();
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let e = layout.entries as usize + i * Dirent::SIZE;
            let s = layout.stats as usize + i * Stat::SIZE;
            if let (Some(d), Some(st)) = (Dirent::decode(&region[e..]), Stat::decode(&region[s..]))
            {
                out.push((d, st));
            }
        }
        Ok((out, reply.exit_value & LIST_TRUNCATED != 0))
    }
}

/// Writes `path` NUL-terminated at `at`; its buffer operand.
fn put_path(region: &mut [u8], at: usize, path: &str) -> Result<u64, Error> {
    let bytes = path.as_bytes();
    if bytes.len() >= 4096 {
        return Err(Error::Fs(conflux_fs_protocol::FsError::NameTooLong));
    }
    let dst = region
        .get_mut(at..at + bytes.len() + 1)
        .ok_or(Error::TooLarge)?;
    dst[..bytes.len()].copy_from_slice(bytes);
    dst[bytes.len()] = 0;
    BufArg {
        region: 0,
        offset: at as u32,
        len: bytes.len() as u32 + 1,
    }
    .pack()
    .ok_or(Error::TooLarge)
}
