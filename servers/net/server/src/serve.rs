//! The server's answers: for each request, what it does to the sessions
//! and the stack, and the reply it sends. Every reply label is a status:
//! 0, or the code a compound op would report for the same failure
//! (`0x8000 | NetError` for socket and session errors), or
//! `REJECTED | code` for a compound the verifier refused.
//!
//! Before a request is decoded for what it asks, the message itself is
//! checked, in this order: more words than any request takes
//! (`TooManyWords`), an unknown label or op (`NoSuchOp`), more words than
//! this request takes (`TooManyWords`), a capability on a request that
//! takes none (`UnexpectedCap`) or none on one that needs it
//! (`MissingCap`). A request of a client without a session gets
//! `NoSession`.

use alloc::vec;
use alloc::vec::Vec;

use conflux_cosy_ipc::regions::{Lent, Slices};
use conflux_cosy_ipc::{self as ipc, Request, Words};
use conflux_netcore::parking::{self, Parked, Parking, Waiter, MAX_OPERANDS};
use conflux_netcore::{quiet, Handle, NetCore};
use conflux_socket_protocol::{ops, NetError};
use conflux_userlib::ipc::{long_word, Message};
use conflux_userlib::println;
use cosy_abi::{Args, CallError, Insn, OpResult, Service};
use smoltcp::time::Instant;

use crate::clients::{Client, Clients};
use crate::link::Link;

/// The most ops one compound may have.
pub const MAX_OPS: usize = 256;
/// The most steps one run may take: compounds run to the end at once, so
/// this bounds how long one client holds the server.
pub const MAX_STEPS: u32 = 16_384;

const _: () = assert!(
    ops::VAN_BASE == ipc::VAN_BASE,
    "socket ops and the session protocol disagree on VAN_BASE"
);
const _: () = assert!(
    ipc::CLIENT_GONE == conflux_abi::ipc::CLIENT_GONE_LABEL,
    "the session protocol and the supervisor disagree on CLIENT_GONE"
);

/// Everything the server keeps.
pub struct Server {
    pub core: NetCore<Link>,
    pub clients: Clients,
    pub parked: Parking,
    /// Scratch storage a RUN is verified into, and run results.
    pub(crate) insns: Vec<Insn>,
    pub(crate) results: Vec<OpResult>,
    /// Replies to parked calls that ended: reply slot and message. The
    /// loop sends them.
    pub outbox: Vec<(usize, Message)>,
    /// The time of the last poll.
    pub now: Instant,
    /// Some session has named rings: the loop serves them (`rings`).
    pub rings_used: bool,
}

/// What [`Server::handle`] did with a request.
pub struct Handled {
    /// The reply; `None` when the request was parked (answered later
    /// through `outbox`).
    pub answer: Option<Message>,
    /// The request could not have changed the stack
    /// ([`conflux_netcore::quiet`]), so the loop need not poll it.
    pub quiet: bool,
}

/// The reply for a failure with `e`.
pub fn fail(e: impl Into<CallError>) -> Message {
    Message::new(u32::from(e.into().code()), &[])
}

/// The words of `msg`: in place when its registers hold them all, else
/// read into `long` (registers, then the IPC buffer).
fn words<'m>(msg: &'m Message, long: &'m mut Option<Words>) -> Result<&'m [u64], NetError> {
    if let Some(held) = msg.words.get(..msg.len) {
        return Ok(held);
    }
    let read = Words::new(msg.len, |i| {
        msg.words.get(i).copied().unwrap_or_else(|| long_word(i))
    })
    .map_err(|_| NetError::TooManyWords)?;
    Ok(long.insert(read).from(0))
}

/// A buffer operand's word as (region, offset, length).
pub(crate) fn buf_operand(word: u64) -> (usize, usize, usize) {
    let b = ipc::BufArg::unpack(word);
    (usize::from(b.region), b.offset as usize, b.len as usize)
}

/// The words from `i` on (none past the end).
fn after(words: &[u64], i: usize) -> &[u64] {
    words.get(i..).unwrap_or(&[])
}

impl Server {
    pub fn new(core: NetCore<Link>, clients: Clients, now: Instant) -> Self {
        Server {
            core,
            clients,
            parked: Parking::default(),
            insns: vec![Insn::EMPTY; MAX_OPS],
            results: vec![OpResult::EMPTY; MAX_OPS],
            outbox: Vec::new(),
            now,
            rings_used: false,
        }
    }

    /// The reply to `msg` from the client with `badge`, whose reply
    /// capability is in slot `reply`, and whether the request was quiet.
    pub fn handle(&mut self, badge: u64, msg: &Message, reply: usize) -> Handled {
        let refused = |e: NetError| Handled {
            answer: Some(fail(e)),
            quiet: true, // nothing ran
        };
        let mut long = None;
        let words = match words(msg, &mut long) {
            Ok(w) => w,
            Err(e) => return refused(e),
        };
        let request = Request::of(msg.label, words);
        if let Err(e) = admit(msg, &request, words) {
            return refused(e);
        }
        let answer = self.answer(badge, request, words, msg, reply);
        // A parked request armed a deadline: the loop must see it.
        let quiet = answer.is_some() && matches!(request, Request::Op(op) if quiet::quiet(op));
        // A quiet request changed no socket, so no count a quota limits.
        if !quiet {
            self.report_quota(badge);
        }
        Handled { answer, quiet }
    }

    /// What `request` (of `msg`, checked) does, and the reply (`None`:
    /// parked).
    fn answer(
        &mut self,
        badge: u64,
        request: Request,
        words: &[u64],
        msg: &Message,
        reply: usize,
    ) -> Option<Message> {
        Some(match request {
            Request::Connect { version } => self.connect(badge, version, lent_region(msg)),
            Request::Attach => match lent_region(msg).map(|r| self.clients.attach(badge, r?)) {
                Some(Ok(n)) => Message::new(ipc::OK, &[n as u64]),
                Some(Err(e)) => fail(e),
                None => fail(NetError::MissingCap),
            },
            Request::Detach => match self.end_session(badge) {
                true => Message::new(ipc::OK, &[]),
                false => fail(NetError::NoSession),
            },
            Request::Op(op) => return self.one_op(badge, op, words, reply),
            Request::Run { offset, len } => self.run(badge, offset, len, after(words, 2)),
            Request::Prepare { offset, len } => self.prepare(badge, offset, len),
            Request::RunPrepared { handle } => self.run_prepared(badge, handle, after(words, 1)),
            Request::Release { handle } => self.release(badge, handle),
            Request::ClientGone { badge: gone } => self.client_gone(badge, gone),
            Request::Ring { region } => self.ring_setup(badge, region),
            Request::RingEnter { wait } => return self.ring_enter(badge, wait, reply),
            // The network server has no SHUTDOWN: it runs as long as the
            // system does.
            Request::Shutdown | Request::Unknown => fail(NetError::NoSuchOp),
        })
    }

    /// Says once per session, in the log, that client `badge` reached its
    /// socket quota, so whoever reads why it gets `QuotaExceeded` sees
    /// which limit it met and how large it is.
    fn report_quota(&mut self, badge: u64) {
        let stack = self.core.stack();
        let (held, quota) = (stack.client_held(badge), stack.client_quota(badge));
        let Ok(client) = self.clients.get(badge) else {
            return;
        };
        if held < quota || client.quota_reported {
            return;
        }
        client.quota_reported = true;
        println!(
            "the client with badge {badge:#x} holds its quota of {quota} sockets (listener backlogs and connections still closing count); its next sockets and listener refills get QuotaExceeded until it closes some; other clients are served as before"
        );
    }

    fn connect(
        &mut self,
        badge: u64,
        version: u64,
        received: Option<Result<Lent, NetError>>,
    ) -> Message {
        if version != ipc::VERSION {
            return fail(NetError::Invalid);
        }
        let slot = match received {
            None => return fail(NetError::MissingCap),
            Some(Err(e)) => return fail(e),
            Some(Ok(lent)) => lent,
        };
        // A restarted client reconnects: its old session ends first.
        self.end_session(badge);
        match self.clients.connect(badge, slot) {
            Ok(len) => Message::new(ipc::OK, &[len as u64, u64::from(MAX_STEPS), MAX_OPS as u64]),
            Err(e) => fail(e),
        }
    }

    /// CLIENT_GONE: the supervisor (`caller` must carry its badge) says
    /// the task holding `gone` has ended; its session ends as on DETACH.
    /// Word 0 of the reply: 1 if it had one.
    fn client_gone(&mut self, caller: u64, gone: u64) -> Message {
        if caller != conflux_abi::ipc::SUPERVISOR_BADGE {
            return fail(NetError::NotSupervisor);
        }
        let had = self.end_session(gone);
        Message::new(ipc::OK, &[u64::from(had)])
    }

    /// Ends `badge`'s session: its parked requests are answered
    /// `Cancelled` (its parked ring entries go with its rings, its ring
    /// waiter is answered `Cancelled` too), its sockets closed, its
    /// regions unmapped. True if it had one.
    pub fn end_session(&mut self, badge: u64) -> bool {
        for p in self.parked.take_client(badge) {
            if let Waiter::Reply(slot) = p.waiter {
                self.outbox.push((slot, fail(NetError::Cancelled)));
            }
        }
        self.end_rings(badge);
        self.core.stack().end_session(badge);
        self.clients.disconnect(badge)
    }

    /// One socket operation (the per-call path); parked if it must wait.
    fn one_op(&mut self, badge: u64, op: u16, words: &[u64], reply: usize) -> Option<Message> {
        // Operands past the words read 0, as absent ones do.
        let mut operands = [0; MAX_OPERANDS];
        for (o, w) in operands.iter_mut().zip(words) {
            *o = *w;
        }
        let p = Parked {
            badge,
            waiter: Waiter::Reply(reply),
            op,
            operands,
            deadline: parking::deadline(op, &operands, self.now),
        };
        self.attempt(p).map(reply_of)
    }

    /// Runs `p`'s op; how it ended, or `None` if it was parked (again).
    pub fn attempt(&mut self, p: Parked) -> Option<Result<u64, CallError>> {
        let e = match self.call(p.badge, p.op, &p.operands) {
            Ok(value) => return Some(Ok(value)),
            Err(e) => e,
        };
        let Some(net) = NetError::from_call(e) else {
            return Some(Err(e));
        };
        let stack = self.core.stack();
        let blocking = !Handle::from_word(p.operands[0])
            .and_then(|h| stack.is_nonblocking(p.badge, h))
            .unwrap_or(true);
        let expired = p.deadline.is_some_and(|d| d <= self.now);
        if expired && p.op == ops::WAIT {
            return Some(Ok(0));
        }
        // A ring entry's place is its ring's (`rings`), not a reply slot.
        let room = matches!(p.waiter, Waiter::Ring(_)) || self.parked.has_room();
        if parking::parks(p.op, net, blocking) && room {
            self.parked.push(p);
            return None;
        }
        Some(Err(e))
    }

    /// Op `op` with `operands` on behalf of `badge`.
    fn call(&mut self, badge: u64, op: u16, operands: &[u64]) -> Result<u64, CallError> {
        let spec = ops::TABLE.get(op).ok_or(NetError::NoSuchOp)?;
        let client = self.clients.get(badge)?;
        // Only buffer operands reach the regions (through `Args`), so an
        // op without one is spared gathering the region slices.
        let mut slices;
        let regions: &mut [&mut [u8]] = if spec.takes_buffers() {
            slices = operand_regions(client);
            &mut slices
        } else {
            &mut []
        };
        let mut args = Args::from_words(operands, spec.args, buf_operand, regions)?;
        self.core.service(badge).call(op, &mut args)
    }

    /// Runs every parked request again (after a poll that changed some
    /// socket, or a deadline); those that finish are answered.
    pub fn retry_parked(&mut self) {
        for p in self.parked.take_all() {
            let (badge, waiter) = (p.badge, p.waiter);
            let Some(result) = self.attempt(p) else {
                continue;
            };
            match waiter {
                Waiter::Reply(slot) => self.outbox.push((slot, reply_of(result))),
                Waiter::Ring(tag) => self.ring_done(badge, tag, result),
            }
        }
    }
}

/// The reply to a call that ended with `result`.
fn reply_of(result: Result<u64, CallError>) -> Message {
    match result {
        Ok(value) => Message::new(ipc::OK, &[value]),
        Err(e) => fail(e),
    }
}

/// The regions `client`'s buffer operands may name: a session's ring
/// region reads as empty to every operand, as it does to ring entries, so
/// a parked ring entry run again sees the regions it was checked against.
/// Out of line: the request path of an op without buffers does not carry
/// it (test request-cost).
#[inline(never)]
fn operand_regions(client: &mut Client) -> Slices<'_> {
    let ring = client.rings.as_ref().map(|r| r.region);
    let mut slices = client.slices();
    if let Some(r) = ring.and_then(|n| slices.get_mut(n)) {
        *r = &mut [];
    }
    slices
}

/// The checks on the message itself (see the module docs).
fn admit(msg: &Message, request: &Request, words: &[u64]) -> Result<(), NetError> {
    let operands = |op: u16| ops::TABLE.get(op).map(|s| s.args.len());
    if let Request::Unknown | Request::Shutdown = request {
        return Err(NetError::NoSuchOp);
    }
    if let Request::Op(op) = request {
        let n = operands(*op).ok_or(NetError::NoSuchOp)?;
        if words.len() < n {
            return Err(NetError::Invalid);
        }
    }
    if words.len() > request.max_words(operands) {
        return Err(NetError::TooManyWords);
    }
    match (request.takes_cap(), msg.cap.is_some()) {
        (false, true) => Err(NetError::UnexpectedCap),
        (true, false) => Err(NetError::MissingCap),
        _ => Ok(()),
    }
}

/// The region a CONNECT or ATTACH carries, taken only if it was lent.
fn lent_region(msg: &Message) -> Option<Result<Lent, NetError>> {
    Lent::from_message(msg).map(|r| r.map_err(|_| NetError::NotLent))
}
