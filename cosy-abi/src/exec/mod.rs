//! The executor: runs a verified [`Program`] against a [`Service`].
//!
//! One loop, one `match` per op, except that a `CALL` followed by a
//! `LOOP` back to it (a counted loop around one call) repeats as a pair
//! inside the call's arm, still op by op but without a dispatch per op.
//! What the verifier proved is not checked again (op codes, register
//! numbers, targets); what can change between runs is (the regions'
//! lengths, register-relative buffer refs, divisors, byte counts, the
//! budget). Region bytes are only reached through
//! bounds-checked slices, so no compound can make the server touch memory
//! outside the regions it passed in; the step counter is checked before
//! every op, so no compound runs past its budget. It allocates nothing.

mod data;

use crate::args::Args;
use crate::code;
use crate::program::{Arg, Insn, Op, Program, Val};
use crate::regfile::Regfile;
use crate::registers::Registers;
use crate::report::{Fault, OpResult, Outcome, Report};
use crate::service::{CallError, Service};
use crate::wire::MAX_OPERANDS;
use data::Second;

/// Why an op did not complete.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fail {
    /// It failed with this code.
    Code(u16),
    /// It would exceed the budget.
    Budget,
}

impl<S: AsRef<[Insn]>> Program<S> {
    /// Runs the program once, to its end.
    ///
    /// - `service` performs the `CALL`s;
    /// - `regions` are the client's regions, numbered as when the program
    ///   was verified (each must be at least as long as it was then);
    /// - `regs` holds the parameters going in (see
    ///   [`Registers::with_params`]) and the final registers coming out;
    /// - `results` receives one [`OpResult`] per op and must have room for
    ///   them all. Every slot is reset to never-ran first, so after any run,
    ///   even one that stops before its first op, the slots describe that
    ///   run alone.
    ///
    /// The run is bounded by [`Program::budget`] steps. Write the results
    /// back to the client with [`crate::Compound::write_results`]. A
    /// server that must not spend a whole budget at once runs the same
    /// thing in slices with [`Program::start`] and [`Program::resume`].
    pub fn run<V: Service + ?Sized>(
        &self,
        service: &mut V,
        regions: &mut [&mut [u8]],
        regs: &mut Registers,
        results: &mut [OpResult],
    ) -> Report {
        let mut run = match self.start(regs, regions, results) {
            Ok(r) => r,
            Err(report) => return report,
        };
        let report = loop {
            // An unlimited slice ends only when the run does.
            if let Progress::Done(r) = self.resume(&mut run, service, regions, results, u32::MAX) {
                break r;
            }
        };
        *regs = run.registers();
        report
    }

    /// Starts a run that [`Program::resume`] carries out slice by slice
    /// (arguments as for [`Program::run`]). Resets every result slot; a
    /// run that cannot start (too few result slots, a region shorter than
    /// when verified, spec §9.3) gives its final report instead.
    pub fn start(
        &self,
        regs: &Registers,
        regions: &[&mut [u8]],
        results: &mut [OpResult],
    ) -> Result<Execution, Report> {
        // Slots are reset before anything can stop the run, so a run that
        // ends before its first op never leaves a previous run's values,
        // statuses and counts behind (spec §9.2).
        let Some(results) = results.get_mut(..self.len()) else {
            results.fill(OpResult::EMPTY);
            return Err(setup_failure(code::RESULTS_TOO_SMALL));
        };
        results.fill(OpResult::EMPTY);
        if !self.regions_still_fit(regions) {
            return Err(setup_failure(code::REGION_TOO_SMALL));
        }
        Ok(Execution {
            file: Regfile::load(regs),
            ended: false,
            pc: 0,
            steps: 0,
            report: Report {
                outcome: Outcome::Finished,
                ..Report::default()
            },
        })
    }

    /// Goes on with `run` for about `slice` more steps: it pauses before
    /// the first op that starts once `slice` steps of this call are used
    /// (a data op may take the slice past that by its own extra steps;
    /// the budget is never passed). Returns [`Progress::Done`] with the
    /// report when the run ended, [`Progress::Paused`] otherwise. Give it
    /// the same service, regions and results as the call before: a region
    /// shorter than when verified stops the run (`REGION_TOO_SMALL`), too
    /// few result slots (`RESULTS_TOO_SMALL`).
    pub fn resume<V: Service + ?Sized>(
        &self,
        run: &mut Execution,
        service: &mut V,
        regions: &mut [&mut [u8]],
        results: &mut [OpResult],
        slice: u32,
    ) -> Progress {
        let Some(results) = results.get_mut(..self.len()) else {
            return Progress::Done(setup_failure(code::RESULTS_TOO_SMALL));
        };
        if !self.regions_still_fit(regions) {
            return Progress::Done(setup_failure(code::REGION_TOO_SMALL));
        }
        if run.ended {
            return Progress::Done(run.report);
        }
        let pause_at = run.steps.saturating_add(slice);
        run.ended = self.exec(self.insns(), service, regions, run, results, pause_at);
        match run.ended {
            true => Progress::Done(run.report),
            false => Progress::Paused,
        }
    }

    fn regions_still_fit(&self, regions: &[&mut [u8]]) -> bool {
        let verified = self.region_lens.get(..self.region_count).unwrap_or(&[]);
        regions.len() >= verified.len()
            && verified.iter().zip(regions).all(|(len, r)| r.len() >= *len)
    }

    /// The loop: runs ops until the run ends (true, `run.report` final)
    /// or `pause_at` steps are used (false).
    ///
    /// Each op's arm yields its value and the next `pc`; the tail records
    /// the value as the op's result. The arms that end the run, fail or
    /// run out of budget leave the loop themselves, as does `CALL`'s,
    /// which records its own results. `pc` and the step
    /// count live in locals for the whole slice and go back into `run` at
    /// its end.
    fn exec<V: Service + ?Sized>(
        &self,
        insns: &[Insn],
        service: &mut V,
        regions: &mut [&mut [u8]],
        run: &mut Execution,
        results: &mut [OpResult],
        mut pause_at: u32,
    ) -> bool {
        // One length for both, so the test that finds an op also proves
        // its result slot is there.
        let n = insns.len().min(results.len());
        let (insns, results) = (&insns[..n], &mut results[..n]);
        let budget = self.budget;
        // One test per op covers both the budget and the pause. A call's
        // work (`Service::work`) brings the pause nearer, never the budget.
        let mut limit = budget.min(pause_at);
        let Execution {
            file,
            pc: run_pc,
            steps: run_steps,
            report,
            ..
        } = run;
        let (mut pc, mut steps) = (*run_pc, *run_steps);
        // An op that failed with `$code`: its destination and result get
        // `-code` (like a Linux syscall's -errno, negative as an i64); the
        // run stops if it is fail-fast, else goes on with the next op.
        macro_rules! fail {
            ($run:lifetime, $slot:expr, $code:expr, $dst:expr) => {{
                let code = $code;
                let v = 0u64.wrapping_sub(u64::from(code));
                file.set($dst, v);
                record($slot, v, code);
                if failed(report, pc, code, self.fail_fast) {
                    break $run true;
                }
                pc += 1;
                continue $run;
            }};
        }
        macro_rules! alu {
            ($dst:expr, $value:expr) => {{
                let v = $value;
                file.set($dst, v);
                (v, pc + 1)
            }};
        }
        let done = 'run: loop {
            let (Some(insn), Some(slot)) = (insns.get(pc), results.get_mut(pc)) else {
                break true;
            };
            if steps >= limit {
                if steps < budget {
                    break false;
                }
                report.outcome = Outcome::Stopped;
                report.stop = Some(fault(pc, code::BUDGET_EXHAUSTED));
                break true;
            }
            steps += 1;
            let (value, next) = match &insn.0 {
                Op::Call {
                    dst,
                    opcode,
                    argc,
                    bufs,
                    args,
                } => {
                    // A call followed by a LOOP back to it, the shape of
                    // `for i in a..b { call(..) }`: the pair repeats in
                    // here without going back through the dispatch. Each
                    // op still has its budget test, step and result, so
                    // the run is the same, op for op; anything else (a
                    // pause, the budget, a failure, the loop's end) goes
                    // back to the main loop at the op it concerns.
                    let back = match insns.get(pc + 1) {
                        Some(Insn(Op::Loop {
                            counter,
                            cmp,
                            step,
                            limit,
                            target,
                        })) if usize::from(*target) == pc => Some((*counter, *cmp, *step, *limit)),
                        _ => None,
                    };
                    // The call's slot and the loop's (the tail's `slot` is
                    // not used on this path).
                    let (slot, mut loop_slot) = match results.get_mut(pc..) {
                        Some([call_slot, next, ..]) => (call_slot, Some(next)),
                        Some([call_slot]) => (call_slot, None),
                        // `insns.get(pc)` found the op, so its slot exists.
                        _ => break 'run true,
                    };
                    loop {
                        let got = call(service, *opcode, *argc, *bufs, args, regions, file);
                        let work = service.work(*opcode, got.ok());
                        if work != 0 {
                            pause_at = pause_at.saturating_sub(work);
                            limit = budget.min(pause_at);
                        }
                        let v = match got {
                            Ok(v) => v,
                            Err(code) => fail!('run, slot, code, *dst),
                        };
                        file.set(*dst, v);
                        record(slot, v, code::OK);
                        let (Some((counter, cmp, step, end)), Some(loop_slot)) =
                            (back, loop_slot.as_deref_mut())
                        else {
                            pc += 1;
                            continue 'run;
                        };
                        if steps >= limit {
                            pc += 1;
                            continue 'run;
                        }
                        steps += 1;
                        let (v, end) = count(file, counter, step, end);
                        record(loop_slot, v, code::OK);
                        if !cmp.holds(v, end) {
                            pc += 2;
                            continue 'run;
                        }
                        if steps >= limit {
                            continue 'run;
                        }
                        steps += 1;
                    }
                }
                Op::Loop {
                    counter,
                    cmp,
                    step,
                    limit,
                    target,
                } => {
                    let (v, limit) = count(file, *counter, *step, *limit);
                    match cmp.holds(v, limit) {
                        true => (v, usize::from(*target)),
                        false => (v, pc + 1),
                    }
                }
                Op::Br { cmp, a, b, target } => match cmp.holds(file.val(*a), file.val(*b)) {
                    true => (1, usize::from(*target)),
                    false => (0, pc + 1),
                },
                Op::Jump { target } => (0, usize::from(*target)),
                Op::Exit { a } => {
                    let v = file.val(*a);
                    record(slot, v, code::OK);
                    report.exit_value = v;
                    break true;
                }
                Op::Mov { dst, a } => alu!(*dst, file.val(*a)),
                Op::Add { dst, a, b } => alu!(*dst, file.val(*a).wrapping_add(file.val(*b))),
                Op::Sub { dst, a, b } => alu!(*dst, file.val(*a).wrapping_sub(file.val(*b))),
                Op::Mul { dst, a, b } => alu!(*dst, file.val(*a).wrapping_mul(file.val(*b))),
                Op::Div { dst, a, b } => match file.val(*a).checked_div(file.val(*b)) {
                    Some(v) => alu!(*dst, v),
                    None => fail!('run, slot, code::DIVIDE_BY_ZERO, *dst),
                },
                Op::Rem { dst, a, b } => match file.val(*a).checked_rem(file.val(*b)) {
                    Some(v) => alu!(*dst, v),
                    None => fail!('run, slot, code::DIVIDE_BY_ZERO, *dst),
                },
                Op::And { dst, a, b } => alu!(*dst, file.val(*a) & file.val(*b)),
                Op::Or { dst, a, b } => alu!(*dst, file.val(*a) | file.val(*b)),
                Op::Xor { dst, a, b } => alu!(*dst, file.val(*a) ^ file.val(*b)),
                Op::Shl { dst, a, b } => {
                    alu!(*dst, shift(file.val(*a), file.val(*b), u64::checked_shl))
                }
                Op::Shr { dst, a, b } => {
                    alu!(*dst, shift(file.val(*a), file.val(*b), u64::checked_shr))
                }
                Op::Switch { a, size, default } => {
                    let v = file.val(*a);
                    // The verifier made ops pc+1..=pc+size jumps.
                    let entry = (v < u64::from(*size))
                        .then(|| insns.get(pc + 1 + v as usize))
                        .flatten();
                    match entry {
                        Some(Insn(Op::Jump { target })) => (v, usize::from(*target)),
                        _ => (u64::from(*size), usize::from(*default)),
                    }
                }
                Op::Data { op, dst, args } => {
                    match data_op(*op, args, regions, file, budget - steps) {
                        Ok((v, extra)) => {
                            steps += extra;
                            alu!(*dst, v)
                        }
                        Err(Fail::Code(code)) => fail!('run, slot, code, *dst),
                        Err(Fail::Budget) => {
                            steps -= 1;
                            report.outcome = Outcome::Stopped;
                            report.stop = Some(fault(pc, code::BUDGET_EXHAUSTED));
                            break true;
                        }
                    }
                }
            };
            record(slot, value, code::OK);
            pc = next;
        };
        *run_pc = pc;
        *run_steps = steps;
        report.steps = steps;
        done
    }
}

/// A run in progress ([`Program::start`]): the registers, the next op, the
/// steps used and the report so far. It belongs to the program that
/// started it; it holds nothing of the client's.
#[derive(Clone, Debug)]
pub struct Execution {
    file: Regfile,
    /// The run ended; resuming gives the same report again.
    ended: bool,
    pc: usize,
    steps: u32,
    report: Report,
}

impl Execution {
    /// Steps used so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Ends a paused run here with `code`, as a fail-fast error at the
    /// op it would have run next: the report to write back. A server
    /// that gives a run one slice only (a ring entry) ends it this way
    /// when the slice runs out.
    pub fn stop(&mut self, code: u16) -> Report {
        if !self.ended {
            self.ended = true;
            self.report.outcome = Outcome::Stopped;
            self.report.stop = Some(fault(self.pc, code));
        }
        self.report
    }

    /// The registers as they are now (the final ones once the run ended).
    pub fn registers(&self) -> Registers {
        let mut regs = Registers::new();
        self.file.store(&mut regs);
        regs
    }
}

/// What [`Program::resume`] left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The slice ended with the run still going; resume it again.
    Paused,
    /// The run ended, with this report.
    Done(Report),
}

/// A `LOOP`'s count: adds the step to the counter; the new count and the
/// limit. Operands are read before the op writes (spec §4.1), even when
/// the limit is the counter itself.
#[inline(always)]
fn count(file: &mut Regfile, counter: u8, step: Val, limit: Val) -> (u64, u64) {
    let (step, limit) = (file.val(step), file.val(limit));
    let v = file.get(counter).wrapping_add(step);
    file.set(counter, v);
    (v, limit)
}

/// Shifts by `by`, giving 0 for shifts of 64 or more.
#[inline(always)]
fn shift(a: u64, by: u64, f: fn(u64, u32) -> Option<u64>) -> u64 {
    u32::try_from(by).ok().and_then(|by| f(a, by)).unwrap_or(0)
}

/// Checks a call's buffers and calls the service; the error is the
/// op's status code.
#[inline(always)]
fn call<V: Service + ?Sized>(
    service: &mut V,
    opcode: u16,
    argc: u8,
    bufs: bool,
    args: &[Arg; MAX_OPERANDS],
    regions: &mut [&mut [u8]],
    file: &Regfile,
) -> Result<u64, u16> {
    let args = args.get(..usize::from(argc)).unwrap_or(args);
    // Every buffer is checked before the call, so a service is never
    // called with one that does not fit; `Args` resolves them again (to
    // the same place: registers cannot change during the call) on access.
    // A call of values only (the verifier knows which) skips the loop.
    if bufs && !buffers_fit(args, file, regions) {
        return Err(code::REF_OUT_OF_BOUNDS);
    }
    let mut call_args = Args::decoded(args, file, regions);
    service
        .call(opcode, &mut call_args)
        .map_err(|e| error_code(&e))
}

/// Whether every buffer among `args` is inside its region now.
fn buffers_fit(args: &[Arg], file: &Regfile, regions: &[&mut [u8]]) -> bool {
    args.iter().all(|arg| match arg {
        Arg::Buf(d) => file.resolve(d, regions).is_some(),
        _ => true,
    })
}

/// Kept out of line so the success path of a call is one test, not a
/// jump table over every error variant.
#[cold]
#[inline(never)]
fn error_code(e: &CallError) -> u16 {
    e.code()
}

fn data_op(
    op: crate::program::DataOp,
    args: &[Arg; 3],
    regions: &mut [&mut [u8]],
    file: &Regfile,
    steps_left: u32,
) -> Result<(u64, u32), Fail> {
    let [a, b, c] = args;
    let Arg::Buf(first) = a else {
        return Err(Fail::Code(code::NOT_A_BUFFER));
    };
    let oob = Fail::Code(code::REF_OUT_OF_BOUNDS);
    let first = file.resolve(first, regions).ok_or(oob)?;
    let second = match b {
        Arg::Buf(d) => Second::Buf(file.resolve(d, regions).ok_or(oob)?),
        value => Second::Value(file.arg(value)),
    };
    data::execute(op, first, second, file.arg(c), regions, steps_left)
}

/// Sets an op's result: its last value and status, one more run.
///
/// `runs` cannot overflow, so it needs no saturation (spec §9.2 says
/// saturating): [`Program::start`] sets it to 0, every run of an op is
/// at least one step, and a run is at most `budget` (a `u32`) steps.
#[inline(always)]
fn record(slot: &mut OpResult, value: u64, status: u16) {
    slot.value = value;
    slot.status = status;
    slot.runs = slot.runs.wrapping_add(1);
}

/// Counts a failed op in the report; whether the run stops there.
#[cold]
fn failed(report: &mut Report, pc: usize, code: u16, fail_fast: bool) -> bool {
    report.failures = report.failures.saturating_add(1);
    report.first_failure.get_or_insert(fault(pc, code));
    if fail_fast {
        report.outcome = Outcome::Stopped;
        report.stop = Some(fault(pc, code));
    }
    fail_fast
}

fn fault(pc: usize, code: u16) -> Fault {
    // Op indexes are below the op count, itself a u16.
    Fault {
        op: Some(pc as u16),
        code,
    }
}

fn setup_failure(code: u16) -> Report {
    Report {
        outcome: Outcome::Stopped,
        stop: Some(Fault { op: None, code }),
        ..Report::default()
    }
}
