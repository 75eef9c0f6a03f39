//! Both ends of a crypto connection over one shared region, and the one
//! module here that touches the shared memory directly.
#![allow(unsafe_code)]

use crate::request::{check, Fields};
use crate::{
    next_session, LinkError, Refused, Request, Status, ATTACHED, CAPACITY, DATA, ENTRY, IV_LEN,
    LAYOUT, RESPONSE_RING, RING_AREA, SESSION, TABLE,
};
use conflux_queue::link::{self, Rings, TableEntry};
use conflux_queue::{Consumer, DataRegion, Descriptor, Producer};
use core::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// One request-table entry, as atomics: the other side may write it at any
/// time, so it is never read as plain memory.
#[repr(C)]
struct Entry {
    op: AtomicU32,
    status: AtomicU32,
    session: AtomicU64,
    iv: [AtomicU64; 2],
    dst: AtomicU64,
    param: AtomicU32,
    _reserved: AtomicU32,
    detail: AtomicU64,
    _reserved2: AtomicU64,
}

const _: () = assert!(core::mem::size_of::<Entry>() == ENTRY);
const _: () =
    assert!(RESPONSE_RING + RING_AREA <= TABLE && TABLE + CAPACITY as usize * ENTRY <= DATA);

// Safety: `Entry` is `#[repr(C)]` and all atomics, aligned to 8.
unsafe impl TableEntry for Entry {
    fn status(&self) -> &AtomicU32 {
        &self.status
    }
}

/// The session words: the client's number, and the one the driver serves.
#[repr(C)]
struct Words {
    session: AtomicU64,
    attached: AtomicU64,
}

const _: () = assert!(RESPONSE_RING + RING_AREA <= SESSION);
const _: () = assert!(ATTACHED == SESSION + 8 && ATTACHED + 8 <= TABLE);
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
    // Safety: SESSION + 16 <= TABLE < DATA <= len (checked), 8-aligned on
    // a 64-aligned base; `Words` is all atomics, so any bytes are valid.
    Ok(unsafe { &*base.add(SESSION).cast::<Words>() })
}

/// The request table of a region.
type Table = link::Table<Entry>;

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

fn iv_words(iv: &[u8; IV_LEN]) -> [u64; 2] {
    let (a, b) = iv.split_at(8);
    [
        u64::from_le_bytes(a.try_into().unwrap_or_default()),
        u64::from_le_bytes(b.try_into().unwrap_or_default()),
    ]
}

/// The driver's end.
pub struct Server {
    requests: Consumer<'static>,
    responses: Producer<'static>,
    table: Table,
    data: DataRegion,
    words: &'static Words,
    /// The client's session these rings belong to.
    session: u64,
}

impl Server {
    /// Attaches to a region a client formatted.
    ///
    /// # Safety
    /// `base..base + len` must be mapped, writable, page aligned, and stay
    /// mapped for the life of the `Server`.
    /// Fails with `NotFormatted` while the client has no session (it
    /// never formatted the region, or is formatting it right now).
    pub unsafe fn attach(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        // Safety: the caller's promise.
        let words = unsafe { words(base, len) }?;
        let session = words.session.load(Ordering::Acquire);
        if session == 0 {
            return Err(LinkError::NotFormatted);
        }
        // Safety: the caller's promise.
        let Rings { rings, data } = unsafe { link::attach(base, len, &LAYOUT) }?;
        let [requests, responses] = rings;
        Ok(Self {
            requests: requests.into_consumer(data),
            responses: responses.into_producer(),
            // Safety: the region passed the length check in `attach`.
            table: unsafe { table(base) },
            data,
            words,
            session,
        })
    }

    /// The number of the client session these rings belong to.
    pub fn session(&self) -> u64 {
        self.session
    }

    /// Whether the client is still in this session (it has not formatted
    /// the region again since). A driver that finds it is not ends the
    /// session before attaching to the new one.
    pub fn is_current(&self) -> bool {
        fence(Ordering::SeqCst);
        self.words.session.load(Ordering::Acquire) == self.session
    }

    /// Tells the client the driver serves its session (after `recover`).
    pub fn publish(&self) {
        self.words.attached.store(self.session, Ordering::Release);
    }

    /// The next request, checked: `Ok(None)` when there is none,
    /// `Ok(Some(Err(refused)))` for one to answer with an error at once.
    /// Nothing comes out once the client began another session: its new
    /// rings are for the driver that attaches to that session.
    pub fn next_request(&mut self) -> Result<Option<Result<Request, Refused>>, LinkError> {
        if !self.is_current() {
            return Ok(None);
        }
        let d = match link::take(self.requests.pop(), Status::BadDescriptor)? {
            None => return Ok(None),
            Some(Err(r)) => {
                return Ok(Some(Err(Refused {
                    descriptor: r.descriptor,
                    status: r.status,
                    detail: r.descriptor.offset,
                })))
            }
            Some(Ok(d)) => d,
        };
        // What was popped may come from a client formatting the region
        // anew: act on it only if the session is still this one.
        if !self.is_current() {
            return Ok(None);
        }
        let fields = match self.table.entry(d.id) {
            // Copy once; later writes by the client change nothing decided here.
            Some(e) => {
                let mut iv = [0u8; IV_LEN];
                iv[..8].copy_from_slice(&e.iv[0].load(Ordering::Acquire).to_le_bytes());
                iv[8..].copy_from_slice(&e.iv[1].load(Ordering::Acquire).to_le_bytes());
                Fields {
                    op: e.op.load(Ordering::Acquire),
                    session: e.session.load(Ordering::Acquire),
                    iv,
                    dst: e.dst.load(Ordering::Acquire),
                    param: e.param.load(Ordering::Acquire),
                }
            }
            None => Fields::default(),
        };
        let request = check(d, &fields, self.data);
        if request.is_ok() {
            if let Some(e) = self.table.entry(d.id) {
                e.status.store(Status::InFlight as u32, Ordering::Release);
            }
        }
        Ok(Some(request))
    }

    /// Answers request `descriptor` (as received) with `status`, `detail`
    /// and, for a new session, its handle in `session`. Returns whether
    /// the client asked to be signalled.
    pub fn respond(
        &mut self,
        descriptor: Descriptor,
        status: Status,
        detail: u64,
        session: Option<u64>,
    ) -> Result<bool, LinkError> {
        if let Some(e) = self.table.entry(descriptor.id) {
            if let Some(s) = session {
                e.session.store(s, Ordering::Relaxed);
            }
            e.detail.store(detail, Ordering::Relaxed);
            e.status.store(status as u32, Ordering::Release);
        }
        self.responses.push(descriptor)?;
        Ok(self.responses.needs_signal())
    }

    /// Answers a refused request.
    pub fn refuse(&mut self, r: Refused) -> Result<bool, LinkError> {
        self.respond(r.descriptor, r.status, r.detail, None)
    }

    /// Before sleeping: asks the client to signal, and says whether it is
    /// safe to sleep (no request arrived meanwhile).
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        Ok(self.requests.prepare_to_wait()?)
    }

    /// After a driver restart: answers `Restarted` to every request a
    /// previous instance took and never answered. Returns how many.
    pub fn recover(&mut self) -> Result<u32, LinkError> {
        let mut n = 0;
        for id in 0..CAPACITY {
            if self.table.has_status(id, Status::InFlight as u32) {
                let d = Descriptor {
                    offset: 0,
                    len: 0,
                    id,
                };
                self.respond(d, Status::Restarted, 0, None)?;
                n += 1;
            }
        }
        Ok(n)
    }
}

/// Everything a client puts in one request (tests set any field to any
/// value; [`crate::Op`] and [`crate::Algorithm::param`] make good ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Submission {
    pub op: u32,
    pub session: u64,
    pub iv: [u8; IV_LEN],
    /// Source (or key) in the data area.
    pub offset: u64,
    pub len: u32,
    /// Destination in the data area.
    pub dst: u64,
    pub param: u32,
}

/// What came back for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub id: u32,
    pub status: Status,
    pub detail: u64,
    /// The entry's session field: the new handle after CreateSession.
    pub session: u64,
}

/// The client's end.
pub struct Client {
    requests: Producer<'static>,
    responses: Consumer<'static>,
    table: Table,
    data_len: u64,
    words: &'static Words,
    session: u64,
}

impl Client {
    /// Formats the rings of the region and attaches to it.
    ///
    /// # Safety
    /// Begins a new session: `session = 0` (the driver keeps off the
    /// rings), the rings formatted and the table cleared, then a fresh
    /// number made from `nonce` (the caller's time stamp counter). The
    /// client submits once [`Client::attached`].
    ///
    /// # Safety
    /// As for [`Server::attach`]; a driver may be attached to an earlier
    /// session of the region (it leaves it when it sees the new number).
    pub unsafe fn format(base: *mut u8, len: usize, nonce: u64) -> Result<Self, LinkError> {
        // Safety: the caller's promise.
        let words = unsafe { words(base, len) }?;
        let previous = words.session.swap(0, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // Safety: the caller's promise.
        let Rings { rings, data } = unsafe { link::format(base, len, &LAYOUT) }?;
        let [requests, responses] = rings;
        // Safety: the region passed the length check in `format`.
        let table = unsafe { table(base) };
        for id in 0..CAPACITY {
            if let Some(e) = table.entry(id) {
                e.status.store(Status::Pending as u32, Ordering::Relaxed);
            }
        }
        let session = next_session(previous, nonce);
        fence(Ordering::SeqCst);
        words.session.store(session, Ordering::Release);
        Ok(Self {
            requests: requests.into_producer(),
            responses: responses.into_consumer(data),
            table,
            data_len: data.len(),
            words,
            session,
        })
    }

    /// Whether the driver serves this session yet.
    pub fn attached(&self) -> bool {
        self.words.attached.load(Ordering::Acquire) == self.session
    }

    /// Bytes in the data area.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    /// Submits request `id` (an entry the client does not have in flight).
    /// Returns whether the driver asked to be signalled.
    pub fn submit(&mut self, id: u32, s: &Submission) -> Result<bool, LinkError> {
        if let Some(e) = self.table.entry(id) {
            let iv = iv_words(&s.iv);
            e.op.store(s.op, Ordering::Relaxed);
            e.session.store(s.session, Ordering::Relaxed);
            e.iv[0].store(iv[0], Ordering::Relaxed);
            e.iv[1].store(iv[1], Ordering::Relaxed);
            e.dst.store(s.dst, Ordering::Relaxed);
            e.param.store(s.param, Ordering::Relaxed);
            e.detail.store(0, Ordering::Relaxed);
            e.status.store(Status::Pending as u32, Ordering::Relaxed);
        }
        // The ring's Release publication orders the entry writes above.
        let d = Descriptor {
            offset: s.offset,
            len: s.len,
            id,
        };
        self.requests.push(d)?;
        Ok(self.requests.needs_signal())
    }

    /// A finished request, if one came back.
    pub fn complete(&mut self) -> Result<Option<Completion>, LinkError> {
        let id = match link::take(self.responses.pop(), ())? {
            None => return Ok(None),
            Some(Ok(d)) => d.id,
            Some(Err(r)) => r.descriptor.id,
        };
        Ok(Some(match self.table.entry(id) {
            Some(e) => Completion {
                id,
                status: Status::from_raw(e.status.load(Ordering::Acquire)),
                detail: e.detail.load(Ordering::Relaxed),
                session: e.session.load(Ordering::Relaxed),
            },
            None => Completion {
                id,
                status: Status::BadDescriptor,
                detail: u64::from(id),
                session: 0,
            },
        }))
    }

    /// Before sleeping: asks the driver to signal; true if safe to sleep.
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        Ok(self.responses.prepare_to_wait()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, Direction, Op, Span};

    const LEN: usize = DATA + 64 * 1024;

    struct Mem(&'static mut [u8]);

    /// A leaked, zeroed, page-aligned region.
    fn region() -> Mem {
        let layout = std::alloc::Layout::from_size_align(LEN, 4096).unwrap();
        // Safety: a fresh zeroed allocation of LEN bytes, leaked.
        Mem(unsafe { core::slice::from_raw_parts_mut(std::alloc::alloc_zeroed(layout), LEN) })
    }

    fn ends(mem: &mut Mem) -> (Client, Server) {
        let base = mem.0.as_mut_ptr();
        // Safety: a leaked, page-aligned buffer that outlives both ends.
        let client = unsafe { Client::format(base, LEN, 1) }.unwrap();
        // Safety: as above.
        let server = unsafe { Server::attach(base, LEN) }.unwrap();
        (client, server)
    }

    #[test]
    fn a_cipher_request_goes_round_with_every_field() {
        let mut mem = region();
        let (mut client, mut server) = ends(&mut mem);
        assert_eq!(server.next_request(), Ok(None));
        let iv: [u8; 16] = core::array::from_fn(|i| i as u8);
        let s = Submission {
            op: Op::Encrypt as u32,
            session: 0x1_0000_0003,
            iv,
            offset: 4096,
            len: 1024,
            dst: 8192,
            param: 0,
        };
        client.submit(3, &s).unwrap();
        let req = server.next_request().unwrap().unwrap().unwrap();
        let descriptor = Descriptor {
            offset: 4096,
            len: 1024,
            id: 3,
        };
        assert_eq!(
            req,
            Request::Cipher {
                descriptor,
                dir: Direction::Encrypt,
                session: 0x1_0000_0003,
                iv,
                src: Span {
                    offset: 4096,
                    len: 1024
                },
                dst: Span {
                    offset: 8192,
                    len: 1024
                },
            }
        );
        server
            .respond(descriptor, Status::DeviceError, 2, None)
            .unwrap();
        assert_eq!(
            client.complete(),
            Ok(Some(Completion {
                id: 3,
                status: Status::DeviceError,
                detail: 2,
                session: 0x1_0000_0003
            }))
        );
        assert_eq!(client.complete(), Ok(None));
    }

    #[test]
    fn a_new_session_comes_back_in_the_entry() {
        let mut mem = region();
        let (mut client, mut server) = ends(&mut mem);
        let s = Submission {
            op: Op::CreateSession as u32,
            len: 32,
            param: Algorithm::Ctr.param(Direction::Decrypt),
            ..Submission::default()
        };
        client.submit(0, &s).unwrap();
        let req = server.next_request().unwrap().unwrap().unwrap();
        assert!(matches!(
            req,
            Request::CreateSession {
                algo: Algorithm::Ctr,
                dir: Direction::Decrypt,
                key: Span { offset: 0, len: 32 },
                ..
            }
        ));
        server
            .respond(req.descriptor(), Status::Ok, 0, Some(42))
            .unwrap();
        let done = client.complete().unwrap().unwrap();
        assert_eq!((done.status, done.session), (Status::Ok, 42));
    }

    #[test]
    fn refused_requests_are_not_in_flight_and_a_restart_answers_the_rest() {
        let mut mem = region();
        let (mut client, mut server) = ends(&mut mem);
        let bad = Submission {
            op: Op::Encrypt as u32,
            len: 40,
            ..Submission::default()
        };
        client.submit(1, &bad).unwrap();
        let refused = server.next_request().unwrap().unwrap().unwrap_err();
        assert_eq!((refused.status, refused.detail), (Status::BadLength, 40));
        server.refuse(refused).unwrap();
        let out_of_area = Submission {
            offset: (LEN - DATA) as u64 - 16,
            len: 32,
            ..bad
        };
        client.submit(2, &out_of_area).unwrap();
        let refused = server.next_request().unwrap().unwrap().unwrap_err();
        assert_eq!(refused.status, Status::BadDescriptor);
        server.refuse(refused).unwrap();
        let good = Submission {
            len: 32,
            dst: 4096,
            ..bad
        };
        client.submit(4, &good).unwrap();
        assert!(matches!(server.next_request(), Ok(Some(Ok(_)))));
        let statuses: Vec<_> = core::iter::from_fn(|| client.complete().unwrap())
            .map(|c| (c.id, c.status))
            .collect();
        assert_eq!(
            statuses,
            [(1, Status::BadLength), (2, Status::BadDescriptor)]
        );
        // The driver dies holding request 4; the next instance answers it.
        let base = mem.0.as_mut_ptr();
        // Safety: the leaked, page-aligned test region outlives both ends.
        let mut again = unsafe { Server::attach(base, LEN) }.unwrap();
        assert_eq!(again.recover(), Ok(1));
        assert_eq!(
            client.complete().unwrap().map(|c| (c.id, c.status)),
            Some((4, Status::Restarted))
        );
        assert_eq!(again.recover(), Ok(0), "answered once only");
    }

    #[test]
    fn a_small_or_unformatted_region_is_refused() {
        let mem = region();
        let base = mem.0.as_mut_ptr();
        assert!(matches!(
            // Safety: the leaked, page-aligned test region outlives it.
            unsafe { Server::attach(base, LEN) },
            Err(LinkError::NotFormatted)
        ));
        assert!(matches!(
            // Safety: as above.
            unsafe { Client::format(base, DATA, 1) },
            Err(LinkError::TooSmall)
        ));
    }

    #[test]
    fn a_restarted_client_begins_a_new_session_the_old_server_leaves() {
        let mut mem = region();
        let base = mem.0.as_mut_ptr();
        let (mut old, server) = ends(&mut mem);
        assert!(!old.attached(), "not before the driver publishes");
        server.publish();
        assert!(old.attached());
        let req = Submission {
            op: Op::Encrypt as u32,
            len: 32,
            dst: 4096,
            ..Submission::default()
        };
        old.submit(0, &req).unwrap();
        let mut server = server;
        assert!(server.is_current());
        // The client restarts (same nonce: the number must still change)
        // and submits on its new rings before the driver noticed.
        // Safety: the leaked, page-aligned test region outlives every end.
        let mut new = unsafe { Client::format(base, LEN, 1) }.unwrap();
        assert!(
            !new.attached(),
            "the old session's number is not the new one's"
        );
        new.submit(5, &req).unwrap();
        assert!(!server.is_current());
        assert_eq!(
            server.next_request(),
            Ok(None),
            "nothing of a new session through old rings"
        );
        // Safety: as above.
        let mut again = unsafe { Server::attach(base, LEN) }.unwrap();
        assert_ne!(again.session(), server.session());
        assert_eq!(
            again.recover(),
            Ok(0),
            "a fresh session's table holds nothing in flight"
        );
        again.publish();
        assert!(new.attached());
        let got = again.next_request().unwrap().unwrap().unwrap();
        assert_eq!(got.descriptor().id, 5);
    }

    #[test]
    fn a_client_formatting_its_region_is_not_attached_to() {
        let mut mem = region();
        let base = mem.0.as_mut_ptr();
        let _ = ends(&mut mem);
        // Between `session = 0` and the new number the driver keeps off.
        mem.0[SESSION..SESSION + 8].fill(0);
        assert!(matches!(
            // Safety: the leaked, page-aligned test region outlives it.
            unsafe { Server::attach(base, LEN) },
            Err(LinkError::NotFormatted)
        ));
    }
}
