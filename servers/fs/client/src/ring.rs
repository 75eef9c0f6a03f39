//! The ring path (`docs/rings.md`): operations and compounds posted into
//! a submission ring the file server polls, answers read from a
//! completion ring, with no IPC per request while the server is busy.
//!
//! [`Fs::ring_open`] attaches a data region the manifest gives the task,
//! formats it as rings and names it with RING. Then [`Fs::ring_submit`]
//! and [`Fs::ring_submit_compound`] post entries (up to the depth, 32, in
//! flight; the next is `RingError::Full`), [`Fs::ring_flush`] rings the
//! server's doorbell if and only if it asked for one (it sleeps),
//! [`Fs::ring_reap`] takes an answer if one is there and
//! [`Fs::ring_wait`] sleeps until one is. The mechanics are shared with
//! every Cosy client (`conflux_cosy_ipc::client_ring`); this module gives
//! them the file server's error type. After a server restart,
//! [`Fs::reconnect`] opens the rings again in their region.

use conflux_cosy_ipc::client::Operand;
use conflux_cosy_ipc::client_ring::SessionRings;
use cosy_abi::ring::{Reaped, Ticket};

use crate::{Error, Fs};

impl Fs {
    /// Attaches the region in `slot` (mapped by the manifest at `addr`,
    /// at least 6 KiB) as the session's rings. Returns the region's number
    /// (buffer operands of entries cannot name it: it reads as empty).
    pub fn ring_open(&mut self, slot: usize, addr: u64) -> Result<u8, Error> {
        let (rings, _) = SessionRings::open(&mut self.session, slot, addr)?;
        let region = rings.region();
        self.rings = Some(rings);
        Ok(region)
    }

    /// Posts operation `op` of the file server's table with its operands
    /// (buffers in the control region or attached data regions).
    pub fn ring_submit(&mut self, op: u16, operands: &[Operand]) -> Result<Ticket, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.submit(&mut self.session, op, operands)?)
    }

    /// Posts a compound (copied into the entry) to run with `params` in
    /// r0..; its results area is read back from [`Fs::ring_entry`].
    pub fn ring_submit_compound(
        &mut self,
        compound: &[u8],
        params: &[u64],
    ) -> Result<Ticket, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.submit_compound(&mut self.session, compound, params)?)
    }

    /// After a batch of submissions: rings the doorbell (one RING_ENTER)
    /// if the server asked for it because it sleeps; a polling server is
    /// not disturbed. True if it rang.
    pub fn ring_flush(&mut self) -> Result<bool, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.flush(&mut self.session)?)
    }

    /// Rings the doorbell whether or not the server asked (one
    /// RING_ENTER); with `wait`, returns only once a completion waits.
    /// For clients that drive the rings themselves (tests, tools).
    pub fn ring_doorbell(&mut self, wait: bool) -> Result<(), Error> {
        Ok(SessionRings::doorbell(&mut self.session, wait)?)
    }

    /// Entries submitted and not reaped yet.
    pub fn ring_in_flight(&mut self) -> Result<u32, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.in_flight(&mut self.session)?)
    }

    /// The next answer, if one is there.
    pub fn ring_reap(&mut self) -> Result<Option<Reaped>, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.reap(&mut self.session)?)
    }

    /// The next answer, sleeping until there is one: the doorbell, if the
    /// server asked, and the wait are one RING_ENTER. If the server dies
    /// meanwhile this is [`Error::ServerRestarted`], not a sleep for ever:
    /// [`Fs::reconnect`], and the entries still in flight are lost.
    pub fn ring_wait(&mut self) -> Result<Reaped, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        Ok(rings.wait(&mut self.session)?)
    }

    /// A compound entry's bytes (its results area filled in), for
    /// `cosy_abi::Compound::new_checked`, until the next submission.
    pub fn ring_entry(&mut self, reaped: &Reaped) -> Option<&[u8]> {
        self.rings.as_ref()?.entry(&mut self.session, reaped)
    }
}
