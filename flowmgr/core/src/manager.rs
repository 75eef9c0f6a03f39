//! The API's operations: create, stats, pause, resume, destroy, over the
//! registry, the slots, the layout, the state machine and the ladder.
//!
//! **Wiring** a flow in slot `s`: format every edge with its span; then,
//! for each stage, `ATTACH` (one capability per call) the pool, its input
//! edge, its output edge, its downstream neighbour's doorbell and its
//! upstream neighbour's; then `START` the stages from the sink back to the
//! source, so every consumer runs before its producer does. Unwiring:
//! `STOP` every stage, then revoke everything derived from the slot's
//! pool and edges, whether the stages obeyed or not.
//!
//! **Watching**: a flow's stages are checked when the flow is asked about
//! (`STATS`, and after `PAUSE`/`RESUME`) and at each tick of `flowmgr`'s
//! own timer ([`Manager::watch`], while [`Manager::watching`]), so a
//! failure is handled even while the application only waits on its
//! notification. A stage that does not answer, answers as a new instance,
//! or reports a broken edge puts the flow on the ladder
//! ([`crate::ladder`]). Recovery rewires the whole flow on freshly
//! formatted edges (the stages' held buffers and counters start over), so
//! a source starts again from its beginning.

use crate::ladder::{self, Failure, History, Step};
use crate::layout::{self, Layout};
use crate::refusal::{bad, Refusal};
use crate::registry::{Class, Placement, Registry};
use crate::slots::{FlowId, Slots};
use crate::state::{Event, Life};
use crate::sys::{Cap, Dead, Reply, Sys};
use conflux_flow_protocol::api::{
    EdgeFigures, FlowRequest, FlowState, FlowStats, FlowStatus, MAX_EDGES, MAX_STAGES,
};
use conflux_flow_protocol::edge::EdgeStats;
use conflux_flow_protocol::stage::{label, Grant, StageSpec, StageStatus, Start, START_WORDS};

/// Ladder steps one check may take before the flow is terminated (each
/// step restarts a stage or moves it, so this bounds a flow whose stages
/// fail as fast as they are wired).
const MAX_STEPS: usize = 16;

/// One stage of a flow, where it runs.
#[derive(Clone, Copy, Debug)]
struct Stage {
    spec: StageSpec,
    class: Class,
    at: Placement,
    history: History,
    /// Retries the current instance reported so far.
    retries: u64,
}

/// A flow in its slot.
struct Flow {
    owner: u64,
    req: FlowRequest,
    stages: [Option<Stage>; MAX_STAGES],
    layout: Layout,
    life: Life,
    ladder: [u64; 4],
    /// The sink's last reported figures.
    sink: [u64; 2],
    /// The source's last reported figures (a `file` source's say, once it
    /// finished, how many buffers it made in all).
    source: [u64; 2],
    /// Whether stages hold numbers and capabilities for it.
    wired: bool,
}

/// How a stage call went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fail {
    Dead,
    Refused(u32),
}

/// Stage `index` of a flow failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StageFailed {
    index: usize,
    fail: Fail,
}

impl StageFailed {
    fn refusal(self) -> Refusal {
        Refusal::stage_refused(
            self.index,
            match self.fail {
                Fail::Dead => None,
                Fail::Refused(l) => Some(l),
            },
        )
    }
}

/// Calls a stage; a `Dead` call is tried once more, since the first call
/// after the task restarted fails only to tell the caller so.
fn ask(
    sys: &mut impl Sys,
    task: usize,
    l: u32,
    words: &[u64],
    cap: Option<Cap>,
) -> Result<Reply, Fail> {
    let r = sys
        .call(task, l, words, cap)
        .or_else(|Dead| sys.call(task, l, words, cap))
        .map_err(|Dead| Fail::Dead)?;
    if r.label == StageStatus::Ok as u32 {
        Ok(r)
    } else {
        Err(Fail::Refused(r.label))
    }
}

impl Flow {
    fn stages(&self) -> impl Iterator<Item = (usize, &Stage)> {
        self.stages
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, s.as_ref()?)))
    }

    /// Whether its stages are wired and meant to move data: a tick checks
    /// it (a paused flow waits for its `RESUME`, a finished one for
    /// nothing).
    fn watched(&self) -> bool {
        self.wired
            && matches!(
                self.life.state(),
                FlowState::Running | FlowState::Recovering
            )
    }

    fn last(&self) -> usize {
        self.req.stages().len() - 1
    }

    fn task(&self, i: usize) -> Option<usize> {
        Some(self.stages.get(i)?.as_ref()?.at.task)
    }

    fn attach(&self, sys: &mut impl Sys, slot: usize, i: usize) -> Result<(), Fail> {
        let Some(st) = self.stages[i] else {
            return Ok(());
        };
        let last = self.last();
        let grants = [
            (Grant::Pool, Some(Cap::Pool { slot })),
            (
                Grant::Input,
                (i > 0).then(|| Cap::Edge { slot, edge: i - 1 }),
            ),
            (
                Grant::Output,
                (i < last).then_some(Cap::Edge { slot, edge: i }),
            ),
            (
                Grant::WakeDownstream,
                self.task(i + 1)
                    .filter(|_| i < last)
                    .map(|task| Cap::Bell { task }),
            ),
            (
                Grant::WakeUpstream,
                i.checked_sub(1)
                    .and_then(|u| self.task(u))
                    .map(|task| Cap::Bell { task }),
            ),
        ];
        for (grant, cap) in grants {
            if let Some(cap) = cap {
                let words = [u64::from(st.at.number), grant as u64];
                ask(sys, st.at.task, label::ATTACH, &words, Some(cap))?;
            }
        }
        Ok(())
    }

    fn start(&self, sys: &mut impl Sys, i: usize) -> Result<(), Fail> {
        let Some(st) = self.stages[i] else {
            return Ok(());
        };
        let spans = &self.layout.spans;
        let start = Start {
            flow: st.at.number,
            spec: st.spec,
            input: (i > 0).then(|| spans[i - 1]),
            output: (i < self.last()).then(|| spans[i]),
        };
        let mut words = [0; START_WORDS];
        let n = start.encode(&mut words).unwrap_or(0);
        ask(sys, st.at.task, label::START, &words[..n], None)?;
        if self.life.paused() {
            ask(
                sys,
                st.at.task,
                label::PAUSE,
                &[u64::from(st.at.number)],
                None,
            )?;
        }
        Ok(())
    }

    /// Formats the edges, attaches every stage, starts them sink first.
    /// `Err(None)` if an edge could not be formatted.
    fn wire(&mut self, sys: &mut impl Sys, slot: usize) -> Result<(), Option<StageFailed>> {
        for e in 0..self.layout.edges {
            if !sys.format(slot, e, self.layout.spans[e]) {
                return Err(None);
            }
        }
        self.wired = true;
        for i in 0..=self.last() {
            self.attach(sys, slot, i)
                .map_err(|fail| Some(StageFailed { index: i, fail }))?;
        }
        for i in (0..=self.last()).rev() {
            self.start(sys, i)
                .map_err(|fail| Some(StageFailed { index: i, fail }))?;
        }
        for s in self.stages.iter_mut().flatten() {
            s.retries = 0;
        }
        // A new instance counts from nothing.
        self.source = [0; 2];
        Ok(())
    }

    /// Stops every stage and revokes what they were given; numbers stay
    /// taken (the stages keep their places for a rewire).
    fn stop(&self, sys: &mut impl Sys, slot: usize) {
        for (_, st) in self.stages() {
            let _ = ask(
                sys,
                st.at.task,
                label::STOP,
                &[u64::from(st.at.number)],
                None,
            );
        }
        sys.revoke(slot);
    }

    /// Stops the flow and gives back its stages' numbers.
    fn unwire(&mut self, sys: &mut impl Sys, reg: &mut Registry, slot: usize) {
        if !self.wired {
            return;
        }
        self.stop(sys, slot);
        for (_, st) in self.stages() {
            reg.release(st.at);
        }
        self.wired = false;
    }

    /// Asks every stage how it is (counting the retries they report);
    /// the first that failed, and how. A stage's STATS state word is 1
    /// running or 2 paused, plus 2 once one of its edges broke.
    fn poll(&mut self, sys: &mut impl Sys) -> Option<(usize, Failure)> {
        for i in 0..=self.last() {
            let Some(st) = self.stages[i].as_mut() else {
                continue;
            };
            let words = [u64::from(st.at.number)];
            let failure = match ask(sys, st.at.task, label::STATS, &words, None) {
                // A broken edge is mended only by formatting it again.
                Ok(r) if r.word(0) >= 3 => Failure::Restarted,
                Ok(r) => {
                    let now = r.word(1);
                    self.ladder[ladder::RETRY] += now.saturating_sub(st.retries);
                    st.retries = now;
                    if i == self.last() {
                        self.sink = [r.word(3), r.word(4)];
                    }
                    if i == 0 {
                        self.source = [r.word(3), r.word(4)];
                    }
                    continue;
                }
                Err(Fail::Refused(l)) if l == StageStatus::UnknownFlow as u32 => Failure::Restarted,
                Err(Fail::Refused(_)) => Failure::Refused,
                Err(Fail::Dead) => Failure::Dead,
            };
            return Some((i, failure));
        }
        None
    }
}

/// `flowmgr`'s state: the stage tasks and the flow slots.
pub struct Manager {
    reg: Registry,
    slots: Slots<Flow>,
    pool_len: u64,
}

/// How many buffers the flow's source makes in all, once that is known:
/// from the request for `pattern` and `blocks`; for a `file` source only
/// when it has read its whole range, from its STATS figures (`source`:
/// buffers made, then 1 once finished).
fn source_total(req: &FlowRequest, source: [u64; 2]) -> Option<u64> {
    match req.stages().first()? {
        StageSpec::File { .. } => (source[1] == 1).then_some(source[0]),
        StageSpec::Pattern { count, .. } => Some(*count),
        StageSpec::Blocks { count, .. } => {
            let per = u64::from(req.buffer / 512);
            (per > 0).then(|| count.div_ceil(per))
        }
        _ => None,
    }
}

/// Whether every buffer the source will make has been made and taken
/// all the way to the sink (edges read source first: a stage sends
/// downstream before it recycles upstream, so a drained edge read first
/// means its downstream stage had already sent on everything).
fn drained(total: Option<u64>, edges: &[EdgeStats]) -> bool {
    let Some(total) = total else { return false };
    let made = edges
        .first()
        .is_some_and(|e| e.upstream[0].saturating_add(e.upstream[2]) >= total);
    made && edges.iter().all(|e| e.downstream[0] >= e.upstream[0])
}

impl Manager {
    /// `tasks` stage tasks (in the manifest's order), `slots` flow slots
    /// with pools of `pool_len` bytes.
    pub fn new(tasks: usize, slots: usize, pool_len: u64) -> Self {
        Self {
            reg: Registry::new(tasks),
            slots: Slots::new(slots),
            pool_len,
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.reg
    }

    /// Asks every stage task not yet known what it runs (at boot, and
    /// again for those that did not answer, at each create).
    pub fn learn(&mut self, sys: &mut impl Sys) {
        let mut unknown = [false; crate::registry::MAX_TASKS];
        for t in self.reg.unknown() {
            unknown[t] = true;
        }
        for (t, _) in unknown.iter().enumerate().filter(|(_, u)| **u) {
            if let Ok(r) = ask(sys, t, label::INFO, &[], None) {
                self.reg.learn(t, [r.word(0), r.word(1)]);
            }
        }
    }

    fn flow(&mut self, id: u64, owner: u64) -> Result<(FlowId, &mut Flow), Refusal> {
        let id = FlowId::from_word(id);
        let flow = self
            .slots
            .get(id)
            .ok_or(Refusal::new(FlowStatus::UnknownFlow))?;
        if flow.owner != owner {
            return Err(Refusal::new(FlowStatus::NotYours));
        }
        Ok((id, flow))
    }

    /// CREATE: the flow in `words` for the client `owner`; its id.
    pub fn create(
        &mut self,
        sys: &mut impl Sys,
        words: &[u64],
        owner: u64,
    ) -> Result<FlowId, Refusal> {
        let req = FlowRequest::decode(words)?;
        self.learn(sys);
        let slot = self.slots.free().ok_or(Refusal::new(FlowStatus::NoSlot))?;
        let layout = layout::cut(self.pool_len, &req).map_err(|t| Refusal {
            stage: t.edge as u64,
            ..Refusal::bad(bad::POOL_TOO_SMALL)
        })?;
        let mut flow = Flow {
            owner,
            req,
            stages: [None; MAX_STAGES],
            layout,
            life: Life::default(),
            ladder: [0; 4],
            sink: [0; 2],
            source: [0; 2],
            wired: false,
        };
        for (i, spec) in req.stages().iter().enumerate() {
            let class = Class::of(spec);
            let placed = self
                .reg
                .choose(spec, class, 0)
                .and_then(|t| self.reg.take(t));
            let Some(at) = placed else {
                for (_, st) in flow.stages() {
                    self.reg.release(st.at);
                }
                return Err(Refusal::no_stage(i));
            };
            flow.stages[i] = Some(Stage {
                spec: *spec,
                class,
                at,
                history: History::default(),
                retries: 0,
            });
        }
        if let Err(e) = flow.wire(sys, slot) {
            flow.wired = true;
            flow.unwire(sys, &mut self.reg, slot);
            return Err(e.map_or(Refusal::new(FlowStatus::NoSlot), StageFailed::refusal));
        }
        self.slots
            .fill(slot, flow)
            .ok_or(Refusal::new(FlowStatus::NoSlot))
    }

    /// Checks `flow`'s stages and climbs the ladder for one that failed,
    /// rewiring the flow after each step, until it runs or is terminated.
    fn check(reg: &mut Registry, sys: &mut impl Sys, slot: usize, flow: &mut Flow) {
        if !flow.wired {
            return;
        }
        let mut failed = flow.poll(sys);
        if failed.is_none() {
            if flow.life.apply(Event::Recovered) == Ok(true) {
                sys.notify(slot);
            }
            return;
        }
        for _ in 0..MAX_STEPS {
            let Some((i, failure)) = failed else { return };
            let _ = flow.life.apply(Event::Fault);
            let Some(mut st) = flow.stages[i] else { break };
            let step = ladder::decide(reg, &st.spec, st.class, st.at, &mut st.history, failure);
            flow.stages[i] = Some(st);
            let Some(counter) = step.counter() else { break };
            // Stopped where they ran (the failed stage's old task too,
            // in case it still runs), then moved.
            flow.stop(sys, slot);
            if let Step::Redirect(p) | Step::Fallback(p) = step {
                st.at = p;
                flow.stages[i] = Some(st);
            }
            flow.ladder[counter] += 1;
            sys.notify(slot);
            failed = match flow.wire(sys, slot) {
                Ok(()) => None,
                Err(None) => break,
                Err(Some(f)) => Some((
                    f.index,
                    match f.fail {
                        Fail::Dead => Failure::Dead,
                        Fail::Refused(_) => Failure::Refused,
                    },
                )),
            };
        }
        Self::terminate(reg, sys, slot, flow);
    }

    fn terminate(reg: &mut Registry, sys: &mut impl Sys, slot: usize, flow: &mut Flow) {
        flow.unwire(sys, reg, slot);
        let _ = flow.life.apply(Event::Terminate);
        sys.notify(slot);
    }

    /// Checks `flow`'s stages (climbing the ladder if one failed), reads
    /// its edges and marks it `Done` once its source's records all went
    /// through; the edges as read.
    fn look(
        reg: &mut Registry,
        sys: &mut impl Sys,
        slot: usize,
        flow: &mut Flow,
    ) -> [EdgeStats; MAX_EDGES] {
        Self::check(reg, sys, slot, flow);
        let mut raw = [EdgeStats::default(); MAX_EDGES];
        let edges = flow.layout.edges;
        for (e, r) in raw.iter_mut().enumerate().take(edges) {
            *r = sys.observe(slot, e).unwrap_or_default();
        }
        if flow.wired
            && drained(source_total(&flow.req, flow.source), &raw[..edges])
            && flow.life.apply(Event::Finished) == Ok(true)
        {
            sys.notify(slot);
        }
        raw
    }

    /// Whether a flow's stages move data on their own (running or being
    /// recovered), so a timer tick has something to [`watch`](Self::watch).
    pub fn watching(&mut self) -> bool {
        self.slots.iter_mut().any(|(_, f)| f.watched())
    }

    /// A timer tick: every running or recovering flow is looked at as
    /// `STATS` would (a failed stage climbs the ladder, a finished flow
    /// becomes `Done`, the application is notified of each), without any
    /// application asking.
    pub fn watch(&mut self, sys: &mut impl Sys) {
        let reg = &mut self.reg;
        for (id, flow) in self.slots.iter_mut() {
            if flow.watched() {
                Self::look(reg, sys, id.slot(), flow);
            }
        }
    }

    /// STATS: the flow's figures, after checking its stages.
    pub fn stats(&mut self, sys: &mut impl Sys, id: u64, owner: u64) -> Result<FlowStats, Refusal> {
        let (fid, _) = self.flow(id, owner)?;
        let slot = fid.slot();
        let reg = &mut self.reg;
        let flow = self
            .slots
            .get(fid)
            .ok_or(Refusal::new(FlowStatus::UnknownFlow))?;
        let raw = Self::look(reg, sys, slot, flow);
        let edges = flow.layout.edges;
        let mut figures = [EdgeFigures::default(); MAX_EDGES];
        for (f, r) in figures.iter_mut().zip(&raw).take(edges) {
            *f = EdgeFigures {
                queued: u64::from(r.queued),
                buffers: r.upstream[0],
                bytes: r.upstream[1],
                drops: r.upstream[2].saturating_add(r.downstream[2]),
                first: r.upstream[4],
                last: r.downstream[5],
            };
        }
        Ok(FlowStats {
            state: flow.life.state(),
            ladder: flow.ladder,
            sink: flow.sink,
            edges: figures,
            edge_count: edges,
        })
    }

    /// PAUSE (`pause`) or RESUME: every stage is told, source first when
    /// pausing (no new data), sink first when resuming.
    pub fn pause(
        &mut self,
        sys: &mut impl Sys,
        id: u64,
        owner: u64,
        pause: bool,
    ) -> Result<(), Refusal> {
        let (fid, flow) = self.flow(id, owner)?;
        let event = if pause { Event::Pause } else { Event::Resume };
        flow.life
            .apply(event)
            .map_err(|_| Refusal::bad(bad::FINISHED))?;
        let l = if pause { label::PAUSE } else { label::RESUME };
        if flow.wired {
            let mut order = [0usize; MAX_STAGES];
            let n = flow.last() + 1;
            for (k, o) in order.iter_mut().enumerate().take(n) {
                *o = if pause { k } else { n - 1 - k };
            }
            for &i in &order[..n] {
                if let Some(st) = flow.stages[i] {
                    let _ = ask(sys, st.at.task, l, &[u64::from(st.at.number)], None);
                }
            }
        }
        let reg = &mut self.reg;
        let flow = self
            .slots
            .get(fid)
            .ok_or(Refusal::new(FlowStatus::UnknownFlow))?;
        Self::check(reg, sys, fid.slot(), flow);
        Ok(())
    }

    /// DESTROY: stops the stages, revokes their capabilities, frees the
    /// slot; the id names nothing from now on.
    pub fn destroy(&mut self, sys: &mut impl Sys, id: u64, owner: u64) -> Result<usize, Refusal> {
        let (fid, _) = self.flow(id, owner)?;
        let mut flow = self
            .slots
            .take(fid)
            .ok_or(Refusal::new(FlowStatus::UnknownFlow))?;
        flow.unwire(sys, &mut self.reg, fid.slot());
        Ok(fid.slot())
    }

    /// Every flow of `owner`: its id and state.
    pub fn list(&mut self, owner: u64) -> impl Iterator<Item = (FlowId, FlowState)> + '_ {
        self.slots
            .iter_mut()
            .filter(move |(_, f)| f.owner == owner)
            .map(|(id, f)| (id, f.life.state()))
    }
}
