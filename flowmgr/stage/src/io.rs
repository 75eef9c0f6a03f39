//! One running flow as its stage sees it: the pool, the edge ends, the
//! doorbells, and the steps that move buffers.
//!
//! A step takes what it needs before it commits: a transformer first
//! holds an empty output buffer, then takes a full input one, so it never
//! pops a buffer it has nowhere to put. A step that fails *transiently*
//! (the device said try again) keeps the buffers it holds and is retried
//! on the next turn, counted in `retries`; a step that fails for good
//! drops the input (counted as a drop on the output edge, where the
//! downstream stage and `flowmgr` see it) and carries on. Sequence numbers
//! pass from input to output unchanged; a source numbers its buffers from
//! its start position (0 unless the flow was rewired mid-way).
//!
//! A source with a rate limit holds a [`Bucket`]: out of credit, a pull
//! source's step waits ([`Step::WaitOther`]; `flowmgr` rings every
//! rate-limited source's doorbell at each of its 100 ms looks, so the
//! task wakes) and a push source drops what it is offered, and counts it.

use crate::mem::Mapping;
use crate::os::Os;
use crate::rate::Bucket;
use conflux_flow_protocol::edge::{EdgeError, Input, Output};
use conflux_flow_protocol::Buf;
use core::ops::Range;

/// What a step did, and so what the stage would wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// It moved a buffer; call again.
    Progress,
    /// Nothing to take on the input edge.
    WaitInput,
    /// No empty buffer on the output edge.
    WaitOutput,
    /// Waiting for something else (frames, a device); never sleeps on an
    /// edge.
    WaitOther,
    /// The flow is paused.
    Paused,
    /// The source is exhausted, or an edge broke: nothing more will move.
    Finished,
}

/// How a step's work ended when it did not succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Try the same buffer again later.
    Transient,
    /// Give this buffer up (it is dropped and counted).
    Permanent,
}

/// A running flow of one stage.
pub struct FlowIo {
    pub(crate) pool: Mapping,
    pub(crate) input: Option<Input>,
    pub(crate) output: Option<Output>,
    pub(crate) down: Option<usize>,
    pub(crate) up: Option<usize>,
    held_in: Option<Buf>,
    held_out: Option<Buf>,
    next_seq: u32,
    pub(crate) paused: bool,
    pub(crate) last: Step,
    /// The source's rate limit, if it has one.
    bucket: Option<Bucket>,
    /// The flow's priority, 0..=7 (see [`crate::Stages::run`]).
    pub(crate) priority: u8,
    /// Transient failures retried so far.
    pub retries: u64,
    /// Buffers given up after a permanent failure.
    pub failures: u64,
    /// The edge error that finished the flow, if one did.
    pub broken: Option<EdgeError>,
}

/// `(src, dst)`: two disjoint ranges of one pool as a shared and a
/// mutable slice (the spans of two edges never overlap; checked at start).
fn two(pool: &mut [u8], src: Range<usize>, dst: Range<usize>) -> Option<(&[u8], &mut [u8])> {
    if src.end <= dst.start {
        let (a, b) = pool.split_at_mut(dst.start);
        Some((a.get(src)?, b.get_mut(..dst.end - dst.start)?))
    } else if dst.end <= src.start {
        let (a, b) = pool.split_at_mut(src.start);
        let d = a.get_mut(dst)?;
        Some((b.get(..src.end - src.start)?, d))
    } else {
        None
    }
}

impl FlowIo {
    pub(crate) fn new(
        pool: Mapping,
        input: Option<Input>,
        output: Option<Output>,
        down: Option<usize>,
        up: Option<usize>,
    ) -> Self {
        Self {
            pool,
            input,
            output,
            down,
            up,
            held_in: None,
            held_out: None,
            next_seq: 0,
            paused: false,
            last: Step::Progress,
            bucket: None,
            priority: 0,
            retries: 0,
            failures: 0,
            broken: None,
        }
    }

    /// Applies START's scheduling words at time `now`: the priority, the
    /// source's rate limit and the sequence number of its first buffer.
    pub(crate) fn schedule(&mut self, start: &conflux_flow_protocol::stage::Start, now: u64) {
        self.priority = start.sched.priority;
        self.bucket = Bucket::new(&start.sched, now);
        if start.input.is_none() {
            self.next_seq = start.position as u32;
        }
    }

    /// The whole pool (for a stage that works on it directly, such as a
    /// crypto device that must be told the pool's address once).
    pub fn pool(&mut self) -> &mut Mapping {
        &mut self.pool
    }

    fn broke(&mut self, e: EdgeError) -> Step {
        self.broken = Some(e);
        Step::Finished
    }

    /// Holds an empty output buffer, if one can be had.
    fn empty(&mut self) -> Result<Option<Buf>, EdgeError> {
        if self.held_out.is_none() {
            let Some(out) = self.output.as_mut() else {
                return Ok(None);
            };
            // Refused descriptors are counted by the edge; skip them.
            while let Some(t) = out.take_empty()? {
                if let Ok(b) = t {
                    self.held_out = Some(b);
                    break;
                }
            }
        }
        Ok(self.held_out)
    }

    /// Holds a full input buffer, if one can be had.
    fn full(&mut self) -> Result<Option<Buf>, EdgeError> {
        if self.held_in.is_none() {
            let Some(inp) = self.input.as_mut() else {
                return Ok(None);
            };
            while let Some(t) = inp.take_full()? {
                if let Ok(b) = t {
                    self.held_in = Some(b);
                    break;
                }
            }
        }
        Ok(self.held_in)
    }

    fn send(&mut self, os: &mut impl Os, b: Buf, len: u32, seq: u32) -> Result<(), EdgeError> {
        self.held_out = None;
        if let Some(out) = self.output.as_mut() {
            if out.send(&b, len, seq, os.now())? {
                if let Some(d) = self.down {
                    os.ring(d);
                }
            }
        }
        Ok(())
    }

    fn recycle(&mut self, os: &mut impl Os, b: Buf) -> Result<(), EdgeError> {
        self.held_in = None;
        if let Some(inp) = self.input.as_mut() {
            if inp.recycle(&b, b.len, os.now())? {
                if let Some(u) = self.up {
                    os.ring(u);
                }
            }
        }
        Ok(())
    }

    /// Counts one piece of data dropped at this stage, on the output edge
    /// if there is one (else the input's).
    pub fn count_drop(&self) {
        if let Some(o) = &self.output {
            o.counters().drop_one();
        } else if let Some(i) = &self.input {
            i.counters().drop_one();
        }
    }

    fn fail(&mut self, os: &mut impl Os, f: Failure) -> Result<Step, EdgeError> {
        match f {
            Failure::Transient => {
                self.retries += 1;
                Ok(Step::WaitOther)
            }
            Failure::Permanent => {
                self.failures += 1;
                self.count_drop();
                if let Some(b) = self.held_in {
                    self.recycle(os, b)?;
                }
                Ok(Step::Progress)
            }
        }
    }

    /// A transformer's step: `f(src, dst)` turns one full input buffer into
    /// one output buffer and returns the output's length.
    pub fn transform(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&[u8], &mut [u8]) -> Result<usize, Failure>,
    ) -> Step {
        self.step(|io| {
            let Some(out) = io.empty()? else {
                return Ok(Step::WaitOutput);
            };
            let Some(inp) = io.full()? else {
                return Ok(Step::WaitInput);
            };
            let dst_range = out.offset as usize..(out.offset + u64::from(out.len)) as usize;
            let Some((src, dst)) = two(io.pool.bytes(), inp.range(), dst_range) else {
                return io.fail(os, Failure::Permanent);
            };
            match f(src, dst) {
                Ok(n) => {
                    let n = u32::try_from(n).unwrap_or(u32::MAX).min(out.len);
                    io.send(os, out, n, inp.seq)?;
                    io.recycle(os, inp)?;
                    Ok(Step::Progress)
                }
                Err(e) => io.fail(os, e),
            }
        })
    }

    /// A source's step: `f(dst)` fills one empty buffer and returns its
    /// length, `Ok(None)` if it has nothing now (the buffer stays held),
    /// or `Err(Finished)`-like [`Failure::Permanent`] when exhausted.
    pub fn source(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&mut [u8]) -> Result<Option<usize>, Failure>,
    ) -> Step {
        self.step(|io| {
            if let Some(b) = io.bucket.as_mut() {
                if !b.admits(os.now()) {
                    return Ok(Step::WaitOther);
                }
            }
            let Some(out) = io.empty()? else {
                return Ok(Step::WaitOutput);
            };
            let Some(dst) = io.pool.bytes().get_mut(out.range()) else {
                return Ok(Step::Finished);
            };
            match f(dst) {
                Ok(Some(n)) => {
                    let seq = io.next_seq;
                    io.next_seq = seq.wrapping_add(1);
                    let n = u32::try_from(n).unwrap_or(u32::MAX).min(out.len);
                    io.send(os, out, n, seq)?;
                    if let Some(b) = io.bucket.as_mut() {
                        b.spend(u64::from(n));
                    }
                    Ok(Step::Progress)
                }
                Ok(None) => Ok(Step::WaitOther),
                Err(Failure::Transient) => {
                    io.retries += 1;
                    Ok(Step::WaitOther)
                }
                Err(Failure::Permanent) => Ok(Step::Finished),
            }
        })
    }

    /// A source that has data but no buffer for it (a datagram arriving
    /// while the flow is backed up, or over its rate): counts the drop. Returns whether a
    /// buffer was free after all, in which case `fill` wrote into it.
    pub fn offer(&mut self, os: &mut impl Os, fill: impl FnOnce(&mut [u8]) -> usize) -> bool {
        if self.paused {
            self.count_drop();
            return false;
        }
        let mut filled = false;
        let step = self.source(os, |dst| {
            filled = true;
            Ok(Some(fill(dst)))
        });
        if !filled && step != Step::Finished {
            self.count_drop();
        }
        filled
    }

    /// A sink's step: `f(src, seq)` consumes one full input buffer.
    pub fn sink(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&[u8], u32) -> Result<(), Failure>,
    ) -> Step {
        self.step(|io| {
            let Some(inp) = io.full()? else {
                return Ok(Step::WaitInput);
            };
            let Some(src) = io.pool.bytes().get(inp.range()) else {
                return io.fail(os, Failure::Permanent);
            };
            match f(src, inp.seq) {
                Ok(()) => {
                    io.recycle(os, inp)?;
                    Ok(Step::Progress)
                }
                Err(e) => io.fail(os, e),
            }
        })
    }

    fn step(&mut self, f: impl FnOnce(&mut Self) -> Result<Step, EdgeError>) -> Step {
        let step = if self.paused {
            Step::Paused
        } else if self.broken.is_some() {
            Step::Finished
        } else {
            match f(self) {
                Ok(s) => s,
                Err(e) => self.broke(e),
            }
        };
        self.last = step;
        step
    }

    /// Before the task sleeps: `true` if this flow has nothing to do until
    /// a doorbell (the neighbour it waits on was asked to ring), `false`
    /// if work arrived meanwhile.
    pub(crate) fn ready_to_sleep(&mut self) -> bool {
        let r = match self.last {
            Step::Progress => Ok(false),
            Step::WaitInput => self.input.as_mut().map_or(Ok(true), Input::prepare_to_wait),
            Step::WaitOutput => self
                .output
                .as_mut()
                .map_or(Ok(true), Output::prepare_to_wait),
            Step::WaitOther | Step::Paused | Step::Finished => Ok(true),
        };
        match r {
            Ok(sleep) => sleep,
            Err(e) => {
                self.broke(e);
                true
            }
        }
    }
}
