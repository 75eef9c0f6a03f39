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

use crate::carve::carve;
use crate::held::{Held, BATCH};
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
    /// Input lanes: one, or two merged in turn.
    pub(crate) inputs: [Option<Input>; 2],
    /// Output lanes: one, or two split in turn.
    pub(crate) outputs: [Option<Output>; 2],
    /// The doorbells of the neighbours on each lane.
    downs: [Option<usize>; 2],
    ups: [Option<usize>; 2],
    /// The buffers held, each with the lane it came from.
    held_in: Held,
    held_out: Held,
    /// Buffers taken from the inputs and sent on the outputs so far: the
    /// next lane of each is this count modulo the lanes.
    taken: u64,
    sent: u64,
    /// A replica between a split and a merge passes what it gives up on as
    /// an empty buffer (see `Start::replica`).
    replica: bool,
    next_seq: u32,
    pub(crate) paused: bool,
    pub(crate) last: Step,
    /// Whether the flow found its output edge full since the task last
    /// asked ([`FlowIo::take_backed`]): a step that waited for an empty
    /// buffer, or a datagram dropped for want of one.
    backed: bool,
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
        inputs: [Option<Input>; 2],
        outputs: [Option<Output>; 2],
        downs: [Option<usize>; 2],
        ups: [Option<usize>; 2],
    ) -> Self {
        Self {
            pool,
            inputs,
            outputs,
            downs,
            ups,
            held_in: Held::default(),
            held_out: Held::default(),
            taken: 0,
            sent: 0,
            replica: false,
            next_seq: 0,
            paused: false,
            last: Step::Progress,
            backed: false,
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
        self.replica = start.replica;
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

    /// The lane the next buffer is taken from (`count` taken so far) when
    /// `lanes` has one or two ends.
    fn lane<T>(lanes: &[Option<T>; 2], count: u64) -> usize {
        if lanes[1].is_some() {
            (count % 2) as usize
        } else {
            0
        }
    }

    /// The lanes of the next buffers taken: counted over those handed on
    /// and those still held.
    fn in_lane(&self) -> usize {
        Self::lane(&self.inputs, self.taken + self.held_in.len() as u64)
    }

    fn out_lane(&self) -> usize {
        Self::lane(&self.outputs, self.sent + self.held_out.len() as u64)
    }

    /// Holds one more empty output buffer of the next output lane;
    /// whether one could be had.
    fn hold_empty(&mut self) -> Result<bool, EdgeError> {
        let lane = self.out_lane();
        let Some(out) = self.outputs[lane]
            .as_mut()
            .filter(|_| !self.held_out.is_full())
        else {
            return Ok(false);
        };
        // Refused descriptors are counted by the edge; skip them.
        while let Some(t) = out.take_empty()? {
            if let Ok(b) = t {
                return Ok(self.held_out.push(b, lane));
            }
        }
        Ok(false)
    }

    /// Holds one more full buffer of the next input lane; whether one
    /// could be had.
    fn hold_full(&mut self) -> Result<bool, EdgeError> {
        let lane = self.in_lane();
        let Some(inp) = self.inputs[lane]
            .as_mut()
            .filter(|_| !self.held_in.is_full())
        else {
            return Ok(false);
        };
        while let Some(t) = inp.take_full()? {
            if let Ok(b) = t {
                return Ok(self.held_in.push(b, lane));
            }
        }
        Ok(false)
    }

    /// The oldest held empty output buffer, holding one if none is.
    fn empty(&mut self) -> Result<Option<Buf>, EdgeError> {
        if self.held_out.is_empty() {
            self.hold_empty()?;
        }
        Ok(self.held_out.front().map(|(b, _)| b))
    }

    /// The oldest held full input buffer, holding one if none is.
    fn full(&mut self) -> Result<Option<Buf>, EdgeError> {
        if self.held_in.is_empty() {
            self.hold_full()?;
        }
        Ok(self.held_in.front().map(|(b, _)| b))
    }

    /// Sends the oldest held output buffer with `len` bytes and number
    /// `seq`.
    fn send(&mut self, os: &mut impl Os, len: u32, seq: u32) -> Result<(), EdgeError> {
        let Some((b, lane)) = self.held_out.pop() else {
            return Ok(());
        };
        self.sent += 1;
        if let Some(out) = self.outputs[lane].as_mut() {
            if out.send(&b, len, seq, os.now())? {
                if let Some(d) = self.downs[lane] {
                    os.ring(d);
                }
            }
        }
        Ok(())
    }

    /// Gives the oldest held input buffer back.
    fn recycle(&mut self, os: &mut impl Os) -> Result<(), EdgeError> {
        let Some((b, lane)) = self.held_in.pop() else {
            return Ok(());
        };
        self.taken += 1;
        if let Some(inp) = self.inputs[lane].as_mut() {
            if inp.recycle(&b, b.len, os.now())? {
                if let Some(u) = self.ups[lane] {
                    os.ring(u);
                }
            }
        }
        Ok(())
    }

    /// A merging stage's input buffer that a replica gave up on (empty):
    /// consumed without the work seeing it, and counted as a drop here.
    fn skip_marker(&mut self, os: &mut impl Os, inp: &Buf) -> Result<bool, EdgeError> {
        if self.inputs[1].is_none() || inp.len != 0 {
            return Ok(false);
        }
        self.count_drop();
        self.recycle(os)?;
        Ok(true)
    }

    /// Counts one piece of data dropped at this stage, on the output edge
    /// if there is one (else the input's).
    pub fn count_drop(&self) {
        if let Some(o) = &self.outputs[0] {
            o.counters().drop_one();
        } else if let Some(i) = &self.inputs[0] {
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
                // A replica passes the sequence number on, empty, so the
                // merge after it does not wait for it.
                if let (true, Some((inp, _))) = (self.replica, self.held_in.front()) {
                    if !self.held_out.is_empty() {
                        self.send(os, 0, inp.seq)?;
                    }
                }
                self.recycle(os)?;
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
            if io.skip_marker(os, &inp)? {
                return Ok(Step::Progress);
            }
            let Some((src, dst)) = two(io.pool.bytes(), inp.range(), out.range()) else {
                return io.fail(os, Failure::Permanent);
            };
            match f(src, dst) {
                Ok(n) => {
                    let n = u32::try_from(n).unwrap_or(u32::MAX).min(out.len);
                    io.send(os, n, inp.seq)?;
                    io.recycle(os)?;
                    Ok(Step::Progress)
                }
                Err(e) => io.fail(os, e),
            }
        })
    }

    /// A transformer's step over up to [`BATCH`] buffers at once, for a
    /// stage whose device takes several together: `f(pairs, results)`
    /// turns each `pairs[i].0` into `pairs[i].1` and says in
    /// `results[i]` the output's length or how it failed. Results are
    /// applied in order: a permanent failure gives that buffer up and
    /// goes on; a transient one stops there, and that buffer and the
    /// ones after it stay held, in order, for the next turn. A stage that
    /// splits or merges lanes goes buffer by buffer ([`Self::transform`]),
    /// so its lanes keep their turns.
    pub fn transform_batch(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&mut [(&[u8], &mut [u8])], &mut [Result<usize, Failure>]),
    ) -> Step {
        if self.inputs[1].is_some() || self.outputs[1].is_some() {
            return self.transform_one_by_one(os, f);
        }
        self.step(|io| {
            // An output for each input before the input is taken.
            while io.held_in.len() < BATCH {
                if io.held_out.len() <= io.held_in.len() && !io.hold_empty()? {
                    break;
                }
                if !io.hold_full()? {
                    break;
                }
            }
            let n = io.held_in.len().min(io.held_out.len());
            if n == 0 {
                return Ok(if io.held_out.is_empty() {
                    Step::WaitOutput
                } else {
                    Step::WaitInput
                });
            }
            let mut ranges: [Range<usize>; 2 * BATCH] = Default::default();
            for i in 0..n {
                let (Some((inp, _)), Some((out, _))) = (io.held_in.get(i), io.held_out.get(i))
                else {
                    break;
                };
                ranges[2 * i] = inp.range();
                ranges[2 * i + 1] = out.range();
            }
            let mut pieces: [Option<&mut [u8]>; 2 * BATCH] = Default::default();
            carve(io.pool.bytes(), &ranges[..2 * n], &mut pieces);
            // Pairs whose buffers could both be lent go to the work;
            // the others fail for good.
            let mut results = [Ok(0usize); BATCH];
            let mut which = [0usize; BATCH];
            let mut count = 0;
            {
                let mut pairs: [(&[u8], &mut [u8]); BATCH] = Default::default();
                let lent = pieces.chunks_exact_mut(2).take(n);
                for (i, (piece, result)) in lent.zip(&mut results).enumerate() {
                    if let [Some(src), Some(dst)] = piece {
                        let src: &mut [u8] = core::mem::take(src);
                        pairs[count] = (src, core::mem::take(dst));
                        which[count] = i;
                        count += 1;
                    } else {
                        *result = Err(Failure::Permanent);
                    }
                }
                let mut done = [Ok(0usize); BATCH];
                f(&mut pairs[..count], &mut done[..count]);
                for (&i, d) in which.iter().zip(done).take(count) {
                    results[i] = d;
                }
            }
            for result in results.iter().take(n) {
                let Some((inp, _)) = io.held_in.front() else {
                    break;
                };
                let Some((out, _)) = io.held_out.front() else {
                    break;
                };
                match *result {
                    Ok(len) => {
                        let len = u32::try_from(len).unwrap_or(u32::MAX).min(out.len);
                        io.send(os, len, inp.seq)?;
                        io.recycle(os)?;
                    }
                    Err(Failure::Permanent) => {
                        io.fail(os, Failure::Permanent)?;
                        // The output buffer was not used (a replica's went
                        // on as its marker): it waits behind the others,
                        // which the later results wrote.
                        if !io.replica {
                            if let Some((b, lane)) = io.held_out.pop() {
                                io.held_out.push(b, lane);
                            }
                        }
                    }
                    // This one and those after it are tried again.
                    Err(Failure::Transient) => return io.fail(os, Failure::Transient),
                }
            }
            Ok(Step::Progress)
        })
    }

    /// [`Self::transform_batch`]'s work given one buffer at a time.
    fn transform_one_by_one(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&mut [(&[u8], &mut [u8])], &mut [Result<usize, Failure>]),
    ) -> Step {
        self.transform(os, |src, dst| {
            let mut result = [Ok(0usize)];
            f(&mut [(src, dst)], &mut result);
            result[0]
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
                    io.send(os, n, seq)?;
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

    /// A source's step over up to [`BATCH`] empty buffers at once, for a
    /// source that fills several from one read: `f(bufs, results)` fills
    /// `bufs` from the first on, says in `results[i]` what
    /// [`Self::source`]'s `f` would have (a length, `None` for nothing
    /// now, or a failure) and returns how many it got to; those after
    /// stay held for the next step. Buffers are numbered and sent in
    /// order up to the first that is not a length. A rate-limited or
    /// splitting source goes buffer by buffer.
    pub fn source_batch(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&mut [&mut [u8]], &mut [Result<Option<usize>, Failure>]) -> usize,
    ) -> Step {
        if self.bucket.is_some() || self.outputs[1].is_some() {
            return self.source(os, |dst| {
                let mut result = [Ok(None)];
                f(&mut [dst], &mut result);
                result[0]
            });
        }
        self.step(|io| {
            while io.hold_empty()? {}
            let n = io.held_out.len();
            if n == 0 {
                return Ok(Step::WaitOutput);
            }
            let mut ranges: [Range<usize>; BATCH] = Default::default();
            for (i, range) in ranges.iter_mut().enumerate().take(n) {
                if let Some((b, _)) = io.held_out.get(i) {
                    *range = b.range();
                }
            }
            let mut pieces: [Option<&mut [u8]>; BATCH] = Default::default();
            carve(io.pool.bytes(), &ranges[..n], &mut pieces);
            // Only the buffers lent, from the first on: an empty buffer a
            // hostile neighbour handed back twice ends the batch there,
            // and when it is the first it is let go (used once only).
            let lent = pieces.iter().take(n).take_while(|p| p.is_some()).count();
            if lent == 0 {
                io.held_out.pop();
                return Ok(Step::Progress);
            }
            let mut results = [Ok(None); BATCH];
            let got = {
                let mut bufs: [&mut [u8]; BATCH] = Default::default();
                for (buf, piece) in bufs.iter_mut().zip(pieces.iter_mut()).take(lent) {
                    *buf = piece.take().unwrap_or_default();
                }
                f(&mut bufs[..lent], &mut results[..lent]).min(lent)
            };
            for result in results.iter().take(got) {
                match *result {
                    Ok(Some(len)) => {
                        let Some((out, _)) = io.held_out.front() else {
                            break;
                        };
                        let seq = io.next_seq;
                        io.next_seq = seq.wrapping_add(1);
                        let len = u32::try_from(len).unwrap_or(u32::MAX).min(out.len);
                        io.send(os, len, seq)?;
                    }
                    Ok(None) => return Ok(Step::WaitOther),
                    Err(Failure::Transient) => return io.fail(os, Failure::Transient),
                    Err(Failure::Permanent) => return Ok(Step::Finished),
                }
            }
            Ok(Step::Progress)
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
            self.backed |= step == Step::WaitOutput;
        }
        filled
    }

    /// Whether the flow found its output edge full (a step waited for an
    /// empty buffer, or a datagram was dropped for want of one) since the
    /// last call. A task that is still busy then gives way to the stages
    /// downstream on its CPU (see `driver`), which are the only ones that
    /// can empty the edge.
    pub fn take_backed(&mut self) -> bool {
        core::mem::take(&mut self.backed)
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
            if io.skip_marker(os, &inp)? {
                return Ok(Step::Progress);
            }
            let Some(src) = io.pool.bytes().get(inp.range()) else {
                return io.fail(os, Failure::Permanent);
            };
            match f(src, inp.seq) {
                Ok(()) => {
                    io.recycle(os)?;
                    Ok(Step::Progress)
                }
                Err(e) => io.fail(os, e),
            }
        })
    }

    /// A sink's step over up to [`BATCH`] buffers at once, for a sink
    /// that hands several on together (one send for many): `f(bufs,
    /// results)` consumes `bufs` (bytes and sequence number each) from
    /// the first on, says in `results[i]` how each went, and returns how
    /// many it got to: those after stay held, untouched, for the next
    /// step (a sink that takes only so many bytes at once). Results are
    /// applied in order as [`Self::transform_batch`]'s are; a merging
    /// sink goes buffer by buffer ([`Self::sink`]).
    pub fn sink_batch(
        &mut self,
        os: &mut impl Os,
        f: impl FnOnce(&[(&[u8], u32)], &mut [Result<(), Failure>]) -> usize,
    ) -> Step {
        if self.inputs[1].is_some() {
            return self.sink(os, |src, seq| {
                let mut result = [Ok(())];
                f(&[(src, seq)], &mut result);
                result[0]
            });
        }
        self.step(|io| {
            while io.hold_full()? {}
            let n = io.held_in.len();
            if n == 0 {
                return Ok(Step::WaitInput);
            }
            let mut ranges: [Range<usize>; BATCH] = Default::default();
            let mut seqs = [0u32; BATCH];
            for (i, (range, seq)) in ranges.iter_mut().zip(&mut seqs).enumerate().take(n) {
                if let Some((b, _)) = io.held_in.get(i) {
                    (*range, *seq) = (b.range(), b.seq);
                }
            }
            let mut pieces: [Option<&mut [u8]>; BATCH] = Default::default();
            carve(io.pool.bytes(), &ranges[..n], &mut pieces);
            let mut results = [Ok(()); BATCH];
            let mut which = [0usize; BATCH];
            let mut count = 0;
            let reached;
            {
                let mut bufs: [(&[u8], u32); BATCH] = [(&[], 0); BATCH];
                let lent = pieces.iter_mut().zip(&mut results).zip(seqs);
                for (i, ((piece, result), seq)) in lent.enumerate().take(n) {
                    match piece.take() {
                        Some(p) => {
                            bufs[count] = (p, seq);
                            which[count] = i;
                            count += 1;
                        }
                        None => *result = Err(Failure::Permanent),
                    }
                }
                let mut done = [Ok(()); BATCH];
                let got = f(&bufs[..count], &mut done[..count]).min(count);
                for (&i, d) in which.iter().zip(done).take(got) {
                    results[i] = d;
                }
                // The first one the sink did not get to, and those after.
                reached = if got < count { which[got] } else { n };
            }
            for result in results.iter().take(reached) {
                match *result {
                    Ok(()) => io.recycle(os)?,
                    // Dropped and counted; the others go on.
                    Err(Failure::Permanent) => {
                        io.fail(os, Failure::Permanent)?;
                    }
                    // This one and those after it are tried again.
                    Err(Failure::Transient) => return io.fail(os, Failure::Transient),
                }
            }
            Ok(Step::Progress)
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
            Step::WaitInput => {
                let lane = self.in_lane();
                self.inputs[lane]
                    .as_mut()
                    .map_or(Ok(true), Input::prepare_to_wait)
            }
            Step::WaitOutput => {
                let lane = self.out_lane();
                self.outputs[lane]
                    .as_mut()
                    .map_or(Ok(true), Output::prepare_to_wait)
            }
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
