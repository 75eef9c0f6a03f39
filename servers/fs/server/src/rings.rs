//! The sessions' rings (`docs/rings.md`): exception-less submission of
//! file operations and compounds beside the IPC path.
//!
//! A client attaches a data region, formats it as rings
//! (`cosy_abi::ring::Parts::format`) and names it with RING; from then on
//! the server serves that session's submission ring after every request
//! and every wake-up, up to a ring's depth per pass, so one client cannot
//! hold the others up by more than that. The ring region is taken out of
//! the region list the entries see (it reads as empty there), so an
//! entry can never write over its own ring's indices.
//!
//! Polling is adaptive, as FlexSC's syscall threads are: while any ring
//! had work, the loop takes IPC requests without blocking and polls
//! again; after [`SPIN`] empty passes it sets every ring's signal-me flag,
//! looks once more, and sleeps in its ordinary receive. The doorbell is
//! the endpoint itself: a client whose server asked for it sends
//! RING_ENTER, so no notification has to be added to every manifest that
//! runs the file server. RING_ENTER with RING_WAIT is the client's sleep:
//! its reply capability is held (as a running compound holds one) and
//! answered when a completion waits for it.
//!
//! A ring whose indices are impossible is dropped (its waiter is told
//! `NoRing`); the session and every other client go on.

use conflux_fs_core::{FileService, Inodes, Session};
use conflux_fs_protocol::{ipc, FsError};
use conflux_userlib::ipc::Message;
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use cosy_abi::ring::{
    Idle, Parts, Poller, RingError, RingServer, Scratch, ServeTarget, Served, DEPTH,
};
use cosy_abi::{Insn, OpResult};

use crate::clients::{Client, MAX_CLIENTS};
use crate::fault::Injection;
use crate::jobs::fs_fail;
use crate::request::buf_operand;
use crate::serve::{Fs, Server};

/// The most steps one compound entry may take, and the most work its
/// calls may do (`EntryWork`). A ring entry runs to its end in one go (it
/// is not sliced as an IPC compound is), so this is far below the IPC
/// limit: a longer compound goes by IPC.
pub const RING_MAX_STEPS: u32 = 10_000;
/// A client's turn in a pass over the rings: at most a depth of entries,
/// and no more entries once this many TSC ticks have passed (16 IPC
/// slices), so a client whose entries each do as much work as one may
/// (`EntryWork`) holds the others up by about one entry, not 32. Its
/// other entries wait in its ring for the next pass; only when they are
/// served changes, never what they do.
const TURN_TSC: u64 = 16 * conflux_fs_protocol::ipc::SLICE_TSC;
/// Empty passes over the rings before the server sleeps: 64 when a
/// client can run on another CPU meanwhile (`cfg(clients_apart)`, from the
/// manifest; FlexSC's syscall threads on their own core), none when the
/// server shares its CPU with every client. There a pass that found
/// nothing cannot be followed by one that finds something until the
/// server gives the CPU up, so spinning only made every synchronous
/// request pay for 64 passes over every session's rings, and system calls
/// to poll its endpoint, before the server slept (`bench rings` under
/// icount, one CPU: 18,814 instructions per synchronous NOP with them).
pub const SPIN: u32 = if cfg!(clients_apart) { 64 } else { 0 };

const TARGET: ServeTarget = ServeTarget {
    buf: buf_operand,
    max_steps: RING_MAX_STEPS,
};

/// A session's rings: which of its regions holds them, and the reply
/// capability of a RING_ENTER waiting for a completion.
#[derive(Debug)]
pub struct Rings {
    pub region: usize,
    pub waiter: Option<usize>,
}

/// The work of one sync in a compound entry, in steps: ten fit in an
/// entry ([`RING_MAX_STEPS`]).
const SYNC_WORK: u32 = RING_MAX_STEPS / 10;

/// The file operations as a compound entry counts their work: bytes moved
/// as an IPC slice does (`FileService::work`: one step per 256 bytes),
/// so an entry moves at most about 2.5 MiB, but a sync as
/// [`SYNC_WORK`] steps instead of "end the slice now". An IPC compound is
/// paused at a sync so other clients go first and resumes later; an
/// entry has no later slice (`cosy_abi::ring`: past its work it stops
/// with `ENTRY_WORK_EXHAUSTED`), and a write, a sync and an exit must
/// still fit in one. Each call is shown to the test systems' fault
/// injection first, as each IPC request is.
struct EntryWork<'a> {
    files: FileService<'a, conflux_fs_core::BlockCache<crate::disk::BlkDisk>>,
    injection: &'a mut Injection,
}

impl cosy_abi::Service for EntryWork<'_> {
    fn ops(&self) -> cosy_abi::OpTable<'_> {
        self.files.ops()
    }

    fn call(
        &mut self,
        opcode: u16,
        args: &mut cosy_abi::Args<'_, '_>,
    ) -> Result<u64, cosy_abi::CallError> {
        self.injection.before_ring_op(opcode);
        self.files.call(opcode, args)
    }

    fn work(&self, opcode: u16, value: Option<u64>) -> u32 {
        match self.files.work(opcode, value) {
            // A sync: `FileService::work`'s "end the slice now".
            u32::MAX => SYNC_WORK,
            bytes => bytes,
        }
    }
}

/// Runs `f` over `client`'s rings, attached again for this call (the
/// region is a window the server keeps mapped; the queue's indices live
/// in it), with the client's other regions (the ring's own reads as
/// empty) and its session.
fn with_rings<R>(
    client: &mut Client,
    f: impl FnOnce(&mut RingServer<'_>, &mut [u8], &mut [&mut [u8]], &mut Session) -> R,
) -> Result<R, RingError> {
    let n = client.rings.as_ref().map_or(0, |r| r.region);
    let (mut slices, session) = client.parts();
    let ring = slices
        .get_mut(n)
        .filter(|_| n != 0)
        .map(core::mem::take)
        .ok_or(RingError::NotFormatted)?;
    let parts = Parts::attach(ring)?;
    let mut server = RingServer::new(parts.submissions, parts.completions, parts.data.len());
    Ok(f(&mut server, parts.data, &mut slices, session))
}

/// What serving a client's rings works with: the file system and the
/// scratch storage entries are verified into.
struct Work<'a> {
    fs: &'a mut Fs,
    inodes: &'a mut Inodes,
    insns: &'a mut [Insn],
    results: &'a mut [OpResult],
    injection: &'a mut Injection,
}

/// Serves up to a depth of `client`'s entries; how many.
fn serve_client(work: &mut Work<'_>, client: &mut Client) -> Result<u32, RingError> {
    let Work {
        fs,
        inodes,
        insns,
        results,
        injection,
    } = work;
    with_rings(client, |server, data, regions, session| {
        let mut service = EntryWork {
            files: FileService {
                fs,
                inodes,
                session,
            },
            injection,
        };
        let mut scratch = Scratch { insns, results };
        let mut served = 0;
        let until = rdtsc().saturating_add(TURN_TSC);
        while served < DEPTH {
            match server.serve_one(data, &mut service, regions, &TARGET, &mut scratch)? {
                // The file server defers nothing (`serve_one`).
                Served::Completed(_) | Served::Deferred(_) => served += 1,
                Served::Empty | Served::Backlogged => break,
            }
            if rdtsc() >= until {
                break;
            }
        }
        // Taken either way: a waiter is answered below whether or not the
        // client raised the flag before it called.
        let _ = served > 0 && server.needs_signal();
        Ok(served)
    })?
}

impl Server {
    /// RING: region `region` (an attached data region the client
    /// formatted) becomes the session's rings. Cold: kept out of the
    /// request path every other request takes (test request-cost).
    #[cold]
    #[inline(never)]
    pub fn ring_setup(&mut self, badge: u64, region: u64) -> Message {
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return fs_fail(e),
        };
        let Some(n) = usize::try_from(region).ok().filter(|n| *n != 0) else {
            return fs_fail(FsError::BadRing);
        };
        if let Some(old) = client.rings.take() {
            if let Some(w) = old.waiter {
                self.outbox.push((w, fs_fail(FsError::Cancelled)));
            }
        }
        client.rings = Some(Rings {
            region: n,
            waiter: None,
        });
        self.rings_used = true;
        match with_rings(client, |_, _, _, _| ()) {
            Ok(()) => Message::new(ipc::OK, &[u64::from(DEPTH), u64::from(RING_MAX_STEPS)]),
            Err(_) => {
                client.rings = None;
                fs_fail(FsError::BadRing)
            }
        }
    }

    /// RING_ENTER: the doorbell. With `wait`, answered (`None` now) once a
    /// completion waits. Kept out of the common request path, as above.
    #[inline(never)]
    pub fn ring_enter(&mut self, badge: u64, wait: bool, reply: usize) -> Option<Message> {
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return Some(fs_fail(e)),
        };
        if client.rings.is_none() {
            return Some(fs_fail(FsError::NoRing));
        }
        if !wait {
            return Some(Message::new(ipc::OK, &[]));
        }
        match with_rings(client, |server, _, _, _| server.unreaped()) {
            Ok(Ok(0)) => {
                if let Some(r) = client.rings.as_mut() {
                    r.waiter = Some(reply);
                }
                None
            }
            Ok(Ok(_)) => Some(Message::new(ipc::OK, &[])),
            Ok(Err(e)) | Err(e) => {
                drop_rings(client, &mut self.outbox, e);
                Some(fs_fail(FsError::NoRing))
            }
        }
    }

    /// One adaptive step (see the module docs): serve every ring; if
    /// none had work, count an empty pass, and past [`SPIN`] of them ask
    /// for doorbells. True while the loop should keep polling.
    #[inline(never)]
    pub fn ring_pass(&mut self, poller: &mut Poller) -> bool {
        if self.serve_rings() > 0 {
            poller.worked();
            return true;
        }
        match poller.idle() {
            Idle::Spin => true,
            Idle::Sleep => !self.rings_asleep(),
        }
    }

    /// One pass over every session's rings; entries served.
    pub fn serve_rings(&mut self) -> u32 {
        let mut work = Work {
            fs: &mut self.fs,
            inodes: &mut self.inodes,
            insns: &mut self.insns,
            results: &mut self.results,
            injection: &mut self.injection,
        };
        let mut total = 0;
        for i in 0..MAX_CLIENTS {
            let Some(client) = self.clients.at(i).filter(|c| c.rings.is_some()) else {
                continue;
            };
            match serve_client(&mut work, client) {
                Ok(0) => {}
                Ok(n) => {
                    total += n;
                    if let Some(w) = client.rings.as_mut().and_then(|r| r.waiter.take()) {
                        self.outbox.push((w, Message::new(ipc::OK, &[])));
                    }
                }
                Err(e) => drop_rings(client, &mut self.outbox, e),
            }
        }
        total
    }

    /// Before sleeping: asks every ring's client for a doorbell and looks
    /// once more. True if no ring has an entry the server could take
    /// (sleep): each is empty, or backlogged — its completion ring full
    /// because its client does not reap, so its entries wait for that
    /// client's next call, which wakes the server, and do not keep it
    /// polling meanwhile.
    pub fn rings_asleep(&mut self) -> bool {
        let mut asleep = true;
        for i in 0..MAX_CLIENTS {
            let Some(client) = self.clients.at(i).filter(|c| c.rings.is_some()) else {
                continue;
            };
            let idle = with_rings(client, |s, _, _, _| {
                Ok::<_, RingError>(s.prepare_to_wait()? || s.unreaped()? >= DEPTH)
            });
            // An error is found again, and reported, by the next pass.
            if !matches!(idle, Ok(Ok(true))) {
                asleep = false;
            }
        }
        asleep
    }
}

/// Drops `client`'s rings after `e`; its waiter learns `NoRing`.
fn drop_rings(client: &mut Client, outbox: &mut alloc::vec::Vec<(usize, Message)>, e: RingError) {
    println!(
        "client {:#x}: its rings are dropped: {e}; its other requests are still served",
        client.badge
    );
    if let Some(w) = client.rings.take().and_then(|r| r.waiter) {
        outbox.push((w, fs_fail(FsError::NoRing)));
    }
}
