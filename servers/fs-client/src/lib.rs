//! A task's client of the file server (`servers/fs`), with the three
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
//! ```
#![no_std]
#![deny(unsafe_code)]

extern crate alloc;

mod error;
mod van;

use alloc::vec::Vec;

use conflux_cosy_ipc::client::Session;
pub use conflux_cosy_ipc::client::{Caps, Operand};
use conflux_fs_protocol::ipc::{self, BufArg, RunReply};
use conflux_fs_protocol::recipes::{list_long, ListLayout, LIST_TRUNCATED};
use conflux_fs_protocol::record::{Dirent, Stat};
use conflux_userlib::ipc::Message;

pub use error::{op_name, Error};
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
}

impl Fs {
    /// Connects: shares the control region with the server.
    pub fn connect(caps: Caps) -> Result<Fs, Error> {
        Ok(Fs {
            session: Session::connect(caps)?,
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
    /// the same order. Handles and prepared compounds are gone.
    pub fn reconnect(&mut self) -> Result<(), Error> {
        Ok(self.session.reconnect()?)
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
    /// `r0`.. — one IPC. Its results area is in the control region too;
    /// read it with `cosy_abi::Compound::new_checked(&fs.control()[at..])`
    /// at [`Fs::compound_offset`].
    pub fn run(&mut self, compound: &[u8], params: &[u64]) -> Result<RunReply, Error> {
        Ok(self.session.run(compound, params)?)
    }

    /// Where [`Fs::run`] puts a compound of `len` bytes.
    pub fn compound_offset(&self, len: usize) -> Option<usize> {
        self.session.compound_offset(len)
    }

    /// Runs the compound already at `offset..offset + len` of the control
    /// region.
    pub fn run_at(&mut self, offset: usize, len: usize, params: &[u64]) -> Result<RunReply, Error> {
        Ok(self.session.run_at(offset, len, params)?)
    }

    /// Verifies `compound` once (placed as [`Fs::run`] places it); returns
    /// a handle for [`Fs::run_prepared`].
    pub fn prepare(&mut self, compound: &[u8]) -> Result<u64, Error> {
        Ok(self.session.prepare(compound)?)
    }

    /// Runs a prepared compound with new parameters.
    pub fn run_prepared(&mut self, handle: u64, params: &[u64]) -> Result<RunReply, Error> {
        Ok(self.session.run_prepared(handle, params)?)
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
        let reply = self.run(&compound, &[])?;
        if reply.outcome != cosy_abi::Outcome::Finished as u16 {
            return Err(Error::from_status(u32::from(reply.stop_code), 0xFFFF)
                .unwrap_or(Error::Request(reply.stop_code)));
        }
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
