//! A task's client of the network server (`servers/net/server`):
//!
//! - **VAN**: one IPC per socket operation ([`Net::socket`], [`Net::bind`],
//!   [`Net::listen`], [`Net::accept`], [`Net::connect_to`], [`Net::send`],
//!   [`Net::recv`], [`Net::close`], [`Net::wait`], ...). Data is copied
//!   through the control region's staging area, as a system call's user
//!   buffer would be. On a blocking socket (the default) an operation that
//!   must wait — `accept`, `recv` with nothing to read, `connect` — waits
//!   in the server (it parks the request), so the call returns when it is
//!   done; a non-blocking socket gets [`NetError::WouldBlock`].
//! - **The interface**: [`Net::ping`] (one ICMP echo request, waited for
//!   in the server) and [`Net::info`] (addresses, socket counts, traffic).
//! - **Compounds**: built with `cosy_abi::Builder` over
//!   `conflux_socket_protocol::ops`, run as one IPC ([`Net::run`]); their
//!   buffers are in the control region or in attached data regions (zero
//!   copy). No op inside a compound waits: one that would block fails with
//!   `WouldBlock`, so call [`Net::wait`] first.
//!
//! - **RING**: socket operations and compounds posted into a submission
//!   ring the server polls, answers reaped from a completion ring, no IPC
//!   per request while the server is busy ([`Net::ring_open`],
//!   `ring.rs`, `docs/rings.md`). An operation that must wait (`recv` on
//!   an empty blocking socket, `accept`) is answered when it finishes, so
//!   answers come in any order: match them by [`Ticket`].
//!
//! ```ignore
//! let mut net = Net::connect(conflux_net_client::manifest_caps!())?;
//! let l = net.socket(SockKind::Stream)?;
//! net.bind(l, SockAddr::new([0; 4], 7))?;
//! net.listen(l, 4)?;
//! let c = net.accept(l)?;                  // waits for a connection
//! let n = net.recv(c, &mut buf)?;          // waits for data
//! ```
#![no_std]
#![deny(unsafe_code)]

extern crate alloc;

mod error;
mod info;
mod ring;
mod van;

use conflux_cosy_ipc::client::Session;
use conflux_cosy_ipc::client_ring::SessionRings;
use conflux_cosy_ipc::RunReply;
use cosy_abi::typed::{op_values, OpValue};

pub use conflux_cosy_ipc as ipc;
pub use conflux_cosy_ipc::client::{Caps, Operand};
pub use conflux_socket_protocol::{
    Events, NetError, NetInfo, PollEntry, SockAddr, SockKind, SocketCounts, Traffic,
};
pub use cosy_abi::ring::{Reaped, Ticket};
pub use error::Error;

/// What [`Net::run`] reports: how the compound ended, its exit value, and
/// the first op that failed with its [`NetError`].
pub type RunReport = cosy_abi::typed::RunReport<NetError>;
/// An op at fault: its index, its operation's name and why
/// (`op 2 (recv): the operation would block`).
pub type OpFailure = cosy_abi::typed::OpFailure<NetError>;
pub use van::Socket;

/// The [`Caps`] a task's manifest names `net` (the endpoint) and
/// `net_control` (the control region), read from its generated `config`.
#[macro_export]
macro_rules! manifest_caps {
    () => {
        $crate::Caps {
            endpoint: config::caps::NET,
            control: config::caps::NET_CONTROL,
            control_addr: config::caps::NET_CONTROL_ADDR,
        }
    };
}

/// A connection to the network server.
pub struct Net {
    session: Session,
    /// The ring path, once [`Net::ring_open`] set it up.
    rings: Option<SessionRings>,
}

impl Net {
    /// Connects: shares the control region with the server.
    pub fn connect(caps: Caps) -> Result<Net, Error> {
        Ok(Net {
            session: Session::connect(caps)?,
            rings: None,
        })
    }

    /// Connects again (a new session: every socket of the old one is
    /// closed, its waiting requests cancelled), sharing the control region
    /// and every data region again in the same order, so region numbers
    /// stay valid. After [`Error::ServerRestarted`] this is how a client
    /// reaches the new server instance: its sockets are gone, listeners
    /// must be opened again. Rings the old session had are opened again
    /// in their region by this call (calling [`Net::ring_open`] again
    /// would attach that region a second time); entries that were in
    /// flight are never answered, and their tickets never match a later
    /// answer. A reconnect that finds the server gone (a capability
    /// still naming the old instance, or a server that died again) is
    /// tried again a few times
    /// (`conflux_cosy_ipc::client_ring::SessionRings::reconnect`).
    pub fn reconnect(&mut self) -> Result<(), Error> {
        Ok(SessionRings::reconnect(&mut self.session, &mut self.rings)?)
    }

    /// Shares the region in `slot` (mapped by the manifest at `addr`) as
    /// the next data region; returns its number in buffer operands.
    pub fn attach(&mut self, slot: usize, addr: u64) -> Result<u8, Error> {
        Ok(self.session.attach(slot, addr)?)
    }

    /// Ends the session: the server closes every socket of this client.
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

    /// Runs `compound` (placed at the end of the control region) with
    /// `params` in `r0`.. — one IPC. A compound stopped by a failing op
    /// (with `#![fail_fast]`) or by the step budget is
    /// [`Error::Compound`], naming the op; one that went on after
    /// failures is `Ok` with [`RunReport::first_failure`] set (`.clean()`
    /// makes that an error too); [`Net::results`] gives every op's result.
    pub fn run(&mut self, compound: &[u8], params: &[u64]) -> Result<RunReport, Error> {
        let reply = self.session.run(compound, params)?;
        self.typed(reply)
    }

    /// Where [`Net::run`] puts a compound of `len` bytes.
    pub fn compound_offset(&self, len: usize) -> Option<usize> {
        self.session.compound_offset(len)
    }

    /// Verifies `compound` once; a handle for [`Net::run_prepared`].
    pub fn prepare(&mut self, compound: &[u8]) -> Result<u64, Error> {
        Ok(self.session.prepare(compound)?)
    }

    /// Runs a prepared compound with new parameters; as [`Net::run`].
    pub fn run_prepared(&mut self, handle: u64, params: &[u64]) -> Result<RunReport, Error> {
        let reply = self.session.run_prepared(handle, params)?;
        self.typed(reply)
    }

    /// Every op's result from the last run, in op order, as long as its
    /// compound is still in the control region.
    pub fn results(&mut self) -> impl Iterator<Item = OpValue<NetError>> + '_ {
        op_values(self.session.last_compound().unwrap_or(&[]))
    }

    fn typed(&mut self, reply: RunReply) -> Result<RunReport, Error> {
        reply
            .typed(
                self.session.last_compound(),
                conflux_socket_protocol::ops::TABLE,
            )
            .map_err(Error::Compound)
    }

    /// Forgets a prepared compound.
    pub fn release(&mut self, handle: u64) -> Result<(), Error> {
        Ok(self.session.release(handle)?)
    }

    /// Any operation, one IPC, operands as given (tests send exactly what
    /// they want with it).
    pub fn call(&mut self, op: u16, operands: &[Operand]) -> Result<u64, Error> {
        Ok(self.session.call(op, operands)?)
    }
}
