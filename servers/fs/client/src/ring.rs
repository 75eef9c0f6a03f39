//! The ring path (`docs/rings.md`): operations and compounds posted into
//! a submission ring the file server polls, answers read from a
//! completion ring, with no IPC per request while the server is busy.
//!
//! [`Fs::ring_open`] attaches a data region the manifest gives the task,
//! formats it as rings and names it with RING. Then [`Fs::ring_submit`]
//! and [`Fs::ring_submit_compound`] post entries (up to the depth, 32, in
//! flight; the next is [`RingError::Full`]), [`Fs::ring_flush`] rings the
//! server's doorbell if and only if it asked for one (it sleeps),
//! [`Fs::ring_reap`] takes an answer if one is there and
//! [`Fs::ring_wait`] sleeps until one is (one RING_ENTER with RING_WAIT,
//! after raising the completion ring's signal-me flag).
//!
//! The rings live in the region's window, which the session keeps
//! mapped; each call attaches them again and resumes the client's slot
//! table (`ClientState`), so the library holds no borrow of the region.

use conflux_cosy_ipc::client::Operand;
use conflux_fs_protocol::ipc::{self, BufArg};
use conflux_userlib::ipc::Message;
use cosy_abi::ring::{ClientState, Parts, Reaped, RingClient, RingError, Ticket};

use crate::{Error, Fs};

/// The client's rings: the data region holding them and its slot table.
pub(crate) struct Rings {
    region: u8,
    state: Option<ClientState>,
}

impl Fs {
    /// Attaches the region in `slot` (mapped by the manifest at `addr`,
    /// at least 6 KiB) as the session's rings. Returns the region's number
    /// (buffer operands of entries cannot name it: it reads as empty).
    pub fn ring_open(&mut self, slot: usize, addr: u64) -> Result<u8, Error> {
        let region = self.attach(slot, addr)?;
        let bytes = self.data(region).ok_or(Error::NoRing)?;
        let parts = Parts::format(bytes)?;
        let len = parts.data.len();
        let state = RingClient::new(parts.submissions, parts.completions, len).suspend();
        self.exchange(&Message::new(ipc::RING, &[u64::from(region)]))?;
        self.rings = Some(Rings {
            region,
            state: Some(state),
        });
        Ok(region)
    }

    /// Runs `f` over the client's end of the rings and the data area.
    fn with_ring<R>(
        &mut self,
        f: impl FnOnce(&mut RingClient<'_>, &mut [u8]) -> Result<R, RingError>,
    ) -> Result<R, Error> {
        let rings = self.rings.as_mut().ok_or(Error::NoRing)?;
        let state = rings.state.take().ok_or(Error::NoRing)?;
        let region = rings.region;
        let bytes = self.session.data(region).ok_or(Error::NoRing)?;
        let parts = Parts::attach(bytes)?;
        let mut client = RingClient::resume(parts.submissions, parts.completions, state);
        let out = f(&mut client, parts.data);
        if let Some(r) = self.rings.as_mut() {
            r.state = Some(client.suspend());
        }
        Ok(out?)
    }

    /// Posts operation `op` of the file server's table with its operands
    /// (buffers in the control region or attached data regions).
    pub fn ring_submit(&mut self, op: u16, operands: &[Operand]) -> Result<Ticket, Error> {
        let mut words = [0u64; cosy_abi::wire::MAX_OPERANDS];
        if operands.len() > words.len() {
            return Err(Error::TooLarge);
        }
        for (w, o) in words.iter_mut().zip(operands) {
            *w = match *o {
                Operand::Value(v) => v,
                Operand::Buf {
                    region,
                    offset,
                    len,
                } => BufArg {
                    region,
                    offset,
                    len,
                }
                .pack()
                .ok_or(Error::TooLarge)?,
            };
        }
        let words = &words[..operands.len()];
        self.with_ring(|c, data| c.submit_op(data, op, words))
    }

    /// Posts a compound (copied into the entry) to run with `params` in
    /// r0..; its results area is read back from [`Fs::ring_entry`].
    pub fn ring_submit_compound(
        &mut self,
        compound: &[u8],
        params: &[u64],
    ) -> Result<Ticket, Error> {
        self.with_ring(|c, data| c.submit_compound(data, compound, params))
    }

    /// After a batch of submissions: rings the doorbell (one RING_ENTER)
    /// if the server asked for it because it sleeps; a polling server is
    /// not disturbed. True if it rang.
    pub fn ring_flush(&mut self) -> Result<bool, Error> {
        let asked = self.with_ring(|c, _| Ok(c.needs_signal()))?;
        if asked {
            self.exchange(&Message::new(ipc::RING_ENTER, &[0]))?;
        }
        Ok(asked)
    }

    /// Rings the doorbell whether or not the server asked (one
    /// RING_ENTER); with `wait`, returns only once a completion waits.
    /// For clients that drive the rings themselves (tests, tools).
    pub fn ring_doorbell(&mut self, wait: bool) -> Result<(), Error> {
        let flags = if wait { ipc::RING_WAIT } else { 0 };
        self.exchange(&Message::new(ipc::RING_ENTER, &[flags]))
            .map(drop)
    }

    /// The next answer, if one is there.
    pub fn ring_reap(&mut self) -> Result<Option<Reaped>, Error> {
        self.with_ring(|c, _| c.reap())
    }

    /// The next answer, sleeping until there is one: the doorbell, if the
    /// server asked, and the wait are one RING_ENTER.
    pub fn ring_wait(&mut self) -> Result<Reaped, Error> {
        loop {
            if let Some(r) = self.ring_reap()? {
                return Ok(r);
            }
            // The server's own request for a doorbell is taken too: the
            // RING_ENTER below wakes it either way.
            let (in_flight, sleep) = self.with_ring(|c, _| {
                let _ = c.needs_signal();
                Ok((c.in_flight(), c.prepare_to_wait()?))
            })?;
            if in_flight == 0 {
                return Err(Error::NothingInFlight);
            }
            if sleep {
                self.exchange(&Message::new(ipc::RING_ENTER, &[ipc::RING_WAIT]))?;
            }
        }
    }

    /// A compound entry's bytes (its results area filled in), for
    /// `cosy_abi::Compound::new_checked`, until the next submission.
    pub fn ring_entry(&mut self, reaped: &Reaped) -> Option<&[u8]> {
        let range = reaped.compound.clone()?;
        let region = self.rings.as_ref()?.region;
        let data = self.session.data(region)?.get_mut(cosy_abi::ring::DATA..)?;
        data.get(range)
    }
}
