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
//! notification. A stage that does not answer (dead, or stuck past the
//! call's deadline), answers as a new instance, or reports a broken edge
//! puts the flow on the ladder
//! ([`crate::ladder`]). Recovery rewires the whole flow on freshly
//! formatted edges (the stages' held buffers and counters start over), so
//! a source starts again from its beginning.

use crate::ladder::{self, Failure, History, Step};
use crate::layout::{self, Layout};
use crate::quiet::Quiet;
use crate::refusal::{bad, Refusal};
use crate::registry::{Class, Placement, Registry};
use crate::slots::{FlowId, Slots};
use crate::state::{Event, Life};
use crate::sys::{Cap, Reply, Sys, Unanswered};
use conflux_flow_protocol::api::{
    EdgeFigures, FlowRequest, FlowState, FlowStats, FlowStatus, MAX_EDGES, MAX_STAGES,
};
use conflux_flow_protocol::edge::EdgeStats;
use conflux_flow_protocol::stage::{
    label, Grant, Sched, StageSpec, StageStatus, Start, START_WORDS,
};

/// Ladder steps one check may take before the flow is terminated (each
/// step restarts a stage or moves it, so this bounds a flow whose stages
/// fail as fast as they are wired).
const MAX_STEPS: usize = 16;

/// Where a flow keeps the second instance of its replicated stage: a
/// replicable flow has at most `MAX_REPLICATED_STAGES` stages, so this
/// place is never one of its own.
const REPLICA: usize = MAX_STAGES - 1;

/// What one stage instance is wired to: edges (indices into the layout)
/// and the tasks whose doorbells it rings, per lane.
#[derive(Clone, Copy, Debug, Default)]
struct Wiring {
    input: Option<usize>,
    output: Option<usize>,
    input2: Option<usize>,
    output2: Option<usize>,
    up: Option<usize>,
    down: Option<usize>,
    up2: Option<usize>,
    down2: Option<usize>,
    replica: bool,
}

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
    /// Times a stage of it was replicated.
    replications: u64,
    /// Where the current wiring's source started (a pattern's record
    /// number), and the sink's figures from the wirings before it: a
    /// rewired flow goes on where its sink stopped, and its tally adds up.
    position: u64,
    sink_base: [u64; 2],
    /// Consecutive looks that found the replicable stage the bottleneck.
    hot: u8,
    /// A split was refused by its stages (no room for a second lane):
    /// not tried again for this flow.
    unsplittable: bool,
}

/// Whether a rewired flow can go on where it stopped: its source starts
/// at a given record or buffer (a `blocks` source at the sector after the
/// buffers delivered) and its sink's figures are counters that add up (a
/// check sink is told the record it expects next).
fn resumable(req: &FlowRequest) -> bool {
    let stages = req.stages();
    matches!(
        stages.first(),
        Some(StageSpec::Pattern { .. } | StageSpec::Blocks { .. })
    ) && matches!(
        stages.last(),
        Some(StageSpec::Check { .. } | StageSpec::Null)
    )
}

/// How a stage call went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fail {
    Dead,
    /// No answer by the deadline: the task is stuck.
    Silent,
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
                Fail::Dead | Fail::Silent => None,
                Fail::Refused(l) => Some(l),
            },
        )
    }
}

/// Calls a stage; a `Dead` call is tried once more, since the first call
/// after the task restarted fails only to tell the caller so (a `Silent`
/// one is not: it would wait out the deadline again).
pub(crate) fn ask(
    sys: &mut impl Sys,
    task: usize,
    l: u32,
    words: &[u64],
    cap: Option<Cap>,
) -> Result<Reply, Fail> {
    let r = match sys.call(task, l, words, cap) {
        Err(Unanswered::Dead) => sys.call(task, l, words, cap),
        r => r,
    }
    .map_err(|u| match u {
        Unanswered::Dead => Fail::Dead,
        Unanswered::Silent => Fail::Silent,
    })?;
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

    /// The replicated stage's index, if a replica runs.
    fn replicated(&self) -> Option<usize> {
        self.stages[REPLICA]?;
        self.req.replicable()
    }

    /// What stage `i` (or [`REPLICA`]) is wired to. The replicated stage
    /// `r` and its replica are lanes A and B between a split at `r - 1`
    /// and a merge at `r + 1`; lane B's edges come after the flow's own.
    fn wiring(&self, i: usize) -> Wiring {
        let last = self.last();
        let rep = self.replicated();
        if i == REPLICA {
            let Some(r) = rep else {
                return Wiring::default();
            };
            return Wiring {
                input: Some(last),
                output: Some(last + 1),
                up: self.task(r - 1),
                down: self.task(r + 1),
                replica: true,
                ..Wiring::default()
            };
        }
        let mut w = Wiring {
            input: i.checked_sub(1),
            output: (i < last).then_some(i),
            up: i.checked_sub(1).and_then(|u| self.task(u)),
            down: self.task(i + 1).filter(|_| i < last),
            ..Wiring::default()
        };
        if let Some(r) = rep {
            if i + 1 == r {
                w.output2 = Some(last);
                w.down2 = self.task(REPLICA);
            }
            w.replica = i == r;
            if i == r + 1 {
                w.input2 = Some(last + 1);
                w.up2 = self.task(REPLICA);
            }
        }
        w
    }

    fn attach(&self, sys: &mut impl Sys, slot: usize, i: usize) -> Result<(), Fail> {
        let Some(st) = self.stages[i] else {
            return Ok(());
        };
        let w = self.wiring(i);
        let edge = |e: Option<usize>| e.map(|edge| Cap::Edge { slot, edge });
        let bell = |t: Option<usize>| t.map(|task| Cap::Bell { task });
        let grants = [
            (Grant::Pool, Some(Cap::Pool { slot })),
            (Grant::Input, edge(w.input)),
            (Grant::Output, edge(w.output)),
            (Grant::WakeDownstream, bell(w.down)),
            (Grant::WakeUpstream, bell(w.up)),
            (Grant::Input2, edge(w.input2)),
            (Grant::Output2, edge(w.output2)),
            (Grant::WakeDownstream2, bell(w.down2)),
            (Grant::WakeUpstream2, bell(w.up2)),
        ];
        for (grant, cap) in grants {
            if let Some(cap) = cap {
                let words = [u64::from(st.at.number), grant as u64];
                ask(sys, st.at.task, label::ATTACH, &words, Some(cap))?;
            }
        }
        Ok(())
    }

    fn start(&self, sys: &mut impl Sys, i: usize, tsc_hz: u64) -> Result<(), Fail> {
        let Some(st) = self.stages[i] else {
            return Ok(());
        };
        let spans = &self.layout.spans;
        let w = self.wiring(i);
        let span = |e: Option<usize>| e.map(|e| spans[e]);
        let start = Start {
            flow: st.at.number,
            spec: st.spec,
            input: span(w.input),
            output: span(w.output),
            input2: span(w.input2),
            output2: span(w.output2),
            replica: w.replica,
            sched: Sched {
                priority: self.req.priority,
                // The source admits data; the stages after it only keep up.
                rate: if i == 0 { self.req.rate } else { 0 },
                tsc_hz,
            },
            // The source starts, and a check sink expects, where the
            // flow's sink stopped.
            position: if i == 0 || i == self.last() {
                self.position
            } else {
                0
            },
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
    fn wire(
        &mut self,
        sys: &mut impl Sys,
        slot: usize,
        tsc_hz: u64,
    ) -> Result<(), Option<StageFailed>> {
        for e in 0..self.layout.edges {
            if !sys.format(slot, e, self.layout.spans[e]) {
                return Err(None);
            }
        }
        self.wired = true;
        for i in (0..=self.last()).chain([REPLICA]) {
            self.attach(sys, slot, i)
                .map_err(|fail| Some(StageFailed { index: i, fail }))?;
        }
        // Sink first; a replica right after its twin, so both lanes run
        // before the split feeds them.
        let rep = self.replicated();
        for i in (0..=self.last()).rev() {
            for j in core::iter::once(i).chain((rep == Some(i)).then_some(REPLICA)) {
                self.start(sys, j, tsc_hz)
                    .map_err(|fail| Some(StageFailed { index: j, fail }))?;
            }
        }
        for s in self.stages.iter_mut().flatten() {
            s.retries = 0;
        }
        // A new instance counts from nothing.
        self.source = [0; 2];
        Ok(())
    }

    /// Before a rewire: notes where the flow goes on. A resumable flow's
    /// sink is paused, its figures kept and the buffers it finished
    /// counted (its input edges' downstream counters, final once it is
    /// paused), so the source restarts at the first record the sink did
    /// not get: nothing lost, nothing twice (what was in flight is made
    /// again). Otherwise (or if the sink does not answer) the flow starts
    /// over from its beginning.
    fn settle(&mut self, sys: &mut impl Sys, slot: usize) {
        let last = self.last();
        let figures = match self.stages[last] {
            Some(st) if resumable(&self.req) => {
                let words = [u64::from(st.at.number)];
                ask(sys, st.at.task, label::PAUSE, &words, None)
                    .and_then(|_| ask(sys, st.at.task, label::STATS, &words, None))
                    .ok()
                    .map(|r| [r.word(3), r.word(4)])
            }
            _ => None,
        };
        match figures {
            Some(f) => {
                let w = self.wiring(last);
                let delivered: u64 = [w.input, w.input2]
                    .into_iter()
                    .flatten()
                    .filter_map(|e| sys.observe(slot, e))
                    .map(|e| e.downstream[0])
                    .sum();
                self.position = self.position.saturating_add(delivered);
                self.sink_base = [
                    self.sink_base[0].wrapping_add(f[0]),
                    self.sink_base[1].wrapping_add(f[1]),
                ];
            }
            None => {
                self.position = 0;
                self.sink_base = [0; 2];
            }
        }
        self.sink = [0; 2];
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
        for i in (0..=self.last()).chain([REPLICA]) {
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
                Err(Fail::Silent) => Failure::Silent,
            };
            return Some((i, failure));
        }
        None
    }
}

/// Places a second instance of `flow`'s replicable stage on another task
/// of its class and lays the slot (pools of `pool_len` bytes) out for the
/// two lanes; the caller wires the flow afterwards.
fn replicate(reg: &mut Registry, pool_len: u64, flow: &mut Flow) -> Result<(), Refusal> {
    let r = flow.req.replicable().ok_or(Refusal::bad(bad::REPLICAS))?;
    let twin = flow.stages[r].ok_or(Refusal::no_stage(r))?;
    let layout = layout::cut_replicated(pool_len, &flow.req, r).map_err(|t| Refusal {
        stage: t.edge as u64,
        ..Refusal::bad(bad::POOL_TOO_SMALL)
    })?;
    let at = reg
        .choose(&twin.spec, twin.class, 1 << twin.at.task)
        .and_then(|t| reg.take(t))
        .ok_or(Refusal::no_stage(r))?;
    flow.stages[REPLICA] = Some(Stage {
        at,
        history: History::default(),
        retries: 0,
        ..twin
    });
    flow.layout = layout;
    flow.replications += 1;
    Ok(())
}

/// Looks in a row that must find a stage the bottleneck before it is
/// replicated (300 ms at `flowmgr`'s pace: a burst is not a bottleneck).
pub const HOT_LOOKS: u8 = 3;

/// Whether stage `r` is the flow's bottleneck at this look: its input
/// edge's full ring at least 3/4 occupied (its upstream makes buffers
/// faster than it takes them) while its output edge is not (its
/// downstream keeps up with it).
fn bottleneck(layout: &Layout, edges: &[EdgeStats], r: usize) -> bool {
    let backed_up = |e: usize| match (edges.get(e), layout.spans.get(e)) {
        (Some(x), Some(s)) => u64::from(x.queued) * 4 >= u64::from(s.count) * 3,
        _ => false,
    };
    r > 0 && backed_up(r - 1) && !backed_up(r)
}

/// `flowmgr`'s state: the stage tasks and the flow slots.
pub struct Manager {
    reg: Registry,
    slots: Slots<Flow>,
    pool_len: u64,
    /// TSC cycles per second as the server measured them (0: unknown),
    /// sent to every stage so a source can keep its rate.
    tsc_hz: u64,
    /// Who may hold how many slots.
    clients: crate::quota::Clients,
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
/// means its downstream stage had already sent on everything). The
/// source sends on `out` (two edges when it splits).
fn drained(total: Option<u64>, edges: &[EdgeStats], out: [Option<usize>; 2]) -> bool {
    let Some(total) = total else { return false };
    let made: u64 = out
        .iter()
        .flatten()
        .filter_map(|&e| edges.get(e))
        .map(|e| e.upstream[0].saturating_add(e.upstream[2]))
        .sum();
    made >= total && edges.iter().all(|e| e.downstream[0] >= e.upstream[0])
}

impl Manager {
    /// `tasks` stage tasks (in the manifest's order), `slots` flow slots
    /// with pools of `pool_len` bytes.
    pub fn new(tasks: usize, slots: usize, pool_len: u64) -> Self {
        Self {
            reg: Registry::new(tasks),
            slots: Slots::new(slots),
            pool_len,
            tsc_hz: 0,
            clients: crate::quota::Clients::NONE,
        }
    }

    /// The manifest's clients and their quotas: from now on each may hold
    /// only its share of the slots (`quota`).
    pub fn set_clients(&mut self, clients: crate::quota::Clients) {
        self.clients = clients;
    }

    /// The TSC's rate, cycles per second, for the flows wired from now on.
    pub fn set_tsc_hz(&mut self, hz: u64) {
        self.tsc_hz = hz;
    }

    pub fn registry(&self) -> &Registry {
        &self.reg
    }

    /// Before any flow is made: ids start at `generation` (see
    /// [`Slots::start_at`]); a restarted `flowmgr` passes something that
    /// differs from boot to boot.
    pub fn start_generations_at(&mut self, generation: u32) {
        self.slots.start_at(generation);
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
        if req.rate != 0 && self.tsc_hz == 0 {
            return Err(Refusal::bad(bad::NO_CLOCK));
        }
        self.learn(sys);
        let held = self.list(owner).count();
        if held >= self.clients.limit(owner, self.slots.len()) {
            return Err(Refusal::new(FlowStatus::OverQuota));
        }
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
            replications: 0,
            position: 0,
            sink_base: [0; 2],
            hot: 0,
            unsplittable: false,
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
        if req.replicas == 2 {
            if let Err(r) = replicate(&mut self.reg, self.pool_len, &mut flow) {
                for (_, st) in flow.stages() {
                    self.reg.release(st.at);
                }
                return Err(r);
            }
        }
        let mut quiet = Quiet::new(sys, self.reg.silent());
        let wired = flow.wire(&mut quiet, slot, self.tsc_hz);
        if wired.is_err() {
            flow.wired = true;
            flow.unwire(&mut quiet, &mut self.reg, slot);
        }
        self.reg.mark_silent(quiet.silent());
        if let Err(e) = wired {
            return Err(e.map_or(Refusal::new(FlowStatus::NoSlot), StageFailed::refusal));
        }
        self.slots
            .fill(slot, flow)
            .ok_or(Refusal::new(FlowStatus::NoSlot))
    }

    /// Checks `flow`'s stages and climbs the ladder for one that failed,
    /// rewiring the flow after each step, until it runs or is terminated.
    fn check(reg: &mut Registry, sys: &mut impl Sys, hz: u64, id: FlowId, flow: &mut Flow) {
        if !flow.wired {
            return;
        }
        let slot = id.slot();
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
            if failure == Failure::Silent {
                sys.stage_silent(id.word(), i, st.at.task);
            }
            let step = ladder::decide(reg, &st.spec, st.class, st.at, &mut st.history, failure);
            flow.stages[i] = Some(st);
            let Some(counter) = step.counter() else { break };
            // Stopped where they ran (the failed stage's old task too,
            // in case it still runs), then moved; the source goes on
            // where the sink stopped.
            flow.settle(sys, slot);
            flow.stop(sys, slot);
            if let Step::Redirect(p) | Step::Fallback(p) = step {
                st.at = p;
                flow.stages[i] = Some(st);
            }
            flow.ladder[counter] += 1;
            sys.notify(slot);
            failed = match flow.wire(sys, slot, hz) {
                Ok(()) => None,
                Err(None) => break,
                Err(Some(f)) => Some((
                    f.index,
                    match f.fail {
                        Fail::Dead => Failure::Dead,
                        Fail::Silent => Failure::Silent,
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
        (hz, pool_len): (u64, u64),
        id: FlowId,
        flow: &mut Flow,
        tick: bool,
    ) -> [EdgeStats; MAX_EDGES] {
        Self::check(reg, sys, hz, id, flow);
        let slot = id.slot();
        let mut raw = [EdgeStats::default(); MAX_EDGES];
        let edges = flow.layout.edges;
        for (e, r) in raw.iter_mut().enumerate().take(edges) {
            *r = sys.observe(slot, e).unwrap_or_default();
        }
        // Only the timer's looks, 100 ms apart, measure a bottleneck (an
        // application may ask STATS at any pace). A flow just rewired has
        // new edges: its end is for a later look.
        let rewired = tick && Self::scale(reg, sys, (hz, pool_len), slot, flow, &raw[..edges]);
        if flow.wired
            && !rewired
            && drained(
                source_total(&flow.req, flow.source).map(|t| t.saturating_sub(flow.position)),
                &raw[..edges],
                {
                    let w = flow.wiring(0);
                    [w.output, w.output2]
                },
            )
            && flow.life.apply(Event::Finished) == Ok(true)
        {
            // The stages were asked before the edges were read, so the
            // sink may have taken its last buffers in between: ask again,
            // so the figures of a flow that is `Done` are final.
            let _ = flow.poll(sys);
            sys.notify(slot);
        }
        raw
    }

    /// The scheduler's look at a running flow (at a timer tick): when its
    /// replicable stage has been the bottleneck for [`HOT_LOOKS`] looks in
    /// a row and
    /// another task of its class can take it, the flow is split between
    /// two replicas: the sink is paused and its place noted
    /// ([`Flow::settle`]), every stage stopped, and the flow wired again
    /// with the replica, the source going on where the sink stopped. Only
    /// a resumable flow is rewired mid-way (a push source cannot make its
    /// data again); a replica that cannot be placed leaves the flow as it
    /// is.
    fn scale(
        reg: &mut Registry,
        sys: &mut impl Sys,
        (hz, pool_len): (u64, u64),
        slot: usize,
        flow: &mut Flow,
        edges: &[EdgeStats],
    ) -> bool {
        let candidate = flow.wired
            && flow.life.state() == FlowState::Running
            && flow.replicated().is_none()
            && !flow.unsplittable
            && resumable(&flow.req);
        let Some(r) = flow.req.replicable().filter(|_| candidate) else {
            flow.hot = 0;
            return false;
        };
        flow.hot = if bottleneck(&flow.layout, edges, r) {
            flow.hot.saturating_add(1)
        } else {
            0
        };
        if flow.hot < HOT_LOOKS {
            return false;
        }
        flow.hot = 0;
        // Only when a replica can be placed and laid out; settled (on the
        // flow's present edges) before the replica changes the wiring.
        let placeable = flow.stages[r].is_some_and(|twin| {
            reg.choose(&twin.spec, twin.class, 1 << twin.at.task)
                .is_some()
        }) && layout::cut_replicated(pool_len, &flow.req, r).is_ok();
        if !placeable {
            return false;
        }
        flow.settle(sys, slot);
        flow.stop(sys, slot);
        // Placeable was checked just now, and nothing took a number since;
        // should it fail all the same, the flow is rewired as it was.
        let _ = replicate(reg, pool_len, flow);
        sys.notify(slot);
        if flow.wire(sys, slot, hz).is_err() {
            // The splitting or merging stage's task may have no room for a
            // second lane (it refuses the grant): the flow goes on
            // unreplicated, from the same place (a wiring that failed
            // never started its source, which starts last).
            flow.stop(sys, slot);
            flow.unsplittable = true;
            if let Some(st) = flow.stages[REPLICA].take() {
                reg.release(st.at);
                flow.replications = flow.replications.saturating_sub(1);
            }
            match layout::cut(pool_len, &flow.req) {
                Ok(l) => flow.layout = l,
                Err(_) => {
                    Self::terminate(reg, sys, slot, flow);
                    return true;
                }
            }
            if flow.wire(sys, slot, hz).is_err() {
                Self::terminate(reg, sys, slot, flow);
            }
        }
        true
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
        let sys = &mut Quiet::new(sys, reg.silent());
        for (id, flow) in self.slots.iter_mut() {
            if flow.watched() {
                Self::look(reg, sys, (self.tsc_hz, self.pool_len), id, flow, true);
            }
            // A source waiting for credit sleeps until someone rings.
            if flow.watched() && flow.req.rate != 0 && !flow.life.paused() {
                if let Some(t) = flow.task(0) {
                    sys.ring(t);
                }
            }
        }
        let silent = sys.silent();
        self.reg.mark_silent(silent);
    }

    /// STATS: the flow's figures, after checking its stages.
    pub fn stats(&mut self, sys: &mut impl Sys, id: u64, owner: u64) -> Result<FlowStats, Refusal> {
        let (fid, _) = self.flow(id, owner)?;
        let reg = &mut self.reg;
        let flow = self
            .slots
            .get(fid)
            .ok_or(Refusal::new(FlowStatus::UnknownFlow))?;
        let mut quiet = Quiet::new(sys, reg.silent());
        let hz = (self.tsc_hz, self.pool_len);
        let raw = Self::look(reg, &mut quiet, hz, fid, flow, false);
        reg.mark_silent(quiet.silent());
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
            sink: [
                flow.sink_base[0].wrapping_add(flow.sink[0]),
                flow.sink_base[1].wrapping_add(flow.sink[1]),
            ],
            replications: flow.replications,
            tsc_hz: self.tsc_hz,
            sink_kind: flow.req.stages().last().map_or(0, StageSpec::kind),
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
        let silent = self.reg.silent();
        let (fid, flow) = self.flow(id, owner)?;
        let sys = &mut Quiet::new(sys, silent);
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
        Self::check(reg, sys, self.tsc_hz, fid, flow);
        reg.mark_silent(sys.silent());
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
        let mut quiet = Quiet::new(sys, self.reg.silent());
        flow.unwire(&mut quiet, &mut self.reg, fid.slot());
        self.reg.mark_silent(quiet.silent());
        Ok(fid.slot())
    }

    /// The client `owner` is gone (the supervisor says its task ended):
    /// every flow of its is destroyed as DESTROY would. Calls `freed` with
    /// each slot freed; returns how many.
    pub fn end_client<S: Sys>(
        &mut self,
        sys: &mut S,
        owner: u64,
        mut freed: impl FnMut(&mut S, usize),
    ) -> usize {
        let mut count = 0;
        loop {
            let Some(id) = self.list(owner).map(|(id, _)| id).next() else {
                return count;
            };
            match self.destroy(sys, id.word(), owner) {
                Ok(slot) => freed(sys, slot),
                Err(_) => return count, // listed, so it is there and its own
            }
            count += 1;
        }
    }

    /// Every flow of `owner`: its id and state.
    pub fn list(&mut self, owner: u64) -> impl Iterator<Item = (FlowId, FlowState)> + '_ {
        self.slots
            .iter_mut()
            .filter(move |(_, f)| f.owner == owner)
            .map(|(id, f)| (id, f.life.state()))
    }
}
