//! The sessions' rings (`docs/rings.md`, "The network server's rings"):
//! exception-less submission of socket operations and compounds beside
//! the IPC path.
//!
//! Setting up, serving and polling are the file server's design: a
//! client attaches a data region, formats it as rings and names it with
//! RING; the region is taken out of the list its entries see (it reads as
//! empty), so no entry can write over its own ring's indices; every
//! session's submission ring is served after every message and wake-up,
//! up to a ring's depth per pass; RING_ENTER is the doorbell, and with
//! RING_WAIT the client's sleep (its reply capability held until an
//! answer is posted).
//!
//! What is the network server's own: an operation that would park on the
//! IPC path (`recv` on an empty blocking socket, `accept`, `connect`,
//! `wait`, `ping`) does not hold up the ring. The ring server takes it
//! (`cosy_abi::ring::Served::Deferred`), it is parked with its tag
//! (`parking::Waiter::Ring`), run again after every poll that changed a
//! socket as a parked call is, and its completion posted when it finishes
//! or its deadline passes, in whatever order. A parked entry is still in
//! flight for its client, so the ring server takes a new entry only while
//! the completion ring has room for every parked answer and one more. A
//! compound entry never parks: an op in it that would block fails with
//! `WouldBlock` in its results, as in a compound run by IPC.
//!
//! A ring whose indices are impossible is dropped with its parked
//! entries (its waiter is told `NoRing`); the session and every other
//! client go on.

use alloc::vec::Vec;

use conflux_cosy_ipc as ipc;
use conflux_netcore::parking::{self, Parked, Parking, Waiter, MAX_OPERANDS};
use conflux_netcore::{Handle, NetCore};
use conflux_socket_protocol::{ops, NetError};
use conflux_userlib::ipc::Message;
use conflux_userlib::println;
use cosy_abi::ring::{
    Completion, Defer, Idle, Parts, Poller, RingError, RingServer, Scratch, ServeTarget, Served,
    DEPTH,
};
use cosy_abi::{code, CallError};
use smoltcp::time::Instant;

use crate::clients::Client;
use crate::link::Link;
use crate::serve::{buf_operand, fail, Server, MAX_STEPS};

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
    max_steps: MAX_STEPS,
};

/// A session's rings: which of its regions holds them, and the reply
/// capability of a RING_ENTER waiting for a completion.
#[derive(Debug)]
pub struct Rings {
    pub region: usize,
    pub waiter: Option<usize>,
}

/// The defer hook: keeps a failed operation that may have to wait. The
/// stack is borrowed by the call meanwhile, so whether it really parks
/// (a blocking socket, a deadline not passed) is decided after it.
#[derive(Default)]
struct MayWait {
    kept: Option<(u16, [u64; MAX_OPERANDS], CallError)>,
}

impl Defer for MayWait {
    fn defer(&mut self, _tag: u32, op: u16, words: &[u64], error: CallError) -> bool {
        let waits = NetError::from_call(error).is_some_and(|e| parking::parks(op, e, true));
        if waits {
            // Operands past the words read 0, as absent ones do.
            let mut operands = [0; MAX_OPERANDS];
            for (o, w) in operands.iter_mut().zip(words) {
                *o = *w;
            }
            self.kept = Some((op, operands, error));
        }
        waits
    }
}

/// Runs `f` over `client`'s rings, attached again for this call (the
/// queue's indices live in the region's window), with the client's other
/// regions (the ring's own reads as empty).
fn with_rings<R>(
    client: &mut Client,
    f: impl FnOnce(&mut RingServer<'_>, &mut [u8], &mut [&mut [u8]]) -> R,
) -> Result<R, RingError> {
    let n = client.rings.as_ref().map_or(0, |r| r.region);
    let mut slices = client.slices();
    let ring = slices
        .get_mut(n)
        .filter(|_| n != 0)
        .map(core::mem::take)
        .ok_or(RingError::NotFormatted)?;
    let parts = Parts::attach(ring)?;
    let mut server = RingServer::new(parts.submissions, parts.completions, parts.data.len());
    Ok(f(&mut server, parts.data, &mut slices))
}

/// The completion of an operation that ended with `result`.
fn completion(tag: u32, result: Result<u64, CallError>) -> Completion {
    match result {
        Ok(value) => Completion {
            tag,
            status: code::OK,
            value,
        },
        Err(e) => Completion {
            tag,
            status: e.code(),
            value: 0,
        },
    }
}

/// What one pass over a client's ring did.
#[derive(Clone, Copy, Default)]
struct Pass {
    /// Entries taken (answered or parked).
    taken: u32,
    /// Completions posted.
    answered: u32,
}

/// The server's state one client's pass needs, beside the scratch.
struct Ctx<'a> {
    core: &'a mut NetCore<Link>,
    parked: &'a mut Parking,
    now: Instant,
}

/// Serves up to a depth of `client`'s entries.
fn serve_client(
    cx: &mut Ctx<'_>,
    scratch: &mut Scratch<'_>,
    badge: u64,
    client: &mut Client,
) -> Result<Pass, RingError> {
    with_rings(client, |server, data, regions| {
        let mut pass = Pass::default();
        while pass.taken < DEPTH {
            let mut hook = MayWait::default();
            let deferred = cx.parked.ring_parked(badge);
            let served = server.serve_one_deferring(
                data,
                &mut cx.core.service(badge),
                regions,
                &TARGET,
                scratch,
                deferred,
                &mut hook,
            )?;
            match served {
                Served::Completed(_) => pass.answered += 1,
                Served::Deferred(tag) => {
                    if let Some(answer) = park(cx, badge, tag, hook.kept) {
                        server.complete(answer)?;
                        pass.answered += 1;
                    }
                }
                Served::Empty | Served::Backlogged => break,
            }
            pass.taken += 1;
        }
        // Taken either way: a waiter is answered whether or not the client
        // raised the flag before it called.
        let _ = pass.answered > 0 && server.needs_signal();
        Ok(pass)
    })?
}

/// Parks the deferred entry `tag` if its op must wait; else its answer
/// now (a non-blocking socket's `WouldBlock`, a `wait` already due).
fn park(
    cx: &mut Ctx<'_>,
    badge: u64,
    tag: u32,
    kept: Option<(u16, [u64; MAX_OPERANDS], CallError)>,
) -> Option<Completion> {
    // The hook keeps every entry it defers.
    let (op, operands, error) = kept?;
    let blocking = !Handle::from_word(operands[0])
        .and_then(|h| cx.core.stack().is_nonblocking(badge, h))
        .unwrap_or(true);
    let deadline = parking::deadline(op, &operands, cx.now);
    if op == ops::WAIT && deadline.is_some_and(|d| d <= cx.now) {
        return Some(completion(tag, Ok(0)));
    }
    let waits = NetError::from_call(error).is_some_and(|e| parking::parks(op, e, blocking));
    if !waits {
        return Some(completion(tag, Err(error)));
    }
    cx.parked.push(Parked {
        badge,
        waiter: Waiter::Ring(tag),
        op,
        operands,
        deadline,
    });
    None
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
            Err(e) => return fail(e),
        };
        let Some(n) = usize::try_from(region).ok().filter(|n| *n != 0) else {
            return fail(NetError::BadRing);
        };
        if let Some(old) = client.rings.take() {
            if let Some(w) = old.waiter {
                self.outbox.push((w, fail(NetError::Cancelled)));
            }
            // The old ring's parked entries have no ring to answer on.
            self.parked.take_ring(badge);
        }
        client.rings = Some(Rings {
            region: n,
            waiter: None,
        });
        self.rings_used = true;
        match with_rings(client, |_, _, _| ()) {
            Ok(()) => Message::new(ipc::OK, &[u64::from(DEPTH), u64::from(MAX_STEPS)]),
            Err(_) => {
                client.rings = None;
                fail(NetError::BadRing)
            }
        }
    }

    /// RING_ENTER: the doorbell. With `wait`, answered (`None` now) once a
    /// completion waits. Cold, as above.
    #[cold]
    #[inline(never)]
    pub fn ring_enter(&mut self, badge: u64, wait: bool, reply: usize) -> Option<Message> {
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return Some(fail(e)),
        };
        if client.rings.is_none() {
            return Some(fail(NetError::NoRing));
        }
        if !wait {
            return Some(Message::new(ipc::OK, &[]));
        }
        match with_rings(client, |server, _, _| server.unreaped()) {
            Ok(Ok(0)) => {
                if let Some(r) = client.rings.as_mut() {
                    // A second wait replaces the first, which is answered.
                    if let Some(old) = r.waiter.replace(reply) {
                        self.outbox.push((old, Message::new(ipc::OK, &[])));
                    }
                }
                None
            }
            Ok(Ok(_)) => Some(Message::new(ipc::OK, &[])),
            Ok(Err(e)) | Err(e) => {
                drop_rings(badge, client, &mut self.parked, &mut self.outbox, e);
                Some(fail(NetError::NoRing))
            }
        }
    }

    /// One adaptive step: serve every ring; if none had work, count an
    /// empty pass, and past [`SPIN`] of them ask for doorbells. Returns
    /// (entries taken, whether the loop should keep polling).
    #[inline(never)]
    pub fn ring_pass(&mut self, poller: &mut Poller) -> (u32, bool) {
        let taken = self.serve_rings();
        if taken > 0 {
            poller.worked();
            return (taken, true);
        }
        match poller.idle() {
            Idle::Spin => (0, true),
            Idle::Sleep => (0, !self.rings_asleep()),
        }
    }

    /// One pass over every session's rings; entries taken.
    pub fn serve_rings(&mut self) -> u32 {
        let mut insns = core::mem::take(&mut self.insns);
        let mut results = core::mem::take(&mut self.results);
        let mut cx = Ctx {
            core: &mut self.core,
            parked: &mut self.parked,
            now: self.now,
        };
        let mut scratch = Scratch {
            insns: &mut insns,
            results: &mut results,
        };
        let mut total = 0;
        for i in 0..self.clients.count() {
            let Some((badge, client)) = self.clients.at(i).filter(|(_, c)| c.rings.is_some())
            else {
                continue;
            };
            match serve_client(&mut cx, &mut scratch, badge, client) {
                Ok(pass) => {
                    total += pass.taken;
                    if pass.answered > 0 {
                        wake(client, &mut self.outbox);
                    }
                }
                Err(e) => drop_rings(badge, client, cx.parked, &mut self.outbox, e),
            }
        }
        self.insns = insns;
        self.results = results;
        total
    }

    /// Posts the answer to `badge`'s parked ring entry and wakes its
    /// waiter; a ring that cannot take it is dropped.
    pub fn ring_done(&mut self, badge: u64, tag: u32, result: Result<u64, CallError>) {
        let Ok(client) = self.clients.get(badge) else {
            return;
        };
        if client.rings.is_none() {
            return;
        }
        match with_rings(client, |server, _, _| {
            server.complete(completion(tag, result))?;
            let _ = server.needs_signal();
            Ok(())
        }) {
            Ok(Ok(())) => wake(client, &mut self.outbox),
            Ok(Err(e)) | Err(e) => drop_rings(badge, client, &mut self.parked, &mut self.outbox, e),
        }
    }

    /// Before sleeping: asks every ring's client for a doorbell and looks
    /// once more. True if no ring has an entry the server could take
    /// (sleep): each is empty, or backlogged — its completion ring's room
    /// belongs to its parked entries, which only a client past its depth
    /// brings about, and which must not keep the server polling.
    pub fn rings_asleep(&mut self) -> bool {
        let mut asleep = true;
        for i in 0..self.clients.count() {
            let Some((badge, client)) = self.clients.at(i).filter(|(_, c)| c.rings.is_some())
            else {
                continue;
            };
            let parked = self.parked.ring_parked(badge);
            let idle = with_rings(client, |s, _, _| {
                Ok::<_, RingError>(s.prepare_to_wait()? || DEPTH - s.unreaped()? <= parked)
            });
            // An error is found again, and reported, by the next pass.
            if !matches!(idle, Ok(Ok(true))) {
                asleep = false;
            }
        }
        asleep
    }

    /// Ends `badge`'s rings with its session: its waiter is answered
    /// `Cancelled` (its parked entries go with the session's).
    pub fn end_rings(&mut self, badge: u64) {
        let Ok(client) = self.clients.get(badge) else {
            return;
        };
        if let Some(w) = client.rings.take().and_then(|r| r.waiter) {
            self.outbox.push((w, fail(NetError::Cancelled)));
        }
    }
}

/// Answers `client`'s RING_ENTER wait, if one is held.
fn wake(client: &mut Client, outbox: &mut Vec<(usize, Message)>) {
    if let Some(w) = client.rings.as_mut().and_then(|r| r.waiter.take()) {
        outbox.push((w, Message::new(ipc::OK, &[])));
    }
}

/// Drops `client`'s rings after `e`, with its parked ring entries; its
/// waiter learns `NoRing`.
fn drop_rings(
    badge: u64,
    client: &mut Client,
    parked: &mut Parking,
    outbox: &mut Vec<(usize, Message)>,
    e: RingError,
) {
    let dropped = parked.take_ring(badge).len();
    println!(
        "client {badge:#x}: its rings are dropped: {e}; {dropped} waiting ring entries with them; its other requests are still served"
    );
    if let Some(w) = client.rings.take().and_then(|r| r.waiter) {
        outbox.push((w, fail(NetError::NoRing)));
    }
}
