//! Compounds: RUN, PREPARE, RUN_PREPARED and RELEASE.
//!
//! A compound is verified against the socket op table and run with the
//! network core's `NetService`, buffers being refs into the client's
//! regions (zero copy). Unlike the file server's, a compound here runs to
//! its end at once: its steps are bounded by [`MAX_STEPS`], and no op in
//! it waits — an op that would block fails with `WouldBlock` (the
//! compound's own `on_fail` decides what follows), so a compound never
//! parks. A compound that must wait for a socket calls `wait` as a
//! per-call request first, or is run again.

use alloc::boxed::Box;
use alloc::vec::Vec;

use conflux_cosy_ipc::{self as ipc, verify_at, write_results, Refused, RunReply};
use conflux_socket_protocol::{ops, NetError};
use conflux_userlib::ipc::Message;
use cosy_abi::{Insn, Program, Registers};

use crate::clients::{Client, Prepared, MAX_PREPARED};
use crate::serve::{fail, Server, MAX_OPS, MAX_STEPS};

/// The reply to a compound the verifier or the span check refused.
fn refused(r: Refused) -> Message {
    match r {
        Refused::BadSpan => fail(NetError::BadBuffer),
        Refused::Rejected { code, op } => Message::new(ipc::REJECTED | u32::from(code), &[op]),
    }
}

/// `n` empty instructions, or `None` if the heap has no room for them.
fn insns(n: usize) -> Option<Vec<Insn>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, Insn::EMPTY);
    Some(v)
}

/// Verifies the client's compound at `offset..offset + len` of its
/// control region into `storage`.
fn verify<S: AsRef<[Insn]> + AsMut<[Insn]>>(
    client: &mut Client,
    offset: u64,
    len: u64,
    storage: S,
) -> Result<Program<S>, Message> {
    let mut slices = client.slices();
    verify_at(&mut slices, offset, len, ops::TABLE, MAX_STEPS, storage).map_err(refused)
}

impl Server {
    /// Verifies and runs the compound at `offset..offset + len`.
    pub fn run(&mut self, badge: u64, offset: u64, len: u64, params: &[u64]) -> Message {
        let Some(regs) = Registers::with_params(params) else {
            return fail(NetError::Invalid);
        };
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        // The scratch storage leaves `self` while the program borrows it.
        let mut insns = core::mem::take(&mut self.insns);
        let answer = match verify(client, offset, len, &mut insns[..]) {
            Ok(program) => self.execute(badge, &program, (offset, len), regs),
            Err(refusal) => refusal,
        };
        self.insns = insns;
        answer
    }

    /// Verifies a compound once and keeps it by handle.
    pub fn prepare(&mut self, badge: u64, offset: u64, len: u64) -> Message {
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        let Some(free) = client.prepared.iter().position(Option::is_none) else {
            return fail(NetError::SessionFull);
        };
        // Memory a client's request needs is asked for, never assumed: a
        // full heap answers NoMemory rather than panicking the server.
        let Some(scratch) = insns(MAX_OPS) else {
            return fail(NetError::NoMemory);
        };
        let program = match verify(client, offset, len, scratch) {
            Ok(p) => p,
            Err(refusal) => return refusal,
        };
        let Some(program) = insns(program.len()).and_then(|kept| program.copy_into(kept)) else {
            return fail(NetError::NoMemory);
        };
        client.prepared[free] = Some(Box::new(Prepared {
            program,
            offset,
            len,
        }));
        Message::new(ipc::OK, &[free as u64])
    }

    /// Runs a prepared compound with new parameters.
    pub fn run_prepared(&mut self, badge: u64, handle: u64, params: &[u64]) -> Message {
        let Some(regs) = Registers::with_params(params) else {
            return fail(NetError::Invalid);
        };
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        let index = usize::try_from(handle).ok().filter(|h| *h < MAX_PREPARED);
        let Some((h, prepared)) = index.and_then(|h| Some((h, client.prepared[h].take()?))) else {
            return fail(NetError::BadPrepared);
        };
        let at = (prepared.offset, prepared.len);
        let answer = self.execute(badge, &prepared.program, at, regs);
        if let Ok(client) = self.clients.get(badge) {
            client.prepared[h] = Some(prepared);
        }
        answer
    }

    /// Forgets a prepared compound.
    pub fn release(&mut self, badge: u64, handle: u64) -> Message {
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        let slot = usize::try_from(handle)
            .ok()
            .and_then(|h| client.prepared.get_mut(h));
        match slot.and_then(Option::take) {
            Some(_) => Message::new(ipc::OK, &[]),
            None => fail(NetError::BadPrepared),
        }
    }

    /// Runs `program` (whose bytes are at `at` of the control region) to
    /// its end, writes its results back and makes the reply.
    fn execute<S: AsRef<[Insn]>>(
        &mut self,
        badge: u64,
        program: &Program<S>,
        at: (u64, u64),
        mut regs: Registers,
    ) -> Message {
        let client = match self.clients.get(badge) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        let mut service = self.core.service(badge);
        let report = {
            let mut slices = client.slices();
            program.run(&mut service, &mut slices, &mut regs, &mut self.results)
        };
        if let Some(control) = client.regions.get_mut(0) {
            write_results(control.bytes(), at.0, at.1, &report, &self.results);
        }
        Message::new(ipc::OK, &RunReply::of(&report).to_words())
    }
}
