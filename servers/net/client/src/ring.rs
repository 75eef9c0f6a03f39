//! The ring path to the network server (`docs/rings.md`, "The network
//! server's rings"): socket operations and compounds posted into a
//! submission ring the server polls, answers reaped from a completion
//! ring. The mechanics are every Cosy client's
//! (`conflux_cosy_ipc::client_ring`); this module gives them the network
//! server's error type.
//!
//! Unlike the file server's, an answer may come long after its entry: an
//! operation that would wait on a blocking socket (`recv` with nothing to
//! read, `accept`, `connect`, `wait`) is taken off the ring and answered
//! when it can finish, so answers arrive in any order and an entry that
//! waits still counts against the depth (32) until it is reaped. A
//! compound entry never waits: an op in it that would block fails with
//! `WouldBlock`, as in a compound run by IPC.

use conflux_cosy_ipc::client::Operand;
use conflux_cosy_ipc::client_ring::SessionRings;
use cosy_abi::ring::{Reaped, Ticket};

use crate::{Error, Net};

impl Net {
    /// Attaches the region in `slot` (mapped by the manifest at `addr`, at
    /// least 6 KiB) as the session's rings; returns its region number
    /// (buffer operands of entries cannot name it: the server sees it
    /// empty). Buffers of ring entries go in other data regions or the
    /// control region.
    pub fn ring_open(&mut self, slot: usize, addr: u64) -> Result<u8, Error> {
        let (rings, _) = SessionRings::open(&mut self.session, slot, addr)?;
        let region = rings.region();
        self.rings = Some(rings);
        Ok(region)
    }

    /// Posts socket operation `op` (`conflux_socket_protocol::ops`) with
    /// its operands; match its answer by the ticket.
    pub fn ring_submit(&mut self, op: u16, operands: &[Operand]) -> Result<Ticket, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.submit(&mut self.session, op, operands)?)
    }

    /// Posts a compound (copied into the entry) to run with `params` in
    /// r0..; its results area is read back from [`Net::ring_entry`].
    pub fn ring_submit_compound(
        &mut self,
        compound: &[u8],
        params: &[u64],
    ) -> Result<Ticket, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.submit_compound(&mut self.session, compound, params)?)
    }

    /// After a batch of submissions: the doorbell (one RING_ENTER) if and
    /// only if the server sleeps and asked for it. True if it rang.
    pub fn ring_flush(&mut self) -> Result<bool, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.flush(&mut self.session)?)
    }

    /// The doorbell whether or not the server asked; with `wait`, returns
    /// once a completion waits (tests and tools that drive rings by hand).
    pub fn ring_doorbell(&mut self, wait: bool) -> Result<(), Error> {
        Ok(SessionRings::doorbell(&mut self.session, wait)?)
    }

    /// Entries submitted and not reaped yet, waiting ones included.
    pub fn ring_in_flight(&mut self) -> Result<u32, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.in_flight(&mut self.session)?)
    }

    /// The next answer, if one is there.
    pub fn ring_reap(&mut self) -> Result<Option<Reaped>, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.reap(&mut self.session)?)
    }

    /// The next answer, sleeping until there is one (one RING_ENTER with
    /// RING_WAIT, held by the server until an answer is posted).
    pub fn ring_wait(&mut self) -> Result<Reaped, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.wait(&mut self.session)?)
    }

    /// A compound entry's bytes (its results area filled in), until the
    /// next submission reuses its slot.
    pub fn ring_entry(&mut self, reaped: &Reaped) -> Option<&[u8]> {
        self.rings.as_ref()?.entry(&mut self.session, reaped)
    }
}
