//! The flows a stage task serves, and `flowmgr`'s messages about them.

use crate::io::FlowIo;
use crate::mem::Mapping;
use crate::os::Os;
use conflux_flow_protocol::stage::{label, Grant, StageStatus, Start, MAX_FLOWS};
use conflux_flow_protocol::Span;

/// Where a stage task keeps its flows' capabilities and mappings.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Flow `f`'s grant `g` lives in capability slot
    /// `cap_base + GRANTS * f + g`; a second-lane grant (`g` 5 to 8) of
    /// flow `f < lanes` in `cap_base + GRANTS * flows + LANE_GRANTS * f +
    /// g - 5`.
    pub cap_base: usize,
    /// Flow `f`'s pool is mapped at `window_base + f * FLOW_STRIDE`, its
    /// input edges 32 MiB and 40 MiB above, its output edges 48 MiB and
    /// 56 MiB above; page aligned, in the region window.
    pub window_base: u64,
    /// How many flows this task serves at once (at most `MAX_FLOWS`).
    pub flows: u32,
    /// Flows `0..lanes` may have second lanes (split or merge); the
    /// others are refused those grants. Capability slots are too few for
    /// every flow to have them, and the lowest numbers are taken first.
    pub lanes: u32,
}

impl Config {
    /// The configuration for `slots` capability slots from `cap_base` on:
    /// as many flows as fit (at most `MAX_FLOWS`), then second lanes for
    /// as many of them as the rest allows.
    pub fn fitting(cap_base: usize, window_base: u64, slots: usize) -> Self {
        let flows = (slots / GRANTS).min(MAX_FLOWS as usize);
        let lanes = ((slots - flows * GRANTS) / LANE_GRANTS).min(flows);
        Self {
            cap_base,
            window_base,
            flows: flows as u32,
            lanes: lanes as u32,
        }
    }
}

/// Address space each flow's mappings take.
pub const FLOW_STRIDE: u64 = 64 << 20;
/// The largest pool a stage maps (the rest of a flow's stride is edges).
pub const MAX_POOL: usize = 32 << 20;
/// Capability slots each flow takes: the pool, its edges and its
/// neighbours' doorbells.
pub const GRANTS: usize = 5;
/// Capability slots of a flow's second lanes (`Grant::Input2` to
/// `Grant::WakeUpstream2`).
pub const LANE_GRANTS: usize = 4;
/// The largest edge region a stage maps.
const MAX_EDGE: usize = 8 << 20;

/// What a stage task does with a flow's buffers; the task's own state for
/// the flow is `Flow` (a device session, a block cursor, a port).
pub trait Work {
    type Flow;
    /// Sets flow `flow` up as `start` asks. An error is answered to
    /// `flowmgr` and the flow stays unstarted.
    fn start(
        &mut self,
        flow: u32,
        start: &Start,
        io: &mut FlowIo,
    ) -> Result<Self::Flow, StageStatus>;
    /// The flow is about to stop; its pool and edges are still mapped, so
    /// a sink can pass on what it still holds or what is queued for it (a
    /// network sink sends the rest of its stream). Nothing by default.
    fn stopping(&mut self, _flow: u32, _state: &mut Self::Flow, _io: &mut FlowIo) {}
    /// The flow is stopped: undo what `start` did. Its mappings go after.
    fn stop(&mut self, flow: u32, state: Self::Flow);
    /// What INFO answers: the kinds this task runs (`1 << kind`) and
    /// `conflux_flow_protocol::stage::info` flags.
    fn info(&self) -> [u64; 2];
    /// What STATS adds for a running flow (up to 2 words: a check sink's
    /// tally, a source's position). Nothing by default.
    fn figures(&self, _state: &Self::Flow) -> [u64; 2] {
        [0, 0]
    }
}

struct Granted {
    pool: Option<Mapping>,
    /// Input, output, second input, second output (see [`edge_of`]).
    edges: [Option<Mapping>; 4],
    /// Doorbells downstream, upstream, and on the second lanes (see
    /// [`bell_of`]).
    bells: [bool; 4],
}

/// Where an edge grant is kept in [`Granted::edges`].
fn edge_of(g: Grant) -> Option<usize> {
    match g {
        Grant::Input => Some(0),
        Grant::Output => Some(1),
        Grant::Input2 => Some(2),
        Grant::Output2 => Some(3),
        _ => None,
    }
}

/// Where a doorbell grant is noted in [`Granted::bells`].
fn bell_of(g: Grant) -> Option<usize> {
    match g {
        Grant::WakeDownstream => Some(0),
        Grant::WakeUpstream => Some(1),
        Grant::WakeDownstream2 => Some(2),
        Grant::WakeUpstream2 => Some(3),
        _ => None,
    }
}

const EDGE_GRANTS: [Grant; 4] = [Grant::Input, Grant::Output, Grant::Input2, Grant::Output2];
const BELL_GRANTS: [Grant; 4] = [
    Grant::WakeDownstream,
    Grant::WakeUpstream,
    Grant::WakeDownstream2,
    Grant::WakeUpstream2,
];

// At most `MAX_FLOWS` of these live in a task, so keeping the running
// variant inline costs a few hundred bytes and no allocation.
#[allow(clippy::large_enum_variant)]
enum Phase<F> {
    Attaching(Granted),
    Running(FlowIo, F, Granted),
}

/// A stage task's flows.
pub struct Stages<W: Work> {
    config: Config,
    flows: [Option<Phase<W::Flow>>; MAX_FLOWS as usize],
}

/// A stage's answer to `flowmgr`: the status is the reply's label, and
/// `words[..len]` say more (the field refused, a flow's figures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: StageStatus,
    pub words: [u64; 5],
    pub len: usize,
}

fn answer(status: StageStatus, words: &[u64]) -> Answer {
    let mut w = [0; 5];
    let len = words.len().min(5);
    w[..len].copy_from_slice(&words[..len]);
    Answer {
        status,
        words: w,
        len,
    }
}

impl<W: Work> Stages<W> {
    pub fn new(config: Config) -> Self {
        Self {
            config: Config {
                flows: config.flows.min(MAX_FLOWS),
                lanes: config.lanes.min(config.flows).min(MAX_FLOWS),
                ..config
            },
            flows: Default::default(),
        }
    }

    fn slot(&self, flow: u32, g: Grant) -> usize {
        let (flow, g) = (flow as usize, g as usize);
        if g < GRANTS {
            self.config.cap_base + GRANTS * flow + g
        } else {
            let lanes = self.config.cap_base + GRANTS * self.config.flows as usize;
            lanes + LANE_GRANTS * flow + (g - GRANTS)
        }
    }

    fn vaddr(&self, flow: u32, g: Grant) -> u64 {
        let base = self.config.window_base + u64::from(flow) * FLOW_STRIDE;
        match g {
            Grant::Input => base + (32 << 20),
            Grant::Input2 => base + (40 << 20),
            Grant::Output => base + (48 << 20),
            Grant::Output2 => base + (56 << 20),
            _ => base,
        }
    }

    /// Answers one message from `flowmgr`: its `label`, its `words`
    /// (registers and IPC buffer, see [`crate::System::words`]) and the
    /// receive slot a capability arrived in, if one did (`cap`), which is
    /// always left empty: the capability is filed or deleted.
    pub fn handle(
        &mut self,
        work: &mut W,
        os: &mut impl Os,
        label: u32,
        words: &[u64],
        cap: Option<usize>,
    ) -> Answer {
        let flow = words.first().copied().unwrap_or(u64::MAX);
        let reply = match (flow < u64::from(self.config.flows), label) {
            (_, label::INFO) => answer(StageStatus::Ok, &work.info()),
            (_, l)
                if !matches!(
                    l,
                    label::ATTACH
                        | label::START
                        | label::STOP
                        | label::STATS
                        | label::PAUSE
                        | label::RESUME
                ) =>
            {
                answer(StageStatus::BadLabel, &[])
            }
            (false, _) => answer(StageStatus::UnknownFlow, &[flow]),
            (true, label::ATTACH) => self.attach(os, flow as u32, words, cap),
            (true, label::START) => self.start(work, os, words),
            (true, label::STOP) => self.stop(work, os, flow as u32),
            (true, label::STATS) => self.stats(work, flow as u32),
            (true, l) => self.pause(flow as u32, l == label::PAUSE),
        };
        if let Some(c) = cap {
            // Filed by `attach` (moved away) or unwanted: either way the
            // receive slot must be empty for the next message.
            os.release(c, None);
        }
        reply
    }

    fn attach(&mut self, os: &mut impl Os, flow: u32, words: &[u64], cap: Option<usize>) -> Answer {
        let grant_word = words.get(1).copied().unwrap_or(u64::MAX);
        let (Some(grant), Some(from)) = (Grant::from_word(grant_word), cap) else {
            return answer(StageStatus::BadCapability, &[grant_word]);
        };
        if grant as usize >= GRANTS && flow >= self.config.lanes {
            return answer(StageStatus::Unsupported, &[grant as u64]);
        }
        let to = self.slot(flow, grant);
        let vaddr = self.vaddr(flow, grant);
        let phase = self.flows[flow as usize].get_or_insert_with(|| {
            Phase::Attaching(Granted {
                pool: None,
                edges: Default::default(),
                bells: [false; 4],
            })
        });
        let Phase::Attaching(g) = phase else {
            return answer(StageStatus::Busy, &[]);
        };
        let ok = if let Some(b) = bell_of(grant) {
            g.bells[b] = os.take_cap(from, to);
            g.bells[b]
        } else {
            let (place, max) = match edge_of(grant) {
                Some(e) => (&mut g.edges[e], MAX_EDGE),
                None => (&mut g.pool, MAX_POOL),
            };
            if let Some(old) = place.take() {
                os.release(to, Some(old));
            }
            *place = os.take_region(from, to, vaddr);
            if place.as_ref().is_some_and(|m| m.len() > max) {
                let m = place.take();
                os.release(to, m);
            }
            place.is_some()
        };
        if ok {
            answer(StageStatus::Ok, &[])
        } else {
            answer(StageStatus::BadCapability, &[grant as u64])
        }
    }

    fn start(&mut self, work: &mut W, os: &mut impl Os, words: &[u64]) -> Answer {
        let start = match Start::decode(words) {
            Ok(s) => s,
            Err(e) => return answer(StageStatus::BadSpec, &[spec_detail(&e)]),
        };
        let flow = start.flow;
        let mut g = match self.flows[flow as usize].take() {
            Some(Phase::Attaching(g)) => g,
            running @ Some(Phase::Running(..)) => {
                self.flows[flow as usize] = running;
                return answer(StageStatus::Busy, &[]);
            }
            None => return answer(StageStatus::NotAttached, &[]),
        };
        let spans = [start.input, start.output, start.input2, start.output2];
        let status = (|| {
            let pool = g.pool.as_ref().ok_or(StageStatus::NotAttached)?;
            let pool_len = pool.len() as u64;
            if !spans_ok(&spans, pool_len) {
                return Err(StageStatus::BadEdge);
            }
            let mut inputs = [None, None];
            let mut outputs = [None, None];
            for (e, (span, m)) in spans.iter().zip(&g.edges).enumerate() {
                let (Some(span), lane) = (span, e / 2) else {
                    continue;
                };
                let m = m.as_ref().ok_or(StageStatus::NotAttached)?;
                let bad = |_| StageStatus::BadEdge;
                if e % 2 == 0 {
                    inputs[lane] = Some(m.input(pool_len, *span).map_err(bad)?);
                } else {
                    outputs[lane] = Some(m.output(pool_len, *span).map_err(bad)?);
                }
            }
            Ok((inputs, outputs))
        })();
        let (inputs, outputs) = match status {
            Ok(io) => io,
            Err(s) => {
                self.flows[flow as usize] = Some(Phase::Attaching(g));
                return answer(s, &[]);
            }
        };
        let Some(pool) = g.pool.take() else {
            self.flows[flow as usize] = Some(Phase::Attaching(g));
            return answer(StageStatus::NotAttached, &[]);
        };
        let bell = |b: usize| g.bells[b].then(|| self.slot(flow, BELL_GRANTS[b]));
        let mut io = FlowIo::new(
            pool,
            inputs,
            outputs,
            [bell(0), bell(2)],
            [bell(1), bell(3)],
        );
        io.schedule(&start, os.now());
        match work.start(flow, &start, &mut io) {
            Ok(state) => {
                self.flows[flow as usize] = Some(Phase::Running(io, state, g));
                answer(StageStatus::Ok, &[])
            }
            Err(s) => {
                g.pool = Some(io.pool);
                self.flows[flow as usize] = Some(Phase::Attaching(g));
                answer(s, &[])
            }
        }
    }

    fn stop(&mut self, work: &mut W, os: &mut impl Os, flow: u32) -> Answer {
        let Some(phase) = self.flows[flow as usize].take() else {
            return answer(StageStatus::UnknownFlow, &[u64::from(flow)]);
        };
        let (mut g, figures) = match phase {
            Phase::Attaching(g) => (g, [0, 0]),
            Phase::Running(mut io, mut state, mut g) => {
                work.stopping(flow, &mut state, &mut io);
                work.stop(flow, state);
                let figures = [io.retries, io.failures];
                // The edge ends (in `io`, consumed here) are gone before
                // their mappings are released below.
                g.pool = Some(io.pool);
                (g, figures)
            }
        };
        if let Some(m) = g.pool.take() {
            os.release(self.slot(flow, Grant::Pool), Some(m));
        }
        for (grant, m) in EDGE_GRANTS.into_iter().zip(&mut g.edges) {
            if let Some(m) = m.take() {
                os.release(self.slot(flow, grant), Some(m));
            }
        }
        for (grant, had) in BELL_GRANTS.into_iter().zip(g.bells) {
            if had {
                os.release(self.slot(flow, grant), None);
            }
        }
        answer(StageStatus::Ok, &figures)
    }

    /// Words: state (0 attaching, 1 running, 2 paused, +2 when an edge
    /// broke), retries, then the packed failures and the task's figures.
    fn stats(&self, work: &W, flow: u32) -> Answer {
        match &self.flows[flow as usize] {
            None => answer(StageStatus::UnknownFlow, &[u64::from(flow)]),
            Some(Phase::Attaching(_)) => answer(StageStatus::Ok, &[0, 0, 0]),
            Some(Phase::Running(io, state, _)) => {
                let [a, b] = work.figures(state);
                let st = 1 + u64::from(io.paused) + 2 * u64::from(io.broken.is_some());
                answer(StageStatus::Ok, &[st, io.retries, io.failures, a, b])
            }
        }
    }

    fn pause(&mut self, flow: u32, paused: bool) -> Answer {
        match &mut self.flows[flow as usize] {
            Some(Phase::Running(io, _, _)) => {
                io.paused = paused;
                answer(StageStatus::Ok, &[])
            }
            _ => answer(StageStatus::UnknownFlow, &[u64::from(flow)]),
        }
    }

    /// One turn: runs `step` for every running flow, most urgent first,
    /// each flow up to [`turn_steps`] times its priority allows while it
    /// makes progress; returns whether any did (the task loops while they
    /// do).
    pub fn run(
        &mut self,
        mut step: impl FnMut(u32, &mut FlowIo, &mut W::Flow) -> crate::Step,
    ) -> bool {
        let mut progress = false;
        for priority in (0..=7u8).rev() {
            for (f, phase) in self.flows.iter_mut().enumerate() {
                let Some(Phase::Running(io, state, _)) = phase else {
                    continue;
                };
                if io.priority.min(7) != priority {
                    continue;
                }
                for _ in 0..turn_steps(priority) {
                    if step(f as u32, io, state) != crate::Step::Progress {
                        break;
                    }
                    progress = true;
                }
            }
        }
        progress
    }

    /// The capability slot of flow `flow`'s grant `g`.
    #[cfg(test)]
    pub(crate) fn slot_of(&self, flow: u32, g: Grant) -> usize {
        self.slot(flow, g)
    }

    /// Buffers flow `flow` gave up on so far (0 if it is not running).
    #[cfg(test)]
    pub(crate) fn stats_failures(&self, flow: u32) -> u64 {
        match self.flows.get(flow as usize) {
            Some(Some(Phase::Running(io, _, _))) => io.failures,
            _ => 0,
        }
    }

    /// The running flow `flow`, for work that does not come from an edge
    /// (a frame for a UDP source).
    pub fn get(&mut self, flow: u32) -> Option<(&mut FlowIo, &mut W::Flow)> {
        match self.flows.get_mut(flow as usize)? {
            Some(Phase::Running(io, state, _)) => Some((io, state)),
            _ => None,
        }
    }

    /// Whether a running flow found its output edge full since the last
    /// call ([`FlowIo::take_backed`]; every flow's mark is cleared).
    pub fn backed_up(&mut self) -> bool {
        let mut backed = false;
        for phase in self.flows.iter_mut().flatten() {
            if let Phase::Running(io, _, _) = phase {
                backed |= io.take_backed();
            }
        }
        backed
    }

    /// Whether the task may sleep: every running flow is waiting, and the
    /// neighbours it waits on were asked to ring its doorbell.
    pub fn idle(&mut self) -> bool {
        let mut idle = true;
        for phase in self.flows.iter_mut().flatten() {
            if let Phase::Running(io, _, _) = phase {
                idle &= io.ready_to_sleep();
            }
        }
        idle
    }
}

/// Steps a flow of `priority` (0..=7) may take in one turn of its task:
/// `priority + 1`. Weighted turns rather than strict order: every running
/// flow gets at least one step a turn, so none starves, and a low-priority
/// flow waits at most one turn (8 steps of each other flow) for its next
/// step; when flows contend for the task (and its device), each moves
/// buffers in proportion to `priority + 1`, so a 7 gets 8 times the share
/// of a 0. Linear, not exponential, weights keep one turn short.
pub fn turn_steps(priority: u8) -> u32 {
    u32::from(priority.min(7)) + 1
}

/// Whether `start` brings the edges its spec's role needs: a source an
/// output only, a sink an input only, a transformer both. A task calls it
/// in [`Work::start`] before taking a flow it could never move.
pub fn edges_match(start: &Start) -> bool {
    use conflux_flow_protocol::stage::Roles;
    let roles = start.spec.role();
    match (start.input.is_some(), start.output.is_some()) {
        (false, true) => roles.contains(Roles::SOURCE),
        (true, false) => roles.contains(Roles::SINK),
        (true, true) => roles.contains(Roles::TRANSFORMER),
        (false, false) => false,
    }
}

/// Spans inside the pool, and apart from each other (a transformer reads
/// one and writes another).
fn spans_ok(spans: &[Option<Span>], pool: u64) -> bool {
    let apart =
        |a: &Span, b: &Span| a.bytes().end <= b.bytes().start || b.bytes().end <= a.bytes().start;
    let all = || spans.iter().flatten();
    all().all(|s| s.fits(pool))
        && all()
            .enumerate()
            .all(|(i, a)| all().skip(i + 1).all(|b| apart(a, b)))
}

/// One word that says which field of a start message was refused.
fn spec_detail(e: &conflux_flow_protocol::stage::SpecError) -> u64 {
    use conflux_flow_protocol::stage::SpecError::*;
    match *e {
        Short { at } => at as u64,
        UnknownKind(v) | BadPort(v) | BadMode(v) | BadDirection(v) | BadEngine(v)
        | BadKeyLength(v) | BadFlow(v) | BadPath(v) | BadPeer(v) | BadPriority(v) | NoClock(v)
        | BadFlags(v) => v,
        BadBlocks { first, .. } => first,
        BadSpan | LoneLane => 0,
    }
}
