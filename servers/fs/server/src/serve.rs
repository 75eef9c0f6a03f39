//! The server's answers: for each decoded request, what it does to the
//! file system and the client table, and the reply it sends. Every reply
//! label is a status: 0, or the code a compound op would have reported
//! for the same failure (`0x8000 | FsError` for file errors), or
//! `REJECTED | code` for a compound the verifier refused.
//!
//! Before a request is decoded for what it asks, the message itself is
//! checked, in this order: more words than any request takes
//! (`TooManyWords`), an unknown label (`NoSuchOp`), more words than this
//! request takes (`TooManyWords`), a capability on a request that takes
//! none (`UnexpectedCap`) or none on one that needs it (`MissingCap`),
//! and a session whose compound still runs (`Busy`; DETACH and CONNECT
//! cancel it instead, see `jobs`).

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use conflux_cosy_ipc::regions::Lent;
use conflux_cosy_ipc::{verify_at, Refused};
use conflux_fs_core::{BlockCache, FileService, Files, Inodes};
use conflux_fs_protocol::ipc;
use conflux_fs_protocol::{ops, FsError};
use conflux_userlib::ipc::Message;
use cosy_abi::{Args, Insn, OpResult, Program, Registers, Service};

use crate::clients::{Client, Clients, Prepared, MAX_PREPARED};
use crate::disk::BlkDisk;
use crate::jobs::{fs_fail, owned, Started};
use crate::request::{after, buf_operand, max_words, words, Request};

/// The file system as the server runs it.
pub type Fs = Files<BlockCache<BlkDisk>>;

/// The most ops one compound may have.
pub const MAX_OPS: usize = 1024;
/// The most steps one run may take (a compound asking for more gets this).
pub const MAX_STEPS: u32 = 1_000_000;

/// Everything the server keeps.
pub struct Server {
    pub fs: Fs,
    pub inodes: Inodes,
    pub clients: Clients,
    /// Scratch storage a RUN (or a ring's compound) is verified into.
    pub(crate) insns: Vec<Insn>,
    /// Results of a run's first slice.
    pub(crate) results: Vec<OpResult>,
    /// Replies to calls answered late (jobs that ended or were
    /// cancelled): the reply slot and the message. The loop sends them.
    pub outbox: Vec<(usize, Message)>,
    /// Where the round robin over jobs goes on.
    pub(crate) next_job: usize,
    /// Some session has named rings (RING) since the server started:
    /// only then does the loop look at rings (one test per request
    /// otherwise).
    pub rings_used: bool,
    /// Test systems' fault on purpose (`fault`): sees each operation,
    /// by IPC or from a ring, before it runs.
    pub injection: crate::fault::Injection,
}

/// A failure reply.
fn fail(code: u16) -> Message {
    Message::new(u32::from(code), &[])
}

impl Server {
    pub fn new(fs: Fs, clients: Clients, injection: crate::fault::Injection) -> Self {
        Server {
            fs,
            inodes: Inodes::default(),
            clients,
            insns: vec![Insn::EMPTY; MAX_OPS],
            results: vec![OpResult::EMPTY; MAX_OPS],
            outbox: Vec::new(),
            next_job: 0,
            rings_used: false,
            injection,
        }
    }

    /// The reply to `msg` from the client with `badge`, whose reply
    /// capability is in slot `reply`; `None` when the request became a
    /// running compound, answered later through `outbox`.
    pub fn handle(&mut self, badge: u64, msg: &Message, reply: usize) -> Option<Message> {
        let mut long = None;
        let words = match words(msg, &mut long) {
            Ok(w) => w,
            Err(e) => return Some(fs_fail(e)),
        };
        let request = Request::of(msg.label, words);
        if let Err(e) = self.admit(badge, msg, &request, words) {
            return Some(fs_fail(e));
        }
        Some(match request {
            Request::Connect { version } => self.connect(badge, version, lent_region(msg)),
            Request::Attach => match lent_region(msg).map(|r| self.clients.attach(badge, r?)) {
                None => fs_fail(FsError::MissingCap),
                Some(Ok(n)) => Message::new(ipc::OK, &[n as u64]),
                Some(Err(e)) => fs_fail(e),
            },
            Request::Detach => {
                // `admit` cancelled a running compound first.
                self.clients.disconnect(&mut self.inodes, badge);
                Message::new(ipc::OK, &[])
            }
            Request::Op(op) => self.one_op(badge, op, words),
            Request::Run { offset, len } => return self.run(badge, offset, len, words, reply),
            Request::Prepare { offset, len } => self.prepare(badge, offset, len),
            Request::RunPrepared { handle } => {
                return self.run_prepared(badge, handle, after(words, 1), reply)
            }
            Request::Release { handle } => self.release(badge, handle),
            Request::ClientGone { badge: gone } => self.client_gone(badge, gone),
            Request::Ring { region } => self.ring_setup(badge, region),
            Request::RingEnter { wait } => return self.ring_enter(badge, wait, reply),
            Request::Shutdown => {
                // Only the main loop can end the server; it checks the
                // badge and never gets here for an administrator.
                fs_fail(FsError::Invalid)
            }
            Request::Unknown => fs_fail(FsError::NoSuchOp),
        })
    }

    /// The checks on the message itself (see the module docs).
    fn admit(
        &mut self,
        badge: u64,
        msg: &Message,
        request: &Request,
        words: &[u64],
    ) -> Result<(), FsError> {
        if matches!(request, Request::Unknown) {
            return Err(FsError::NoSuchOp);
        }
        if words.len() > max_words(request) {
            return Err(FsError::TooManyWords);
        }
        match (request.takes_cap(), msg.cap.is_some()) {
            (false, true) => return Err(FsError::UnexpectedCap),
            (true, false) => return Err(FsError::MissingCap),
            _ => {}
        }
        let running = self.clients.get(badge).is_ok_and(|c| c.job.is_some());
        match request {
            Request::Connect { .. } | Request::Detach if running => self.cancel(badge),
            _ if running => return Err(FsError::Busy),
            _ => {}
        }
        Ok(())
    }

    /// CLIENT_GONE: the supervisor (`caller` must carry its badge) says
    /// the task holding `gone` has ended; its session ends as on DETACH
    /// (a compound still running is cancelled first, its handles closed,
    /// its regions unmapped, its prepared compounds forgotten). Word 0 of
    /// the reply: 1 if it had a session.
    fn client_gone(&mut self, caller: u64, gone: u64) -> Message {
        if caller != conflux_abi::ipc::SUPERVISOR_BADGE {
            return fs_fail(FsError::NotSupervisor);
        }
        self.cancel(gone);
        let had = self.clients.disconnect(&mut self.inodes, gone);
        Message::new(ipc::OK, &[u64::from(had)])
    }

    fn release(&mut self, badge: u64, handle: u64) -> Message {
        let client = match self.clients.get(badge) {
            Ok(client) => client,
            Err(e) => return fs_fail(e),
        };
        let slot = usize::try_from(handle)
            .ok()
            .and_then(|h| client.prepared.get_mut(h));
        match slot.and_then(Option::take) {
            Some(_) => Message::new(ipc::OK, &[]),
            None => fs_fail(FsError::BadHandle),
        }
    }

    fn connect(
        &mut self,
        badge: u64,
        version: u64,
        received: Option<Result<Lent, FsError>>,
    ) -> Message {
        if version != ipc::VERSION {
            return fs_fail(FsError::Invalid);
        }
        let lent = match received {
            None => return fs_fail(FsError::MissingCap),
            Some(Err(e)) => return fs_fail(e),
            Some(Ok(lent)) => lent,
        };
        // Only the manifest's clients have a session slot, and rights.
        if let Err(e) = crate::clients::reserved(badge) {
            return fs_fail(e);
        }
        let grant = match crate::rights::of(badge) {
            Ok(grant) => grant,
            Err(e) => return fs_fail(e),
        };
        crate::rights::check_root(&mut self.fs, badge, &grant);
        match self.clients.connect(&mut self.inodes, badge, grant, lent) {
            Ok(c) => {
                let len = c.regions.get_mut(0).map_or(0, |w| w.len());
                Message::new(ipc::OK, &[len as u64, u64::from(MAX_STEPS), MAX_OPS as u64])
            }
            Err(e) => fs_fail(e),
        }
    }

    /// One file operation, its operands in `words` (the per-call path).
    fn one_op(&mut self, badge: u64, op: u16, words: &[u64]) -> Message {
        let Some(spec) = ops::TABLE.get(op) else {
            return fs_fail(FsError::NoSuchOp);
        };
        if words.len() < spec.args.len() {
            return fs_fail(FsError::Invalid);
        }
        let client = match self.clients.get(badge) {
            Ok(client) => client,
            Err(e) => return fs_fail(e),
        };
        // Only buffer operands reach the regions (through `Args`), so an
        // op without one is spared building the region slices.
        let mut slices;
        let (regions, session): (&mut [&mut [u8]], _) = if spec.takes_buffers() {
            let (s, session) = client.parts();
            slices = s;
            (&mut slices, session)
        } else {
            (&mut [], &mut client.session)
        };
        // `words` holds at least one word per operand (checked above);
        // they are read in place, buffers checked before the op runs.
        let mut args = match Args::from_words(words, spec.args, buf_operand, regions) {
            Ok(args) => args,
            Err(e) => return fail(e.code()),
        };
        let mut service = FileService {
            fs: &mut self.fs,
            inodes: &mut self.inodes,
            session,
        };
        match service.call(op, &mut args) {
            Ok(value) => Message::new(ipc::OK, &[value]),
            Err(e) => fail(e.code()),
        }
    }

    /// Verifies the compound at `offset..offset + len` of region 0 and
    /// starts it.
    fn run(
        &mut self,
        badge: u64,
        offset: u64,
        len: u64,
        words: &[u64],
        reply: usize,
    ) -> Option<Message> {
        let Some(regs) = Registers::with_params(after(words, 2)) else {
            return Some(fs_fail(FsError::Invalid));
        };
        let client = match self.clients.get(badge) {
            Ok(client) => client,
            Err(e) => return Some(fs_fail(e)),
        };
        let at = match span(client, offset, len) {
            Ok(s) => s,
            Err(e) => return Some(fs_fail(e)),
        };
        // The scratch storage leaves `self` while the program borrows it.
        let mut insns = core::mem::take(&mut self.insns);
        let started = match verify(client, at.0, at.1, &mut insns[..]) {
            Ok(program) => self.start(badge, program, at, None, regs, reply, owned),
            Err(refused) => Started::Ended(refused),
        };
        self.insns = insns;
        match started {
            Started::Ended(answer) => Some(answer),
            Started::Running => None,
        }
    }

    fn prepare(&mut self, badge: u64, offset: u64, len: u64) -> Message {
        let client = match self.clients.get(badge) {
            Ok(client) => client,
            Err(e) => return fs_fail(e),
        };
        let (offset, len) = match span(client, offset, len) {
            Ok(s) => s,
            Err(e) => return fs_fail(e),
        };
        let Some(free) = client.prepared.iter().position(Option::is_none) else {
            return fs_fail(FsError::SessionFull);
        };
        let program = match verify(client, offset, len, vec![Insn::EMPTY; MAX_OPS]) {
            Ok(p) => p,
            Err(reply) => return reply,
        };
        client.prepared[free] = Some(Box::new(Prepared {
            program,
            offset,
            len,
        }));
        Message::new(ipc::OK, &[free as u64])
    }

    fn run_prepared(
        &mut self,
        badge: u64,
        handle: u64,
        params: &[u64],
        reply: usize,
    ) -> Option<Message> {
        let Some(regs) = Registers::with_params(params) else {
            return Some(fs_fail(FsError::Invalid));
        };
        let client = match self.clients.get(badge) {
            Ok(client) => client,
            Err(e) => return Some(fs_fail(e)),
        };
        let index = usize::try_from(handle).ok().filter(|h| *h < MAX_PREPARED);
        let Some((h, prepared)) = index.and_then(|h| Some((h, client.prepared[h].take()?))) else {
            return Some(fs_fail(FsError::BadHandle));
        };
        let at = (prepared.offset, prepared.len);
        match self.start(badge, prepared.program, at, Some(h), regs, reply, Some) {
            Started::Ended(answer) => Some(answer),
            Started::Running => None,
        }
    }
}

/// `offset..offset + len` as a range of the client's control region.
fn span(client: &mut Client, offset: u64, len: u64) -> Result<(usize, usize), FsError> {
    let region = client.regions.get_mut(0).ok_or(FsError::NotConnected)?;
    let end = offset.checked_add(len).ok_or(FsError::BadBuffer)?;
    if end > region.len() as u64 {
        return Err(FsError::BadBuffer);
    }
    Ok((offset as usize, len as usize))
}

/// Verifies the compound bytes at `offset..offset + len` of region 0 into
/// `storage`; on refusal, marks the results area `REJECTED` where it can
/// and returns the reply.
fn verify<S: AsRef<[Insn]> + AsMut<[Insn]>>(
    client: &mut Client,
    offset: usize,
    len: usize,
    storage: S,
) -> Result<Program<S>, Message> {
    let mut slices = client.slices();
    let (offset, len) = (offset as u64, len as u64);
    verify_at(&mut slices, offset, len, ops::TABLE, MAX_STEPS, storage).map_err(|r| match r {
        Refused::BadSpan => fs_fail(FsError::BadBuffer),
        Refused::Rejected { code, op } => Message::new(ipc::REJECTED | u32::from(code), &[op]),
    })
}

/// The region a CONNECT or ATTACH carries, taken only if it was lent.
fn lent_region(msg: &Message) -> Option<Result<Lent, FsError>> {
    Lent::from_message(msg).map(|r| r.map_err(|_| FsError::NotLent))
}
