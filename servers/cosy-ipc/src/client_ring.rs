//! A session's ring path (feature `client`; `docs/rings.md`), shared by
//! every Cosy server's client library: operations and compounds posted
//! into a submission ring the server polls, answers read from a
//! completion ring, with no IPC per request while the server is busy.
//!
//! [`SessionRings::open`] attaches a data region the manifest gives the
//! task, formats it as rings and names it with [`RING`]. Then `submit`
//! and `submit_compound` post entries (up to the depth, 32, in flight;
//! the next is `RingError::Full`), `flush` rings the server's doorbell if
//! and only if it asked for one (it sleeps), `reap` takes an answer if one
//! is there and `wait` sleeps until one is (one [`RING_ENTER`] with
//! [`RING_WAIT`], after raising the completion ring's signal-me flag).
//! `fs-client` and `net-client` wrap these with their own error types.
//! After the server restarted, [`SessionRings::reconnect`] remakes the
//! session and opens the rings again in their region (entries in flight
//! are lost: `docs/rings.md`, "Across a server restart").
//!
//! The rings live in the region's window, which the session keeps
//! mapped; each call attaches them again and resumes the client's slot
//! table (`ClientState`), so nothing here holds a borrow of the region.

use core::fmt;

use cosy_abi::ring::{ClientState, Parts, Reaped, RingClient, RingError, Ticket};

use crate::client::{message, Failure, Operand, Session};
use crate::{RING, RING_ENTER, RING_WAIT};

/// Why a ring call failed, before the client library names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingFailure {
    /// A RING or RING_ENTER request failed (the server's status, or IPC).
    Session(Failure),
    /// The rings refused (`Full` at the depth, an entry too large for its
    /// slot, ...) or are unusable.
    Ring(RingError),
    /// The ring region is not mapped (the session lost it).
    NoRing,
    /// A wait with no entry in flight: nothing would ever wake it.
    NothingInFlight,
}

impl From<Failure> for RingFailure {
    fn from(f: Failure) -> Self {
        RingFailure::Session(f)
    }
}

impl From<RingError> for RingFailure {
    fn from(e: RingError) -> Self {
        RingFailure::Ring(e)
    }
}

impl fmt::Display for RingFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingFailure::Session(s) => write!(f, "ring request: {s:?}"),
            RingFailure::Ring(e) => write!(f, "{e}"),
            RingFailure::NoRing => f.write_str("the ring region is not mapped in this session"),
            RingFailure::NothingInFlight => {
                f.write_str("waiting for a completion with no entry in flight: submit first")
            }
        }
    }
}

/// The client's rings: the data region holding them and its slot table.
pub struct SessionRings {
    region: u8,
    state: Option<ClientState>,
}

impl SessionRings {
    /// Attaches the region in `slot` (mapped by the manifest at `addr`,
    /// at least 6 KiB) to `session`, formats it and names it with RING.
    /// The reply's words: the depth and the step limit of one compound
    /// entry.
    pub fn open(
        session: &mut Session,
        slot: usize,
        addr: u64,
    ) -> Result<(Self, [u64; 4]), RingFailure> {
        let region = session.attach(slot, addr)?;
        let mut rings = SessionRings {
            region,
            state: None,
        };
        let reply = rings.name(session)?;
        Ok((rings, reply))
    }

    /// After the server restarted: remakes `session`
    /// ([`Session::reconnect`], which shares every data region again
    /// under its old number, the rings' region too) and, if it had
    /// `rings`, formats them afresh in that same region and names them
    /// with RING to the new server. Attaching the region again instead
    /// (a second [`SessionRings::open`]) would take a second region slot
    /// in the session for the same memory, and fail once the server's
    /// slots run out.
    ///
    /// Entries in flight went with the old server: the new rings start
    /// empty, nothing counts as in flight, and their tickets are never
    /// answered, nor taken for a later entry's
    /// (`ClientState::restarted`). Whether such an entry took effect
    /// before the server died is unknown, as for an IPC call that failed
    /// with `DeadPeer`. If naming the rings fails (the server died
    /// again), that error is returned and the next reconnect names them
    /// again; meanwhile a ring call that reaches the server fails.
    pub fn reconnect(session: &mut Session, rings: &mut Option<Self>) -> Result<(), RingFailure> {
        session.reconnect()?;
        let Some(rings) = rings.as_mut() else {
            return Ok(());
        };
        rings.state = rings.state.take().map(ClientState::restarted);
        rings.name(session).map(drop)
    }

    /// Formats the rings in their region (the client's slot table carries
    /// on if it has one) and names them with RING; the reply's words.
    fn name(&mut self, session: &mut Session) -> Result<[u64; 4], RingFailure> {
        let bytes = session.data(self.region).ok_or(RingFailure::NoRing)?;
        let parts = Parts::format(bytes)?;
        if self.state.is_none() {
            let len = parts.data.len();
            self.state = Some(RingClient::new(parts.submissions, parts.completions, len).suspend());
        }
        Ok(session.exchange(&message(RING, &[u64::from(self.region)]))?)
    }

    /// The region's number (buffer operands of entries cannot name it:
    /// the server sees it as empty).
    pub fn region(&self) -> u8 {
        self.region
    }

    /// Runs `f` over the client's end of the rings and the data area.
    fn with<R>(
        &mut self,
        session: &mut Session,
        f: impl FnOnce(&mut RingClient<'_>, &mut [u8]) -> Result<R, RingError>,
    ) -> Result<R, RingFailure> {
        let state = self.state.take().ok_or(RingFailure::NoRing)?;
        let Some(bytes) = session.data(self.region) else {
            self.state = Some(state);
            return Err(RingFailure::NoRing);
        };
        let parts = match Parts::attach(bytes) {
            Ok(p) => p,
            Err(e) => {
                self.state = Some(state);
                return Err(e.into());
            }
        };
        let mut client = RingClient::resume(parts.submissions, parts.completions, state);
        let out = f(&mut client, parts.data);
        self.state = Some(client.suspend());
        Ok(out?)
    }

    /// Posts operation `op` of the server's table with its operands
    /// (buffers in the control region or attached data regions).
    pub fn submit(
        &mut self,
        session: &mut Session,
        op: u16,
        operands: &[Operand],
    ) -> Result<Ticket, RingFailure> {
        let mut words = [0u64; cosy_abi::wire::MAX_OPERANDS];
        if operands.len() > words.len() {
            return Err(Failure::TooLarge.into());
        }
        for (w, o) in words.iter_mut().zip(operands) {
            *w = o.word()?;
        }
        let words = &words[..operands.len()];
        self.with(session, |c, data| c.submit_op(data, op, words))
    }

    /// Posts a compound (copied into the entry) to run with `params` in
    /// r0..; its results area is read back with [`SessionRings::entry`].
    pub fn submit_compound(
        &mut self,
        session: &mut Session,
        compound: &[u8],
        params: &[u64],
    ) -> Result<Ticket, RingFailure> {
        self.with(session, |c, data| c.submit_compound(data, compound, params))
    }

    /// After a batch of submissions: rings the doorbell (one RING_ENTER)
    /// if the server asked for it because it sleeps; a polling server is
    /// not disturbed. True if it rang.
    pub fn flush(&mut self, session: &mut Session) -> Result<bool, RingFailure> {
        let asked = self.with(session, |c, _| Ok(c.needs_signal()))?;
        if asked {
            session.exchange(&message(RING_ENTER, &[0]))?;
        }
        Ok(asked)
    }

    /// Rings the doorbell whether or not the server asked (one
    /// RING_ENTER); with `wait`, returns only once a completion waits.
    pub fn doorbell(session: &mut Session, wait: bool) -> Result<(), RingFailure> {
        let flags = if wait { RING_WAIT } else { 0 };
        session.exchange(&message(RING_ENTER, &[flags]))?;
        Ok(())
    }

    /// Entries submitted and not reaped yet (a deferred one included).
    pub fn in_flight(&mut self, session: &mut Session) -> Result<u32, RingFailure> {
        self.with(session, |c, _| Ok(c.in_flight()))
    }

    /// The next answer, if one is there.
    pub fn reap(&mut self, session: &mut Session) -> Result<Option<Reaped>, RingFailure> {
        self.with(session, |c, _| c.reap())
    }

    /// The next answer, sleeping until there is one: the doorbell, if the
    /// server asked, and the wait are one RING_ENTER. Answers already in
    /// the completion ring are reaped first; if the server dies, the
    /// RING_ENTER it held or never took fails with `DeadPeer`, so this
    /// returns that error instead of sleeping for ever.
    pub fn wait(&mut self, session: &mut Session) -> Result<Reaped, RingFailure> {
        loop {
            if let Some(r) = self.reap(session)? {
                return Ok(r);
            }
            // The server's own request for a doorbell is taken too: the
            // RING_ENTER below wakes it either way.
            let (in_flight, sleep) = self.with(session, |c, _| {
                let _ = c.needs_signal();
                Ok((c.in_flight(), c.prepare_to_wait()?))
            })?;
            if in_flight == 0 {
                return Err(RingFailure::NothingInFlight);
            }
            if sleep {
                session.exchange(&message(RING_ENTER, &[RING_WAIT]))?;
            }
        }
    }

    /// A compound entry's bytes (its results area filled in), for
    /// `cosy_abi::Compound::new_checked`, until the next submission.
    pub fn entry<'s>(&self, session: &'s mut Session, reaped: &Reaped) -> Option<&'s [u8]> {
        let range = reaped.compound.clone()?;
        let data = session.data(self.region)?.get_mut(cosy_abi::ring::DATA..)?;
        data.get(range)
    }
}
