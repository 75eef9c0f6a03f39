//! Both ends of a network connection over one shared region, and the one
//! module here that touches the shared memory directly.
#![allow(unsafe_code)]

use crate::{
    Frame, LinkError, Recovered, Refused, Status, CAPACITY, HEADER, HEADROOM, LAYOUT, MAX_FRAME,
    MIN_FRAME, RX_STATUS, TX_RING, TX_STATUS,
};
use conflux_queue::link::{self, Rings};
use conflux_queue::{Consumer, Descriptor, PopError, Producer, ValidDescriptor};
use core::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// The header at the start of the region, as atomics: the other side may
/// write it at any time, so it is never read as plain memory.
#[repr(C)]
struct Header {
    mac: AtomicU64,
    link: AtomicU32,
    detach: AtomicU32,
    detached: AtomicU32,
    _pad: AtomicU32,
    /// The client's session number (0: none, or being formatted).
    session: AtomicU64,
    /// The session the driver serves.
    attached: AtomicU64,
}

type Table = [AtomicU32; CAPACITY as usize];

const _: () = assert!(core::mem::size_of::<Header>() <= TX_STATUS - HEADER);
const _: () = assert!(TX_STATUS + CAPACITY as usize * 4 <= RX_STATUS);
const _: () = assert!(RX_STATUS + CAPACITY as usize * 4 <= TX_RING);

/// The header and the two status tables of a region at `base`.
struct Parts {
    header: &'static Header,
    tx_status: &'static Table,
    rx_status: &'static Table,
}

/// # Safety
/// `base..base + len` is mapped, writable and page aligned for the rest of
/// the program, and `len` passed `LAYOUT.check_len`.
unsafe fn parts(base: *mut u8) -> Parts {
    // Safety: the caller's promise; the parts lie before the first ring
    // (the asserts above), so inside the region, are suitably aligned
    // (page-aligned base, offsets of 0x100), and are only ever accessed as
    // atomics.
    unsafe {
        Parts {
            header: &*base.add(HEADER).cast::<Header>(),
            tx_status: &*base.add(TX_STATUS).cast::<Table>(),
            rx_status: &*base.add(RX_STATUS).cast::<Table>(),
        }
    }
}

fn entry(table: &Table, id: u32) -> Option<&AtomicU32> {
    table.get(id as usize)
}

fn status_of(table: &Table, id: u32) -> Status {
    entry(table, id).map_or(Status::BadDescriptor, |e| {
        Status::from_raw(e.load(Ordering::Acquire))
    })
}

/// The driver's end.
pub struct Server {
    parts: Parts,
    tx: Consumer<'static>,
    tx_done: Producer<'static>,
    rx_free: Consumer<'static>,
    rx: Producer<'static>,
    /// Descriptors taken from tx (rx-free) and not answered yet.
    tx_owed: u32,
    rx_owed: u32,
    /// The client session this end serves.
    session: u64,
}

/// Takes the next descriptor from `popped`, marks its entry in `table`
/// `InFlight` (so a restarted driver knows it was taken), and checks its
/// headroom and length; `Ok` is the range the device gets.
fn checked(
    popped: Result<Option<ValidDescriptor>, PopError>,
    table: &Table,
    len_ok: impl Fn(u32) -> Option<u32>,
    bad_len: Status,
) -> Result<Option<Result<Frame, Refused>>, LinkError> {
    let (d, inside) = match link::take(popped, Status::BadDescriptor)? {
        None => return Ok(None),
        Some(Ok(d)) => (d, true),
        Some(Err(refused)) => (refused.descriptor, false),
    };
    if let Some(e) = entry(table, d.id) {
        e.store(Status::InFlight as u32, Ordering::Release);
    }
    let refuse = |status| {
        Ok(Some(Err(Refused {
            descriptor: d,
            status,
        })))
    };
    if !inside || d.offset < HEADROOM || d.id >= CAPACITY {
        return refuse(Status::BadDescriptor);
    }
    let Some(len) = len_ok(d.len) else {
        return refuse(bad_len);
    };
    Ok(Some(Ok(Frame {
        descriptor: d,
        start: d.offset - HEADROOM,
        len: HEADROOM as u32 + len,
    })))
}

impl Server {
    /// Attaches to the session a client formatted the region for
    /// (`NotFormatted` while there is none, or while one is being set up).
    /// Call [`Server::start`] before serving.
    ///
    /// # Safety
    /// `base..base + len` must be mapped, writable, page aligned, and stay
    /// mapped for the rest of the program.
    pub unsafe fn attach(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        // Safety: the caller's promise; `link::attach` checks the length
        // before `parts` is used.
        let Rings { rings, data } = unsafe { link::attach(base, len, &LAYOUT) }?;
        // Safety: the caller's promise, and `attach` checked the length.
        let parts = unsafe { parts(base) };
        let session = parts.header.session.load(Ordering::Acquire);
        if session == 0 {
            return Err(LinkError::NotFormatted);
        }
        // The rings read above belong to `session` only if the client did
        // not begin formatting meanwhile.
        fence(Ordering::SeqCst);
        if parts.header.session.load(Ordering::Acquire) != session {
            return Err(LinkError::NotFormatted);
        }
        let [tx, tx_done, rx_free, rx] = rings;
        Ok(Self {
            parts,
            tx: tx.into_consumer(data),
            tx_done: tx_done.into_producer(),
            rx_free: rx_free.into_consumer(data),
            rx: rx.into_producer(),
            tx_owed: 0,
            rx_owed: 0,
            session,
        })
    }

    /// The session this end serves.
    pub fn session(&self) -> u64 {
        self.session
    }

    /// Whether the client still runs this session (false once it began
    /// formatting the region again: a restarted client).
    pub fn current(&self) -> bool {
        self.parts.header.session.load(Ordering::Acquire) == self.session
    }

    /// Starts serving the session: if a previous driver instance served
    /// this same session (a driver restart), answers `Restarted` to what
    /// it left in flight; then publishes the MAC and
    /// link and, through `attached`, tells the client its session is
    /// served. Returns what was answered `Restarted`, and whether the
    /// client asked to be signalled.
    pub fn start(
        &mut self,
        mac: [u8; 6],
        link: crate::Link,
    ) -> Result<(Recovered, bool), LinkError> {
        let h = self.parts.header;
        let got = if h.attached.load(Ordering::Acquire) == self.session {
            self.recover()?
        } else {
            (Recovered::default(), false)
        };
        self.publish(mac, link);
        h.attached.store(self.session, Ordering::Release);
        Ok(got)
    }

    /// After a pop: whether what was popped belongs to this session (the
    /// client did not begin formatting before it was read). A descriptor
    /// popped from a session that ended is dropped: nobody is left to
    /// answer. (Before the pop, `current` keeps a stale end off the rings:
    /// a new session hands nothing over before it is attached, so its rings
    /// stay empty until then.)
    fn still_current(&self) -> bool {
        fence(Ordering::SeqCst);
        self.current()
    }

    /// Tells the client the device's MAC address and link state.
    fn publish(&self, mac: [u8; 6], link: crate::Link) {
        let h = self.parts.header;
        h.mac.store(crate::mac_to_u64(mac), Ordering::Relaxed);
        h.link.store(link as u32, Ordering::Release);
    }

    /// Whether the client asked to detach.
    pub fn detach_requested(&self) -> bool {
        self.parts.header.detach.load(Ordering::Acquire) != 0
    }

    /// Tells the client its detach is done (signal it afterwards).
    pub fn confirm_detach(&self) {
        self.parts.header.detached.store(1, Ordering::Release);
    }

    fn tx_blocked(&self) -> Result<bool, LinkError> {
        Ok(self.tx_done.free()? <= self.tx_owed)
    }

    fn rx_blocked(&self) -> Result<bool, LinkError> {
        Ok(self.rx.free()? <= self.rx_owed)
    }

    /// The next frame to send, checked: `Ok(None)` when there is none (or
    /// no room to answer it yet), `Ok(Some(Err(refused)))` for one to
    /// answer with an error at once. Every descriptor returned must be
    /// answered with [`Server::tx_done`].
    pub fn next_tx(&mut self) -> Result<Option<Result<Frame, Refused>>, LinkError> {
        if self.tx_blocked()? {
            return Ok(None);
        }
        if !self.current() {
            return Ok(None);
        }
        let popped = self.tx.pop();
        if !self.still_current() {
            return Ok(None);
        }
        let got = checked(
            popped,
            self.parts.tx_status,
            |len| (MIN_FRAME..=MAX_FRAME).contains(&len).then_some(len),
            Status::BadLength,
        )?;
        self.tx_owed += u32::from(got.is_some());
        Ok(got)
    }

    /// The next empty buffer to receive into, checked as [`Server::next_tx`];
    /// the frame's room is cut to [`MAX_FRAME`]. Every descriptor returned
    /// must be answered with [`Server::rx_done`].
    pub fn next_rx_buffer(&mut self) -> Result<Option<Result<Frame, Refused>>, LinkError> {
        if self.rx_blocked()? {
            return Ok(None);
        }
        if !self.current() {
            return Ok(None);
        }
        let popped = self.rx_free.pop();
        if !self.still_current() {
            return Ok(None);
        }
        let got = checked(
            popped,
            self.parts.rx_status,
            |len| (len >= MAX_FRAME).then_some(MAX_FRAME),
            Status::TooSmall,
        )?;
        self.rx_owed += u32::from(got.is_some());
        Ok(got)
    }

    /// Answers tx descriptor `d` (as received) with `status`. Returns
    /// whether the client asked to be signalled. An answer for a session
    /// the client has left is dropped: the rings belong to its new one.
    pub fn tx_done(&mut self, d: Descriptor, status: Status) -> Result<bool, LinkError> {
        if !self.current() {
            // The session ended: its rings are the new session's now.
            return Ok(false);
        }
        if let Some(e) = entry(self.parts.tx_status, d.id) {
            e.store(status as u32, Ordering::Release);
        }
        self.tx_done.push(d)?;
        self.tx_owed = self.tx_owed.saturating_sub(1);
        Ok(self.tx_done.needs_signal())
    }

    /// Answers rx-free descriptor `d` with `status`; with [`Status::Ok`],
    /// `frame_len` bytes were received at its offset (the descriptor goes
    /// back with that length), otherwise it goes back as received.
    pub fn rx_done(
        &mut self,
        d: Descriptor,
        status: Status,
        frame_len: u32,
    ) -> Result<bool, LinkError> {
        if !self.current() {
            return Ok(false);
        }
        let back = match status {
            Status::Ok => Descriptor {
                len: frame_len.min(d.len),
                ..d
            },
            _ => d,
        };
        if let Some(e) = entry(self.parts.rx_status, d.id) {
            e.store(status as u32, Ordering::Release);
        }
        self.rx.push(back)?;
        self.rx_owed = self.rx_owed.saturating_sub(1);
        Ok(self.rx.needs_signal())
    }

    /// After a driver restart, before taking anything (from
    /// [`Server::start`]): answers
    /// [`Status::Restarted`] to every tx frame and rx buffer a previous
    /// instance took and never answered (their entries still read
    /// `InFlight`), as `{offset: 0, len: 0, id}`. Returns how many, and
    /// whether the client asked to be signalled.
    ///
    /// A client that writes `InFlight` into its own entries gets answers
    /// for buffers it never handed over, or `Full` if they do not fit the
    /// ring: it confuses no one but itself.
    fn recover(&mut self) -> Result<(Recovered, bool), LinkError> {
        let mut got = Recovered::default();
        let mut signal = false;
        let lost = |table: &Table, id: u32| {
            entry(table, id).is_some_and(|e| e.load(Ordering::Acquire) == Status::InFlight as u32)
        };
        for id in 0..CAPACITY {
            let d = Descriptor {
                offset: 0,
                len: 0,
                id,
            };
            if lost(self.parts.tx_status, id) {
                signal |= self.tx_done(d, Status::Restarted)?;
                got.tx += 1;
            }
            if lost(self.parts.rx_status, id) {
                signal |= self.rx_done(d, Status::Restarted, 0)?;
                got.rx += 1;
            }
        }
        Ok((got, signal))
    }

    /// Before sleeping: asks the client to signal, and says whether it is
    /// safe to sleep (nothing arrived meanwhile that can be taken now).
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        let tx = self.tx.prepare_to_wait()? || self.tx_blocked()?;
        let rx = self.rx_free.prepare_to_wait()? || self.rx_blocked()?;
        Ok(tx && rx && !self.detach_requested())
    }
}

/// The client's end.
pub struct Client {
    parts: Parts,
    session: u64,
    previous: u64,
    tx: Producer<'static>,
    tx_done: Consumer<'static>,
    rx_free: Producer<'static>,
    rx: Consumer<'static>,
    data_len: u64,
}

impl Client {
    /// Begins a new session on the region: clears the session word (a
    /// driver seeing 0 keeps off the rings), formats the rings, the
    /// header and the status tables, then publishes a session number made
    /// from `nonce` (a time stamp) and so tells a driver still serving an
    /// earlier session of this region (the client's previous instance) to
    /// let go of it. Ring the doorbell after, and hand over buffers only
    /// once [`Client::attached`].
    ///
    /// # Safety
    /// As for [`Server::attach`]; the driver touches the region only
    /// through [`Server`].
    pub unsafe fn format(base: *mut u8, len: usize, nonce: u64) -> Result<Self, LinkError> {
        LAYOUT.check_len(len)?;
        // Safety: the caller's promise, and the length was checked.
        let parts = unsafe { parts(base) };
        let h = parts.header;
        let previous = h.session.swap(0, Ordering::SeqCst);
        // Safety: the caller's promise; a driver seeing session 0 keeps off
        // the rings (and re-checks the word after every descriptor it pops).
        let Rings { rings, data } = unsafe { link::format(base, len, &LAYOUT) }?;
        let [tx, tx_done, rx_free, rx] = rings;
        h.mac.store(0, Ordering::Relaxed);
        h.detach.store(0, Ordering::Relaxed);
        h.detached.store(0, Ordering::Relaxed);
        h.link
            .store(crate::Link::Unattached as u32, Ordering::Relaxed);
        for e in parts.tx_status.iter().chain(parts.rx_status.iter()) {
            e.store(Status::Pending as u32, Ordering::Relaxed);
        }
        let session = conflux_queue::link::next_session(previous, nonce);
        // Release: rings, header and tables are written before a driver
        // can see the new number.
        h.session.store(session, Ordering::Release);
        Ok(Self {
            parts,
            session,
            previous,
            tx: tx.into_producer(),
            tx_done: tx_done.into_consumer(data),
            rx_free: rx_free.into_producer(),
            rx: rx.into_consumer(data),
            data_len: data.len(),
        })
    }

    /// The session the region held before this one (0 if none): non-zero
    /// means an earlier instance of this client used the region, i.e. this
    /// client was restarted.
    pub fn previous_session(&self) -> u64 {
        self.previous
    }

    /// Whether the driver serves this session yet (then the MAC and link
    /// are published).
    pub fn attached(&self) -> bool {
        self.parts.header.attached.load(Ordering::Acquire) == self.session
    }

    /// Bytes in the data area.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    /// The link as the driver last reported it.
    pub fn link(&self) -> crate::Link {
        crate::Link::from_raw(self.parts.header.link.load(Ordering::Acquire))
    }

    /// The device's MAC address, once a driver attached this session.
    pub fn mac(&self) -> Option<[u8; 6]> {
        (self.attached() && self.link() != crate::Link::Unattached)
            .then(|| crate::mac_from_u64(self.parts.header.mac.load(Ordering::Relaxed)))
    }

    /// Sends the `len`-byte frame at data offset `offset` (the
    /// [`HEADROOM`] bytes before it are the driver's until the buffer comes
    /// back) as descriptor `id`. Returns whether the driver asked to be
    /// signalled.
    pub fn send(&mut self, id: u32, offset: u64, len: u32) -> Result<bool, LinkError> {
        if let Some(e) = entry(self.parts.tx_status, id) {
            e.store(Status::Pending as u32, Ordering::Relaxed);
        }
        // The ring's Release publication orders the entry write above.
        self.tx.push(Descriptor { offset, len, id })?;
        Ok(self.tx.needs_signal())
    }

    /// A sent (or refused) frame's buffer back: its id and status.
    pub fn sent(&mut self) -> Result<Option<(u32, Status)>, LinkError> {
        Ok(
            match link::take(self.tx_done.pop(), Status::BadDescriptor)? {
                None => None,
                Some(Ok(d)) => Some((d.id, status_of(self.parts.tx_status, d.id))),
                Some(Err(r)) => Some((r.descriptor.id, r.status)),
            },
        )
    }

    /// Offers the buffer at data offset `offset` with room for `len` bytes
    /// of frame (and [`HEADROOM`] bytes before it) as descriptor `id`.
    /// Returns whether the driver asked to be signalled.
    pub fn offer(&mut self, id: u32, offset: u64, len: u32) -> Result<bool, LinkError> {
        if let Some(e) = entry(self.parts.rx_status, id) {
            e.store(Status::Pending as u32, Ordering::Relaxed);
        }
        self.rx_free.push(Descriptor { offset, len, id })?;
        Ok(self.rx_free.needs_signal())
    }

    /// A received frame (status `Ok`, the descriptor's `len` is the frame's
    /// length) or a refused buffer back.
    pub fn received(&mut self) -> Result<Option<(Descriptor, Status)>, LinkError> {
        Ok(match link::take(self.rx.pop(), Status::BadDescriptor)? {
            None => None,
            Some(Ok(d)) => Some((d, status_of(self.parts.rx_status, d.id))),
            Some(Err(r)) => Some((r.descriptor, r.status)),
        })
    }

    /// Asks the driver to stop serving this client (ring its doorbell after).
    pub fn detach(&self) {
        self.parts.header.detach.store(1, Ordering::Release);
    }

    /// Whether the driver confirmed the detach.
    pub fn detached(&self) -> bool {
        self.parts.header.detached.load(Ordering::Acquire) != 0
    }

    /// Before sleeping: asks the driver to signal; true if safe to sleep.
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        let tx = self.tx_done.prepare_to_wait()?;
        let rx = self.rx.prepare_to_wait()?;
        Ok(tx && rx)
    }
}

#[cfg(test)]
mod tests;
