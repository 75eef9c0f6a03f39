//! Both ends of a network connection over one shared region, and the one
//! module here that touches the shared memory directly.
#![allow(unsafe_code)]

use crate::{
    Frame, LinkError, Refused, Status, CAPACITY, DATA, HEADER, HEADROOM, MAX_FRAME, MIN_FRAME,
    RING_AREA, RX_FREE_RING, RX_RING, RX_STATUS, TX_DONE_RING, TX_RING, TX_STATUS,
};
use conflux_queue::{
    Consumer, DataRegion, Descriptor, PopError, Producer, PushError, Ring, ValidDescriptor,
};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The header at the start of the region, as atomics: the other side may
/// write it at any time, so it is never read as plain memory.
#[repr(C)]
struct Header {
    mac: AtomicU64,
    link: AtomicU32,
    detach: AtomicU32,
    detached: AtomicU32,
}

type Table = [AtomicU32; CAPACITY as usize];

const _: () = assert!(core::mem::size_of::<Header>() <= TX_STATUS - HEADER);
const _: () = assert!(TX_STATUS + CAPACITY as usize * 4 <= RX_STATUS);
const _: () = assert!(RX_STATUS + CAPACITY as usize * 4 <= TX_RING);
const _: () = assert!(RX_RING + RING_AREA <= DATA);

/// The header and the two status tables of a region at `base`.
struct Parts {
    header: &'static Header,
    tx_status: &'static Table,
    rx_status: &'static Table,
}

/// # Safety
/// `base..base + len` is mapped, writable and page aligned for the rest of
/// the program, and `len` passed `check_len`.
unsafe fn parts(base: *mut u8) -> Parts {
    // Safety: the caller's promise; the parts lie inside the region (the
    // asserts above), are suitably aligned (page-aligned base, offsets of
    // 0x100), and are only ever accessed as atomics.
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

fn check_len(len: usize) -> Result<(), LinkError> {
    if len < DATA + 4096 {
        Err(LinkError::TooSmall)
    } else {
        Ok(())
    }
}

fn corrupt(_: impl core::fmt::Debug) -> LinkError {
    LinkError::Corrupt
}

fn push_error(e: PushError) -> LinkError {
    match e {
        PushError::Full => LinkError::Full,
        PushError::Corrupt(_) => LinkError::Corrupt,
    }
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
}

/// Checks a descriptor's headroom and length; `Ok` is the range the device gets.
fn checked(
    v: Result<Option<ValidDescriptor>, PopError>,
    len_ok: impl Fn(u32) -> Option<u32>,
    bad_len: Status,
) -> Result<Option<Result<Frame, Refused>>, LinkError> {
    let d = match v {
        Ok(None) => return Ok(None),
        Ok(Some(v)) => Descriptor::from(v),
        Err(PopError::OutOfBounds(d)) => {
            return Ok(Some(Err(Refused {
                descriptor: d,
                status: Status::BadDescriptor,
            })))
        }
        Err(PopError::Corrupt(c)) => return Err(corrupt(c)),
    };
    let refuse = |status| {
        Ok(Some(Err(Refused {
            descriptor: d,
            status,
        })))
    };
    if d.offset < HEADROOM || d.id >= CAPACITY {
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
    /// Attaches to a region a client formatted.
    ///
    /// # Safety
    /// `base..base + len` must be mapped, writable, page aligned, and stay
    /// mapped for the rest of the program.
    pub unsafe fn attach(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        check_len(len)?;
        let data = DataRegion::new(len - DATA);
        // Safety: the caller's promise; the ring areas are disjoint.
        let ring = |off| unsafe { Ring::attach_raw(base.add(off), RING_AREA, CAPACITY) };
        let nf = |_| LinkError::NotFormatted;
        let (tx, tx_done) = (ring(TX_RING).map_err(nf)?, ring(TX_DONE_RING).map_err(nf)?);
        let (rx_free, rx) = (ring(RX_FREE_RING).map_err(nf)?, ring(RX_RING).map_err(nf)?);
        Ok(Self {
            // Safety: the caller's promise, and the length was checked.
            parts: unsafe { parts(base) },
            tx: tx.into_consumer(data),
            tx_done: tx_done.into_producer(),
            rx_free: rx_free.into_consumer(data),
            rx: rx.into_producer(),
            tx_owed: 0,
            rx_owed: 0,
        })
    }

    /// Tells the client the device's MAC address and link state.
    pub fn publish(&self, mac: [u8; 6], link: crate::Link) {
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
        Ok(self.tx_done.free().map_err(corrupt)? <= self.tx_owed)
    }

    fn rx_blocked(&self) -> Result<bool, LinkError> {
        Ok(self.rx.free().map_err(corrupt)? <= self.rx_owed)
    }

    /// The next frame to send, checked: `Ok(None)` when there is none (or
    /// no room to answer it yet), `Ok(Some(Err(refused)))` for one to
    /// answer with an error at once. Every descriptor returned must be
    /// answered with [`Server::tx_done`].
    pub fn next_tx(&mut self) -> Result<Option<Result<Frame, Refused>>, LinkError> {
        if self.tx_blocked()? {
            return Ok(None);
        }
        let got = checked(
            self.tx.pop(),
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
        let got = checked(
            self.rx_free.pop(),
            |len| (len >= MAX_FRAME).then_some(MAX_FRAME),
            Status::TooSmall,
        )?;
        self.rx_owed += u32::from(got.is_some());
        Ok(got)
    }

    /// Answers tx descriptor `d` (as received) with `status`. Returns
    /// whether the client asked to be signalled.
    pub fn tx_done(&mut self, d: Descriptor, status: Status) -> Result<bool, LinkError> {
        if let Some(e) = entry(self.parts.tx_status, d.id) {
            e.store(status as u32, Ordering::Release);
        }
        self.tx_done.push(d).map_err(push_error)?;
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
        self.rx.push(back).map_err(push_error)?;
        self.rx_owed = self.rx_owed.saturating_sub(1);
        Ok(self.rx.needs_signal())
    }

    /// Before sleeping: asks the client to signal, and says whether it is
    /// safe to sleep (nothing arrived meanwhile that can be taken now).
    pub fn prepare_to_wait(&mut self) -> Result<bool, LinkError> {
        let tx = self.tx.prepare_to_wait().map_err(corrupt)? || self.tx_blocked()?;
        let rx = self.rx_free.prepare_to_wait().map_err(corrupt)? || self.rx_blocked()?;
        Ok(tx && rx && !self.detach_requested())
    }
}

/// The client's end.
pub struct Client {
    parts: Parts,
    tx: Producer<'static>,
    tx_done: Consumer<'static>,
    rx_free: Producer<'static>,
    rx: Consumer<'static>,
    data_len: u64,
}

impl Client {
    /// Formats the region (rings and header) and attaches to it.
    ///
    /// # Safety
    /// As for [`Server::attach`], and no driver may be attached yet.
    pub unsafe fn format(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        check_len(len)?;
        let data = DataRegion::new(len - DATA);
        // Safety: the caller's promise; the ring areas are disjoint.
        let ring = |off| unsafe { Ring::format_raw(base.add(off), RING_AREA, CAPACITY) };
        let small = |_| LinkError::TooSmall;
        let (tx, tx_done) = (
            ring(TX_RING).map_err(small)?,
            ring(TX_DONE_RING).map_err(small)?,
        );
        let (rx_free, rx) = (
            ring(RX_FREE_RING).map_err(small)?,
            ring(RX_RING).map_err(small)?,
        );
        // Safety: the caller's promise, and the length was checked.
        let parts = unsafe { parts(base) };
        let h = parts.header;
        h.mac.store(0, Ordering::Relaxed);
        h.detach.store(0, Ordering::Relaxed);
        h.detached.store(0, Ordering::Relaxed);
        h.link
            .store(crate::Link::Unattached as u32, Ordering::Release);
        Ok(Self {
            parts,
            tx: tx.into_producer(),
            tx_done: tx_done.into_consumer(data),
            rx_free: rx_free.into_producer(),
            rx: rx.into_consumer(data),
            data_len: data.len(),
        })
    }

    /// Bytes in the data area.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    /// The link as the driver last reported it.
    pub fn link(&self) -> crate::Link {
        crate::Link::from_raw(self.parts.header.link.load(Ordering::Acquire))
    }

    /// The device's MAC address, once a driver attached.
    pub fn mac(&self) -> Option<[u8; 6]> {
        (self.link() != crate::Link::Unattached)
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
        self.tx
            .push(Descriptor { offset, len, id })
            .map_err(push_error)?;
        Ok(self.tx.needs_signal())
    }

    /// A sent (or refused) frame's buffer back: its id and status.
    pub fn sent(&mut self) -> Result<Option<(u32, Status)>, LinkError> {
        match self.tx_done.pop() {
            Ok(None) => Ok(None),
            Ok(Some(v)) => {
                let id = v.id();
                Ok(Some((id, status_of(self.parts.tx_status, id))))
            }
            Err(PopError::OutOfBounds(d)) => Ok(Some((d.id, Status::BadDescriptor))),
            Err(PopError::Corrupt(c)) => Err(corrupt(c)),
        }
    }

    /// Offers the buffer at data offset `offset` with room for `len` bytes
    /// of frame (and [`HEADROOM`] bytes before it) as descriptor `id`.
    /// Returns whether the driver asked to be signalled.
    pub fn offer(&mut self, id: u32, offset: u64, len: u32) -> Result<bool, LinkError> {
        if let Some(e) = entry(self.parts.rx_status, id) {
            e.store(Status::Pending as u32, Ordering::Relaxed);
        }
        self.rx_free
            .push(Descriptor { offset, len, id })
            .map_err(push_error)?;
        Ok(self.rx_free.needs_signal())
    }

    /// A received frame (status `Ok`, the descriptor's `len` is the frame's
    /// length) or a refused buffer back.
    pub fn received(&mut self) -> Result<Option<(Descriptor, Status)>, LinkError> {
        match self.rx.pop() {
            Ok(None) => Ok(None),
            Ok(Some(v)) => {
                let d = Descriptor::from(v);
                Ok(Some((d, status_of(self.parts.rx_status, d.id))))
            }
            Err(PopError::OutOfBounds(d)) => Ok(Some((d, Status::BadDescriptor))),
            Err(PopError::Corrupt(c)) => Err(corrupt(c)),
        }
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
        let tx = self.tx_done.prepare_to_wait().map_err(corrupt)?;
        let rx = self.rx.prepare_to_wait().map_err(corrupt)?;
        Ok(tx && rx)
    }
}

fn status_of(table: &Table, id: u32) -> Status {
    entry(table, id).map_or(Status::BadDescriptor, |e| {
        Status::from_raw(e.load(Ordering::Acquire))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Link;

    const LEN: usize = DATA + 64 * 1024;
    const SLOT: u64 = 2048;

    /// A leaked, zeroed, page-aligned region.
    fn region() -> *mut u8 {
        let layout = std::alloc::Layout::from_size_align(LEN, 4096).unwrap();
        // Safety: a fresh zeroed allocation of LEN bytes, leaked.
        unsafe { std::alloc::alloc_zeroed(layout) }
    }

    fn pair() -> (Client, Server) {
        let base = region();
        // Safety: a leaked, page-aligned buffer that outlives both ends.
        let client = unsafe { Client::format(base, LEN) }.unwrap();
        // Safety: as above.
        let server = unsafe { Server::attach(base, LEN) }.unwrap();
        (client, server)
    }

    #[test]
    fn mac_and_link_reach_the_client() {
        let (client, server) = pair();
        assert_eq!(client.mac(), None);
        assert_eq!(client.link(), Link::Unattached);
        server.publish([0x52, 0x54, 0, 0x12, 0x34, 0x56], Link::Up);
        assert_eq!(client.mac(), Some([0x52, 0x54, 0, 0x12, 0x34, 0x56]));
        assert_eq!(client.link(), Link::Up);
    }

    #[test]
    fn a_frame_goes_out_and_one_comes_in() {
        let (mut client, mut server) = pair();
        assert_eq!(server.next_tx(), Ok(None));
        client.send(3, SLOT + HEADROOM, 60).unwrap();
        let f = server.next_tx().unwrap().unwrap().unwrap();
        assert_eq!((f.start, f.len), (SLOT, 72));
        assert_eq!(client.sent(), Ok(None));
        server.tx_done(f.descriptor, Status::Ok).unwrap();
        assert_eq!(client.sent(), Ok(Some((3, Status::Ok))));

        client.offer(5, 2 * SLOT + HEADROOM, 2000).unwrap();
        let b = server.next_rx_buffer().unwrap().unwrap().unwrap();
        assert_eq!((b.start, b.len), (2 * SLOT, HEADROOM as u32 + MAX_FRAME));
        server.rx_done(b.descriptor, Status::Ok, 42).unwrap();
        let (d, status) = client.received().unwrap().unwrap();
        assert_eq!(status, Status::Ok);
        assert_eq!((d.offset, d.len, d.id), (2 * SLOT + HEADROOM, 42, 5));
    }

    #[test]
    fn hostile_descriptors_are_refused_with_a_reason() {
        let (mut client, mut server) = pair();
        let data = client.data_len();
        let tx_cases = [
            (1, HEADROOM, MAX_FRAME + 1, Status::BadLength),
            (2, HEADROOM, MIN_FRAME - 1, Status::BadLength),
            (3, HEADROOM, 0, Status::BadLength),
            (4, 0, 60, Status::BadDescriptor),
            (5, HEADROOM - 1, 60, Status::BadDescriptor),
            (6, data - 59, 60, Status::BadDescriptor),
            (7, u64::MAX - 10, 60, Status::BadDescriptor),
            (CAPACITY, HEADROOM, 60, Status::BadDescriptor),
        ];
        for (id, offset, len, want) in tx_cases {
            client.send(id, offset, len).unwrap();
            let got = server.next_tx().unwrap().unwrap();
            let refused = got.expect_err("refused");
            assert_eq!(refused.status, want, "tx id {id}");
            server.tx_done(refused.descriptor, refused.status).unwrap();
            let back = client.sent().unwrap().unwrap();
            let want_seen = if id >= CAPACITY {
                Status::BadDescriptor
            } else {
                want
            };
            assert_eq!(back, (id, want_seen), "tx id {id}");
        }
        let rx_cases = [
            (1, HEADROOM, MAX_FRAME - 1, Status::TooSmall),
            (2, 0, 2000, Status::BadDescriptor),
            (3, data - 1000, 2000, Status::BadDescriptor),
            (4, u64::MAX, 2000, Status::BadDescriptor),
        ];
        for (id, offset, len, want) in rx_cases {
            client.offer(id, offset, len).unwrap();
            let refused = server.next_rx_buffer().unwrap().unwrap().unwrap_err();
            assert_eq!(refused.status, want, "rx id {id}");
            server
                .rx_done(refused.descriptor, refused.status, 0)
                .unwrap();
            let (d, status) = client.received().unwrap().unwrap();
            assert_eq!((d.id, status), (id, want), "rx id {id}");
        }
        // And a good frame still goes through.
        client.send(0, HEADROOM, MIN_FRAME).unwrap();
        assert!(matches!(server.next_tx(), Ok(Some(Ok(_)))));
        // An exact fit at the end of the data area is fine.
        client.send(1, data - 60, 60).unwrap();
        assert!(matches!(server.next_tx(), Ok(Some(Ok(_)))));
    }

    #[test]
    fn a_client_that_never_drains_stalls_only_itself() {
        let (mut client, mut server) = pair();
        for id in 0..CAPACITY {
            client.send(id, HEADROOM, 60).unwrap();
        }
        let mut taken = Vec::new();
        while let Some(f) = server.next_tx().unwrap() {
            taken.push(f.unwrap());
        }
        assert_eq!(taken.len(), CAPACITY as usize);
        for f in &taken {
            server.tx_done(f.descriptor, Status::Ok).unwrap();
        }
        // tx-done is full and the client refills tx without draining it.
        for id in 0..CAPACITY {
            client.send(id, HEADROOM, 60).unwrap();
        }
        assert_eq!(
            server.next_tx(),
            Ok(None),
            "no room to answer: nothing taken"
        );
        assert_eq!(
            server.prepare_to_wait(),
            Ok(true),
            "and the driver may sleep"
        );
        // (Its status entry reads Pending: the client reused the id.)
        assert_eq!(client.sent().unwrap().map(|(id, _)| id), Some(0));
        assert!(matches!(server.next_tx(), Ok(Some(Ok(_)))));
        assert_eq!(server.next_tx(), Ok(None));
    }

    #[test]
    fn detach_is_asked_and_confirmed() {
        let (client, mut server) = pair();
        assert!(!server.detach_requested());
        assert_eq!(server.prepare_to_wait(), Ok(true));
        client.detach();
        assert!(server.detach_requested());
        assert_eq!(server.prepare_to_wait(), Ok(false));
        assert!(!client.detached());
        server.confirm_detach();
        assert!(client.detached());
    }

    #[test]
    fn a_small_or_unformatted_region_is_refused() {
        let base = region();
        assert!(matches!(
            // Safety: the leaked, page-aligned test region outlives the end.
            unsafe { Server::attach(base, LEN) },
            Err(LinkError::NotFormatted)
        ));
        assert!(matches!(
            // Safety: as above.
            unsafe { Client::format(base, DATA) },
            Err(LinkError::TooSmall)
        ));
    }
}
