//! Compounds that run in slices, so one client's long compound cannot
//! hold the server from the others.
//!
//! A RUN (or RUN_PREPARED) runs its first slice at once; most compounds
//! end inside it and are answered like any request. One that does not
//! becomes its session's *job*: the server keeps the verified program,
//! the run's state and the caller's reply capability (in a reply slot of
//! its own), and between slices takes other requests with `nb_recv`. The
//! session answers `Busy` to anything else until the job ends; DETACH or
//! CONNECT on it (a restarted client) cancels the job, whose caller then
//! gets `Cancelled`, as do all jobs when the server shuts down. A
//! cancelled compound's results area is not written (spec §9: results
//! are written when a run ends).

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use conflux_cosy_ipc::write_results;
use conflux_fs_core::{FileService, Inodes};
use conflux_fs_protocol::ipc::{RunReply, SLICE_TSC};
use conflux_fs_protocol::{ipc, FsError};
use conflux_userlib::ipc::Message;
use conflux_userlib::sys::rdtsc;
use cosy_abi::{CallError, Execution, Insn, OpResult, Program, Progress, Report, Service};

use crate::clients::{Client, Prepared};
use crate::serve::{Fs, Server};

/// Steps in one slice: small enough that a client waiting behind a
/// runaway compound waits a few thousand instructions, large enough that
/// the slicing costs little (see docs/PERFORMANCE.md). A slice also ends
/// once its calls moved `SLICE * BYTES_PER_STEP` bytes (32 KiB:
/// `Service::work`) or ran for `SLICE_TSC` (TSC ticks: a few `stat`s'
/// worth, so a client behind a compound of costly calls waits about as
/// long as behind one of cheap steps), whichever comes first; one call is
/// never cut.
pub const SLICE: u32 = 128;

/// A compound still running for its session.
pub struct Job {
    /// Where the caller's reply capability is.
    pub reply: usize,
    /// The program and where its bytes are in the control region.
    compound: Box<Prepared>,
    /// The prepared handle it came from, to give it back at the end.
    handle: Option<usize>,
    run: Execution,
    results: Vec<OpResult>,
}

/// What a run request turned into.
pub enum Started {
    /// It ended in its first slice (or could not start): the reply.
    Ended(Message),
    /// It goes on as the session's job; the reply comes when it ends.
    Running,
}

impl Server {
    /// Starts `program` (the compound at `offset..offset + len` of the
    /// control region) for the client with `badge` and runs its first
    /// slice. A program that goes on is kept (copied out of `program`'s
    /// storage if `handle` is `None`); `handle` names the prepared slot it
    /// came from.
    #[allow(clippy::too_many_arguments)]
    pub fn start<S: AsRef<[Insn]>>(
        &mut self,
        badge: u64,
        program: Program<S>,
        at: (usize, usize),
        handle: Option<usize>,
        regs: cosy_abi::Registers,
        reply: usize,
        keep: impl FnOnce(Program<S>) -> Option<Program<Vec<Insn>>>,
    ) -> Started {
        let client = match self.clients.get(badge) {
            Ok(client) => client,
            Err(e) => return Started::Ended(fs_fail(e)),
        };
        let run = {
            let slices = client.slices();
            program.start(&regs, &slices, &mut self.results)
        };
        let report = match run {
            Err(report) => report,
            Ok(mut run) => {
                let fs = &mut self.fs;
                match slice(
                    &program,
                    &mut run,
                    fs,
                    &mut self.inodes,
                    client,
                    &mut self.results,
                ) {
                    Progress::Done(report) => report,
                    Progress::Paused => {
                        let Some(program) = keep(program) else {
                            return Started::Ended(fs_fail(FsError::NoMemory));
                        };
                        let results = self.results[..program.len()].to_vec();
                        client.job = Some(Box::new(Job {
                            reply,
                            compound: Box::new(Prepared {
                                program,
                                offset: at.0,
                                len: at.1,
                            }),
                            handle,
                            run,
                            results,
                        }));
                        return Started::Running;
                    }
                }
            }
        };
        let answer = finish(client, at, &report, &self.results);
        // A prepared program goes back to its slot (`keep` is the
        // identity for one).
        if let Some(h) = handle {
            client.prepared[h] = keep(program).map(|program| {
                Box::new(Prepared {
                    program,
                    offset: at.0,
                    len: at.1,
                })
            });
        }
        Started::Ended(answer)
    }

    /// Whether any compound is still running.
    pub fn has_jobs(&self) -> bool {
        self.clients.with_jobs(0).next().is_some()
    }

    /// Runs one slice of the next job (round robin), at its client's
    /// priority if that is less urgent than the server's; a job that ends
    /// queues its reply in `outbox`. True when the server was lowered
    /// (the caller raises it back once the client's peers had a turn).
    pub fn run_slice(&mut self) -> bool {
        let Some(index) = self.clients.with_jobs(self.next_job).next() else {
            return false;
        };
        self.next_job = crate::clients::wrap(index + 1);
        let Some(client) = self.clients.at(index) else {
            return false;
        };
        let Some(mut job) = client.job.take() else {
            return false;
        };
        let at = crate::priority::of(index);
        let lowered = at != crate::config::PRIORITY;
        if lowered {
            crate::priority::set(at);
        }
        let progress = slice(
            &job.compound.program,
            &mut job.run,
            &mut self.fs,
            &mut self.inodes,
            client,
            &mut job.results,
        );
        match progress {
            Progress::Paused => client.job = Some(job),
            Progress::Done(report) => {
                let at = (job.compound.offset, job.compound.len);
                let answer = finish(client, at, &report, &job.results);
                self.outbox.push((job.reply, answer));
                if let Some(h) = job.handle {
                    client.prepared[h] = Some(job.compound);
                }
            }
        }
        lowered
    }

    /// Cancels the job of the client with `badge`, if it has one: its
    /// caller gets `Cancelled`, a prepared compound goes back to its slot.
    pub fn cancel(&mut self, badge: u64) {
        let Ok(client) = self.clients.get(badge) else {
            return;
        };
        // A RING_ENTER waiting for a completion is answered the same way.
        if let Some(w) = client.rings.as_mut().and_then(|r| r.waiter.take()) {
            self.outbox.push((w, fs_fail(FsError::Cancelled)));
        }
        if let Some(job) = client.job.take() {
            self.outbox.push((job.reply, fs_fail(FsError::Cancelled)));
            if let Some(h) = job.handle {
                client.prepared[h] = Some(job.compound);
            }
        }
    }

    /// Cancels every job (the server is stopping).
    pub fn cancel_all(&mut self) {
        loop {
            let next = self.clients.with_jobs(0).next();
            let Some(badge) = next.and_then(|i| self.clients.at(i)).map(|c| c.badge) else {
                return;
            };
            self.cancel(badge);
        }
    }
}

/// Runs one slice of `program` for `client`.
fn slice<S: AsRef<[Insn]>>(
    program: &Program<S>,
    run: &mut Execution,
    fs: &mut Fs,
    inodes: &mut Inodes,
    client: &mut Client,
    results: &mut [OpResult],
) -> Progress {
    let (mut slices, session) = client.parts();
    let mut service = Timed {
        files: FileService {
            fs,
            inodes,
            session,
        },
        until: rdtsc().saturating_add(SLICE_TSC),
    };
    program.resume(run, &mut service, &mut slices, results, SLICE)
}

/// The file operations with a deadline: once it passes, every call's work
/// ends the slice, so a compound of calls that each cost much more than a
/// step (opens, stats, small writes) still gives the CPU back in time.
struct Timed<'a> {
    files: FileService<'a, conflux_fs_core::BlockCache<crate::disk::BlkDisk>>,
    /// The TSC value at which the slice is over.
    until: u64,
}

impl Service for Timed<'_> {
    fn ops(&self) -> cosy_abi::OpTable<'_> {
        self.files.ops()
    }

    fn call(&mut self, opcode: u16, args: &mut cosy_abi::Args<'_, '_>) -> Result<u64, CallError> {
        self.files.call(opcode, args)
    }

    fn work(&self, opcode: u16, value: Option<u64>) -> u32 {
        match rdtsc() >= self.until {
            true => u32::MAX,
            false => self.files.work(opcode, value),
        }
    }
}

/// Writes an ended run's results back and makes its reply.
fn finish(
    client: &mut Client,
    at: (usize, usize),
    report: &Report,
    results: &[OpResult],
) -> Message {
    if let Some(control) = client.regions.get_mut(0) {
        let (offset, len) = (at.0 as u64, at.1 as u64);
        write_results(control.bytes(), offset, len, report, results);
    }
    Message::new(ipc::OK, &RunReply::of(report).to_words())
}

/// A failure reply.
pub fn fs_fail(e: FsError) -> Message {
    Message::new(u32::from(CallError::from(e).code()), &[])
}

/// Storage for a program kept past the request that verified it.
pub fn owned<S: AsRef<[Insn]>>(program: Program<S>) -> Option<Program<Vec<Insn>>> {
    program.copy_into(vec![Insn::EMPTY; program.len()])
}
