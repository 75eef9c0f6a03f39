//! Both ends of a block connection over one shared region, and the one
//! module here that touches the shared memory directly.
#![allow(unsafe_code)]

use crate::{
    LinkError, Op, Refused, Request, Status, CAPACITY, DATA, LAYOUT, MAX_TRANSFER, SECTOR, TABLE,
};
use conflux_queue::link::{self, Rings, TableEntry};
use conflux_queue::{Consumer, Descriptor, Producer};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

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
}

impl Server {
    /// Attaches to a region a client formatted.
    ///
    /// # Safety
    /// `base..base + len` must be mapped, writable, page aligned, and stay
    /// mapped for the life of the `Server`.
    pub unsafe fn attach(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        // Safety: the caller's promise.
        let Rings { rings, data } = unsafe { link::attach(base, len, &LAYOUT) }?;
        let [requests, responses] = rings;
        Ok(Self {
            requests: requests.into_consumer(data),
            responses: responses.into_producer(),
            // Safety: the region passed the length check in `attach`.
            table: unsafe { table(base) },
        })
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

    /// After a driver restart: answers `Restarted` to every request a
    /// previous instance took and never answered. Returns how many.
    pub fn recover(&mut self) -> Result<u32, LinkError> {
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
}

impl Client {
    /// Formats the rings of the region and attaches to it.
    ///
    /// # Safety
    /// As for [`Server::attach`], and no driver may be attached yet.
    pub unsafe fn format(base: *mut u8, len: usize) -> Result<Self, LinkError> {
        // Safety: the caller's promise.
        let Rings { rings, data } = unsafe { link::format(base, len, &LAYOUT) }?;
        let [requests, responses] = rings;
        Ok(Self {
            requests: requests.into_producer(),
            responses: responses.into_consumer(data),
            // Safety: the region passed the length check in `format`.
            table: unsafe { table(base) },
            data_len: data.len(),
        })
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
mod tests {
    use super::*;

    /// Room for a data area larger than one maximal transfer.
    const LEN: usize = DATA + MAX_TRANSFER as usize + 8 * 4096;

    struct Mem(&'static mut [u8]);

    /// A leaked, zeroed, page-aligned region.
    fn region() -> Mem {
        let layout = std::alloc::Layout::from_size_align(LEN, 4096).unwrap();
        // Safety: a fresh zeroed allocation of LEN bytes, leaked.
        Mem(unsafe { core::slice::from_raw_parts_mut(std::alloc::alloc_zeroed(layout), LEN) })
    }

    #[test]
    fn a_request_goes_round_with_its_status() {
        let mem = region();
        let (base, len) = (mem.0.as_mut_ptr(), LEN);
        // Safety: a leaked, page-aligned buffer that outlives both ends.
        let mut client = unsafe { Client::format(base, len) }.unwrap();
        // Safety: the leaked, page-aligned test region outlives both ends.
        let mut server = unsafe { Server::attach(base, len) }.unwrap();
        assert_eq!(server.next_request(), Ok(None));
        client.submit(3, Op::Write as u32, 8, 4096, 1024).unwrap();
        let req = server.next_request().unwrap().unwrap().unwrap();
        assert_eq!(
            req,
            Request {
                id: 3,
                op: Op::Write,
                block: 8,
                offset: 4096,
                len: 1024
            }
        );
        let d = Descriptor {
            offset: req.offset,
            len: req.len,
            id: req.id,
        };
        server.respond(d, Status::Ok).unwrap();
        assert_eq!(client.complete(), Ok(Some((3, Status::Ok))));
        assert_eq!(client.complete(), Ok(None));
    }

    #[test]
    fn hostile_requests_are_refused_with_a_reason() {
        let mem = region();
        let (base, len) = (mem.0.as_mut_ptr(), LEN);
        // Safety: as above.
        let mut client = unsafe { Client::format(base, len) }.unwrap();
        // Safety: the leaked, page-aligned test region outlives both ends.
        let mut server = unsafe { Server::attach(base, len) }.unwrap();
        let data = client.data_len();
        let cases = [
            (1, 9, 0, 0, 512, Status::BadOp),
            (2, Op::Read as u32, 0, 0, 100, Status::BadLength),
            (3, Op::Read as u32, 0, 0, 0, Status::BadLength),
            (
                4,
                Op::Read as u32,
                0,
                0,
                MAX_TRANSFER + 512,
                Status::BadLength,
            ),
            (
                5,
                Op::Read as u32,
                0,
                data - 512,
                1024,
                Status::BadDescriptor,
            ),
            (
                6,
                Op::Read as u32,
                0,
                u64::MAX - 10,
                512,
                Status::BadDescriptor,
            ),
            (
                CAPACITY + 7,
                Op::Read as u32,
                0,
                0,
                512,
                Status::BadDescriptor,
            ),
        ];
        for (id, op, block, offset, n, want) in cases {
            client.submit(id, op, block, offset, n).unwrap();
            let got = server.next_request().unwrap().unwrap();
            assert_eq!(got.map_err(|r| r.status), Err(want), "id {id}");
        }
        // A restarted driver answers what the old one took and dropped.
        // Safety: the leaked, page-aligned test region outlives both ends.
        let mut again = unsafe { Server::attach(base, len) }.unwrap();
        assert_eq!(
            again.recover(),
            Ok(0),
            "every refused request was not in flight"
        );
        client.submit(9, Op::Read as u32, 0, 0, 512).unwrap();
        assert!(matches!(server.next_request(), Ok(Some(Ok(_)))));
        while client.complete().unwrap().is_some() {}
        assert_eq!(again.recover(), Ok(1));
        assert_eq!(client.complete(), Ok(Some((9, Status::Restarted))));
        // A flush needs no data.
        client.submit(8, Op::Flush as u32, 0, 0, 0).unwrap();
        assert_eq!(
            server.next_request().unwrap().unwrap().map(|r| r.op),
            Ok(Op::Flush)
        );
    }

    #[test]
    fn a_small_or_unformatted_region_is_refused() {
        let mem = region();
        let base = mem.0.as_mut_ptr();
        // Safety: as above.
        assert!(matches!(
            // Safety: the leaked, page-aligned test region outlives both ends.
            unsafe { Server::attach(base, LEN) },
            Err(LinkError::NotFormatted)
        ));
        assert!(matches!(
            // Safety: the leaked, page-aligned test region outlives both ends.
            unsafe { Client::format(base, DATA) },
            Err(LinkError::TooSmall)
        ));
    }
}
