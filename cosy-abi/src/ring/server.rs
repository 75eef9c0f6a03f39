//! The server's end: takes entries off the submission ring, checks and
//! runs them against a [`Service`], and answers each on the completion
//! ring.
//!
//! One entry per [`RingServer::serve_one`], so a server interleaves its
//! clients' rings and its endpoint as it likes. An entry is taken only
//! when the completion ring has room for its answer: a client that keeps
//! to its depth always leaves that room, and one that does not stalls
//! only its own ring ([`Served::Backlogged`]).
//!
//! # Take now, complete later
//!
//! A server whose operations may wait (the network server's `recv` on an
//! empty socket) serves with [`RingServer::serve_one_deferring`]: when an
//! operation fails, its `defer` hook may keep the entry (its op and operand
//! words, copied) and answer it later with [`RingServer::complete`], in any
//! order. A deferred entry is still in flight for the client, so it still
//! holds a place in the completion ring: the server takes a new entry only
//! while the ring has room for every deferred answer and one more. A
//! client that keeps its depth never has more in flight than the ring
//! holds, so that room is always there; one that moves the ring's head
//! back has its connection called [`RingError::Corrupt`] when a deferred
//! answer does not fit.

use conflux_queue::{Consumer, DataRegion, PopError, Producer, Ring, ValidDescriptor};

use crate::args::{Args, BufWord};
use crate::code;
use crate::exec::Progress;
use crate::program::{Insn, Program, Target, MAX_REGIONS};
use crate::registers::Registers;
use crate::report::{OpResult, Outcome, Report};
use crate::service::{CallError, Service};
use crate::wire::{Compound, NO_OP};

use super::entry::{CompoundEntry, Entry, OpEntry, UntrustedEntry};
use super::{Completion, RingError};

/// How a server runs entries: how an operation's buffer operand is packed
/// in its word (the server's per-call convention), and the most steps one
/// compound may take.
#[derive(Clone, Copy, Debug)]
pub struct ServeTarget {
    /// Unpacks a buffer operand word into (region, offset, length).
    pub buf: BufWord,
    /// The step limit of one compound entry.
    pub max_steps: u32,
}

/// The server's storage for one compound: decoded ops and their results
/// (no allocation per entry).
pub struct Scratch<'s> {
    /// Where the verifier decodes the ops (its length is the op limit).
    pub insns: &'s mut [Insn],
    /// One result per op; at least as long as `insns`.
    pub results: &'s mut [OpResult],
}

/// What one [`RingServer::serve_one`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// The submission ring is empty.
    Empty,
    /// Entries wait, but the completion ring is full: the client has not
    /// reaped and broke its depth. Nothing was taken; serve others.
    Backlogged,
    /// An entry was answered with this completion.
    Completed(Completion),
    /// An operation was taken and kept by the `defer` hook of
    /// [`RingServer::serve_one_deferring`]: answer it later with
    /// [`RingServer::complete`]. The entry's tag.
    Deferred(u32),
}

/// A [`RingServer::serve_one_deferring`] hook: called with a failed
/// operation's tag, op number, operand words and error; true if the
/// server keeps it to answer later.
pub trait Defer {
    /// Whether to keep the failed operation (the words are the entry's,
    /// copied out of the ring once; the server copies what it keeps).
    fn defer(&mut self, tag: u32, op: u16, words: &[u64], error: CallError) -> bool;
}

/// Defers nothing: every entry is answered at once.
pub struct NoDefer;

impl Defer for NoDefer {
    fn defer(&mut self, _: u32, _: u16, _: &[u64], _: CallError) -> bool {
        false
    }
}

/// The server's end of one client's rings.
pub struct RingServer<'a> {
    submissions: Consumer<'a>,
    completions: Producer<'a>,
}

impl<'a> RingServer<'a> {
    /// The server's end over the client's two rings and a data area of
    /// `data_len` bytes (every submission is checked against it).
    pub fn new(submissions: Ring<'a>, completions: Ring<'a>, data_len: usize) -> Self {
        Self {
            submissions: submissions.into_consumer(DataRegion::new(data_len)),
            completions: completions.into_producer(),
        }
    }

    /// Takes one entry, runs it, answers it. `data` is the ring's data
    /// area (as long as given to [`RingServer::new`]), `regions` the
    /// client's regions that operands and compound refs name.
    /// `Err(Corrupt)` only when a ring's indices are impossible.
    pub fn serve_one<V: Service + ?Sized>(
        &mut self,
        data: &mut [u8],
        service: &mut V,
        regions: &mut [&mut [u8]],
        target: &ServeTarget,
        scratch: &mut Scratch<'_>,
    ) -> Result<Served, RingError> {
        self.serve_one_deferring(data, service, regions, target, scratch, 0, &mut NoDefer)
    }

    /// [`RingServer::serve_one`] for a server that keeps operations to
    /// answer later (see the module docs): `deferred` is how many of this
    /// client's entries it keeps now, `defer` is asked about each failed
    /// operation (never about a compound's ops: a compound runs to its
    /// end).
    #[allow(clippy::too_many_arguments)]
    pub fn serve_one_deferring<V: Service + ?Sized, D: Defer + ?Sized>(
        &mut self,
        data: &mut [u8],
        service: &mut V,
        regions: &mut [&mut [u8]],
        target: &ServeTarget,
        scratch: &mut Scratch<'_>,
        deferred: u32,
        defer: &mut D,
    ) -> Result<Served, RingError> {
        if self.submissions.is_empty()? {
            return Ok(Served::Empty);
        }
        // Room for every deferred answer and this entry's.
        if self.completions.free()? <= deferred {
            return Ok(Served::Backlogged);
        }
        let completion = match self.submissions.pop() {
            Ok(None) => return Ok(Served::Empty),
            Err(PopError::Corrupt(c)) => return Err(c.into()),
            Err(PopError::OutOfBounds(d)) => refuse(d.id, code::ENTRY_OUT_OF_BOUNDS),
            Ok(Some(v)) => {
                let tag = v.id();
                match run_entry(v, data, service, regions, target, scratch, defer) {
                    Some(c) => c,
                    None => return Ok(Served::Deferred(tag)),
                }
            }
        };
        self.completions.push(completion.to_slot())?;
        Ok(Served::Completed(completion))
    }

    /// Answers an entry taken earlier and deferred. `Err(Corrupt)` if the
    /// completion ring has no room, which only a client that moved its
    /// head back can cause (a deferred answer always has its place).
    pub fn complete(&mut self, completion: Completion) -> Result<(), RingError> {
        self.completions.push(completion.to_slot())?;
        Ok(())
    }

    /// Completions the client has not reaped yet.
    pub fn unreaped(&self) -> Result<u32, RingError> {
        Ok(super::DEPTH - self.completions.free()?)
    }

    /// After answering: whether the client asked to be notified (then
    /// notify it once). A client busy reaping never asks.
    pub fn needs_signal(&mut self) -> bool {
        self.completions.needs_signal()
    }

    /// Before sleeping: asks the client for a notification and looks
    /// once more. `Ok(true)`: still empty, sleep; `Ok(false)`: entries
    /// arrived, serve them.
    pub fn prepare_to_wait(&mut self) -> Result<bool, RingError> {
        Ok(self.submissions.prepare_to_wait()?)
    }
}

fn refuse(tag: u32, status: u16) -> Completion {
    Completion {
        tag,
        status,
        value: 0,
    }
}

/// The entry's answer, or `None` if `defer` kept it.
fn run_entry<V: Service + ?Sized, D: Defer + ?Sized>(
    v: ValidDescriptor,
    data: &mut [u8],
    service: &mut V,
    regions: &mut [&mut [u8]],
    target: &ServeTarget,
    scratch: &mut Scratch<'_>,
    defer: &mut D,
) -> Option<Completion> {
    let tag = v.id();
    let range = v.range();
    let Some(bytes) = data.get(range.clone()) else {
        // `data` is shorter than the area the server announced.
        return Some(refuse(tag, code::ENTRY_OUT_OF_BOUNDS));
    };
    match UntrustedEntry::new(bytes).check() {
        Err(status) => Some(refuse(tag, status)),
        Ok(Entry::Op(op)) => run_op(tag, &op, service, regions, target.buf, defer),
        Ok(Entry::Compound(c)) => {
            let body = range.start + c.body..range.end;
            // `body` lies inside `range`, which `data.get` accepted.
            Some(run_compound(
                tag,
                &c,
                &mut data[body],
                service,
                regions,
                target,
                scratch,
            ))
        }
    }
}

fn run_op<V: Service + ?Sized, D: Defer + ?Sized>(
    tag: u32,
    op: &OpEntry,
    service: &mut V,
    regions: &mut [&mut [u8]],
    buf: BufWord,
    defer: &mut D,
) -> Option<Completion> {
    let Some(spec) = service.ops().get(op.op).copied() else {
        return Some(refuse(tag, code::UNKNOWN_SERVICE_OP));
    };
    if op.words().len() != spec.args.len() {
        return Some(refuse(tag, code::ARG_COUNT));
    }
    let result = Args::from_words(op.words(), spec.args, buf, regions)
        .and_then(|mut args| service.call(op.op, &mut args));
    match result {
        Ok(value) => Some(Completion {
            tag,
            status: code::OK,
            value,
        }),
        // Only a call that ran may wait: a malformed operand never does.
        Err(e @ CallError::Service(_)) if defer.defer(tag, op.op, op.words(), e) => None,
        Err(e) => Some(refuse(tag, e.code())),
    }
}

fn run_compound<V: Service + ?Sized>(
    tag: u32,
    entry: &CompoundEntry,
    body: &mut [u8],
    service: &mut V,
    regions: &mut [&mut [u8]],
    target: &ServeTarget,
    scratch: &mut Scratch<'_>,
) -> Completion {
    let mut lens = [0usize; MAX_REGIONS];
    let n = regions.len().min(MAX_REGIONS);
    for (len, r) in lens.iter_mut().zip(regions.iter()) {
        *len = r.len();
    }
    let verified = Program::verify(
        body,
        &Target {
            ops: service.ops(),
            regions: &lens[..n],
            max_steps: target.max_steps,
        },
        &mut *scratch.insns,
    );
    let program = match verified {
        Ok(p) => p,
        Err(e) => {
            Compound::new_unchecked(&mut *body).write_rejection(&e);
            return Completion {
                tag,
                status: e.code(),
                value: e.op().map_or(u64::from(NO_OP), u64::from),
            };
        }
    };
    // At most 32 parameters (checked with the entry), one per register.
    let regs = Registers::with_params(entry.params()).unwrap_or_default();
    // One slice as long as the step limit: an entry runs to its end in
    // one go, so its calls' work (bytes moved, syncs: `Service::work`) is
    // bounded as its steps are, and one that would go past stops at that
    // op (a longer compound goes by IPC, where it runs in slices).
    let report = match program.start(&regs, regions, scratch.results) {
        Err(report) => report,
        Ok(mut run) => {
            let slice = target.max_steps;
            match program.resume(&mut run, service, regions, scratch.results, slice) {
                Progress::Done(report) => report,
                Progress::Paused => run.stop(code::ENTRY_WORK_EXHAUSTED),
            }
        }
    };
    // The client may have rewritten the bytes meanwhile: write the
    // results only where they still describe this compound.
    if let Ok(mut view) = Compound::new_checked(&mut *body) {
        let ran = scratch.results.get(..program.len()).unwrap_or(&[]);
        view.write_results(&report, ran);
    }
    Completion {
        tag,
        status: status_of(&report),
        value: report.exit_value,
    }
}

/// A run's status: `OK` if it finished (failed ops are in its results
/// area), else the code that stopped it.
fn status_of(report: &Report) -> u16 {
    match (report.outcome, report.stop) {
        (Outcome::Finished, _) => code::OK,
        (_, Some(f)) => f.code,
        (_, None) => code::BUDGET_EXHAUSTED,
    }
}
