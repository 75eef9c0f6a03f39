//! Both ends of a block connection over one shared region, and the one
//! module here that touches the shared memory directly.
#![allow(unsafe_code)]

use crate::{
    session, LinkError, Op, Refused, Request, Status, ATTACHED, CAPACITY, DATA, LAYOUT,
    MAX_TRANSFER, SECTOR, SESSION, TABLE,
};
use conflux_queue::link::{self, Rings, TableEntry};
use conflux_queue::{Consumer, Descriptor, Producer};
use core::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// One request-table entry, as atomics: the other side may write it at any
/// time, so it is never read as plain memory.
#[repr(C)]
struct Entry {
    op: AtomicU32,
    status: AtomicU32,
    block: AtomicU64,
}

const _: () = assert!(core::mem::size_of::<Entry>() == 16);
const _: () = assert!(RESPONSE_END <= TABLE && TABLE + CAPACITY as usize * 16 <= DATA);
const RESPONSE_END: usize = crate::RESPONSE_RING + crate::RING_AREA;

// Safety: `Entry` is `#[repr(C)]` and all atomics, aligned to 8.
unsafe impl TableEntry for Entry {
    fn status(&self) -> &AtomicU32 {
        &self.status
    }
}

/// The request table of a region.
type Table = link::Table<Entry>;

/// The session words (see [`crate::session`]).
#[repr(C)]
struct Words {
    session: AtomicU64,
    attached: AtomicU64,
}

const _: () = assert!(TABLE + CAPACITY as usize * 16 <= SESSION);
const _: () = assert!(ATTACHED == SESSION + 8 && ATTACHED + 8 <= DATA);
const _: () = assert!(SESSION.is_multiple_of(8));

/// The session words of a region at `base`, after checking that the
/// region is aligned and long enough to hold them.
///
/// # Safety
/// `base..base + len` is mapped, writable, and stays mapped for `'static`
/// (the callers' promise in `attach`/`format`), and both sides touch the
/// words only atomically.
unsafe fn words(base: *mut u8, len: usize) -> Result<&'static Words, LinkError> {
    if !(base as usize).is_multiple_of(64) {
        return Err(LinkError::Misaligned);
    }
    LAYOUT.check_len(len)?;
    // Safety: SESSION + 16 <= DATA <= len (checked), 8-aligned on a
    // 64-aligned base; `Words` is all atomics, so any bytes are valid.
    Ok(unsafe { &*base.add(SESSION).cast::<Words>() })
}

/// The table of a region at `base`.
///
/// # Safety
/// `base` is the start of a page-aligned region that passed `LAYOUT`'s
/// length check (in `attach`/`format`) and stays mapped for as long as the
/// table is used.
unsafe fn table(base: *mut u8) -> Table {
    // Safety: TABLE + CAPACITY entries lie before DATA (asserted above),
    // so inside the checked region; the offset keeps entries aligned.
    unsafe { link::Table::at(base, TABLE, CAPACITY) }
}

/// The driver's end.
pub struct Server {
    requests: Consumer<'static>,
    responses: Producer<'static>,
    table: Table,
    words: &'static Words,
    /// The session this end serves.
    session: u64,
}

impl Server {
    /// Attaches to the session a client formatted the region for
    /// (`NotFormatted` while there is none, or while one is being set up).
    /// Call [`Server::start`] before serving.
    ///
    /// # Safety
    /// `base..base + len` must be mapped, writable, page aligned, and stay
    /// mapped for the life of the `Server`.
    pub unsafe fn attach(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        // Safety: the caller's promise.
        let words = unsafe { words(base, len) }?;
        let session = words.session.load(Ordering::Acquire);
        if session == 0 {
            return Err(LinkError::NotFormatted);
        }
        // Safety: the caller's promise.
        let Rings { rings, data } = unsafe { link::attach(base, len, &LAYOUT) }?;
        fence(Ordering::SeqCst);
        if words.session.load(Ordering::Acquire) != session {
            // A client began formatting meanwhile: try again later.
            return Err(LinkError::NotFormatted);
        }
        let [requests, responses] = rings;
        Ok(Self {
            requests: requests.into_consumer(data),
            responses: responses.into_producer(),
            // Safety: the region passed the length check in `attach`.
            table: unsafe { table(base) },
            words,
            session,
        })
    }

    /// The session this end serves.
    pub fn session(&self) -> u64 {
        self.session
    }

    /// Whether the client still runs this session (false once it formatted
    /// the region again: a restarted client).
    pub fn current(&self) -> bool {
        self.words.session.load(Ordering::Acquire) == self.session
    }

    /// The next request, checked: `Ok(None)` when there is none,
    /// `Ok(Some(Err(refused)))` for one to answer with an error at once.
    pub fn next_request(&mut self) -> Result<Option<Result<Request, Refused>>, LinkError> {
        let d = match link::take(self.requests.pop(), Status::BadDescriptor)? {
            None => return Ok(None),
            Some(Err(refused)) => return Ok(Some(Err(refused))),
            Some(Ok(d)) => d,
        };
        let refuse = |status| {
            Ok(Some(Err(Refused {
                descriptor: d,
                status,
            })))
        };
        let Some(entry) = self.table.entry(d.id) else {
            return refuse(Status::BadDescriptor);
        };
        // Copy once; later writes by the client change nothing decided here.
        let (op, block) = (
            entry.op.load(Ordering::Acquire),
            entry.block.load(Ordering::Acquire),
        );
        // Whatever was popped belongs to the session only if the client
        // did not start formatting before we read it.
        fence(Ordering::SeqCst);
        if !self.current() {
            return Ok(None);
        }
        let Some(op) = Op::from_raw(op) else {
            return refuse(Status::BadOp);
        };
        if !matches!(op, Op::Flush | Op::Detach)
            && (d.len == 0 || d.len % SECTOR != 0 || d.len > MAX_TRANSFER)
        {
            return refuse(Status::BadLength);
        }
        entry
            .status
            .store(Status::InFlight as u32, Ordering::Release);
        Ok(Some(Ok(Request {
            id: d.id,
            op,
            block,
            offset: d.offset,
            len: d.len,
        })))
    }

    /// Answers request `descriptor` (as received) with `status`. Returns
    /// whether the client asked to be signalled.
    pub fn respond(&mut self, descriptor: Descriptor, status: Status) -> Result<bool, LinkError> {
        if let Some(e) = self.table.entry(descriptor.id) {
            e.status.store(status as u32, Ordering::Release);
        }
        self.responses.push(descriptor)?;
        Ok(self.responses.needs_signal())
    }

    /// Before sleeping: asks the client to signal, and says whether it is
    /// safe to sleep (no request arrived meanwhile).
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        Ok(self.requests.prepare_to_wait()?)
    }

    /// Starts serving the session: if a previous driver instance served
    /// this same session (a driver restart), answers `Restarted` to every
    /// request it took and never answered; then tells the client, through
    /// `attached`, that its session is served. Returns how many requests
    /// were answered `Restarted`.
    pub fn start(&mut self) -> Result<u32, LinkError> {
        let n = if self.words.attached.load(Ordering::Acquire) == self.session {
            self.recover()?
        } else {
            0
        };
        self.words.attached.store(self.session, Ordering::Release);
        Ok(n)
    }

    /// Answers `Restarted` to every request in the table marked in flight.
    fn recover(&mut self) -> Result<u32, LinkError> {
        let mut n = 0;
        for id in 0..CAPACITY {
            if self.table.has_status(id, Status::InFlight as u32) {
                self.respond(
                    Descriptor {
                        offset: 0,
                        len: 0,
                        id,
                    },
                    Status::Restarted,
                )?;
                n += 1;
            }
        }
        Ok(n)
    }
}

/// The client's end.
pub struct Client {
    requests: Producer<'static>,
    responses: Consumer<'static>,
    table: Table,
    data_len: u64,
    words: &'static Words,
    session: u64,
    previous: u64,
}

impl Client {
    /// Begins a new session on the region (see [`crate::session`]):
    /// formats the rings, clears the request table and publishes a session
    /// number made from `nonce` (a time stamp). The driver may still be
    /// serving an earlier session of this region (the client's previous
    /// instance); submit only once [`Client::attached`] says it serves
    /// this one.
    ///
    /// # Safety
    /// As for [`Server::attach`]; the driver touches the region only
    /// through [`Server`].
    pub unsafe fn format(base: *mut u8, len: usize, nonce: u64) -> Result<Self, LinkError> {
        // Safety: the caller's promise.
        let words = unsafe { words(base, len) }?;
        let previous = words.session.swap(0, Ordering::SeqCst);
        // Safety: the caller's promise; a driver seeing session 0 keeps off
        // the rings (and re-checks the word after every request it pops).
        let Rings { rings, data } = unsafe { link::format(base, len, &LAYOUT) }?;
        // Safety: the region passed the length check in `words`.
        let table = unsafe { table(base) };
        for id in 0..CAPACITY {
            if let Some(e) = table.entry(id) {
                e.op.store(0, Ordering::Relaxed);
                e.block.store(0, Ordering::Relaxed);
                e.status.store(Status::Pending as u32, Ordering::Relaxed);
            }
        }
        let session = session::next(previous, nonce);
        // Release: the rings and table above are written before the
        // driver can see the new number.
        words.session.store(session, Ordering::Release);
        let [requests, responses] = rings;
        Ok(Self {
            requests: requests.into_producer(),
            responses: responses.into_consumer(data),
            table,
            data_len: data.len(),
            words,
            session,
            previous,
        })
    }

    /// This session's number.
    pub fn session(&self) -> u64 {
        self.session
    }

    /// The session the region held before this one (0 if none): non-zero
    /// means an earlier instance of this client used the region, i.e. this
    /// client was restarted.
    pub fn previous_session(&self) -> u64 {
        self.previous
    }

    /// Whether the driver serves this session yet.
    pub fn attached(&self) -> bool {
        self.words.attached.load(Ordering::Acquire) == self.session
    }

    /// Bytes in the data area.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    /// Submits request `id` (an entry the client does not have in flight):
    /// `op` on `len` bytes at data offset `offset`, starting at sector
    /// `block`. Returns whether the driver asked to be signalled.
    pub fn submit(
        &mut self,
        id: u32,
        op: u32,
        block: u64,
        offset: u64,
        len: u32,
    ) -> Result<bool, LinkError> {
        if let Some(e) = self.table.entry(id) {
            e.op.store(op, Ordering::Relaxed);
            e.block.store(block, Ordering::Relaxed);
            e.status.store(Status::Pending as u32, Ordering::Relaxed);
        }
        // The ring's Release publication orders the entry writes above.
        self.requests.push(Descriptor { offset, len, id })?;
        Ok(self.requests.needs_signal())
    }

    /// A finished request: its id and status.
    pub fn complete(&mut self) -> Result<Option<(u32, Status)>, LinkError> {
        Ok(
            match link::take(self.responses.pop(), Status::BadDescriptor)? {
                None => None,
                Some(Ok(d)) => {
                    let status = self.table.entry(d.id).map_or(Status::BadDescriptor, |e| {
                        Status::from_raw(e.status.load(Ordering::Acquire))
                    });
                    Some((d.id, status))
                }
                Some(Err(r)) => Some((r.descriptor.id, r.status)),
            },
        )
    }

    /// Before sleeping: asks the driver to signal; true if safe to sleep.
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        Ok(self.responses.prepare_to_wait()?)
    }
}

#[cfg(test)]
mod tests;
