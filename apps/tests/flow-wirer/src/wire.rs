//! The part of `flowmgr` this test plays: a flow slot's edges formatted,
//! capabilities minted and attached to stage tasks, START, STATS, STOP,
//! and the slot's capabilities revoked afterwards.

use crate::config;
use conflux_flow_protocol::edge::{self, EdgeStats, Input, Output, EDGE_BYTES};
use conflux_flow_protocol::stage::{label, Grant, StageSpec, StageStatus, Start, START_WORDS};
use conflux_flow_protocol::Span;
use conflux_userlib::ipc::{long_word, set_long_word, Endpoint, Message, Slot};

/// A spare slot capabilities are minted into before each ATTACH.
const SPARE: usize = config::caps::FIRST_FREE;

/// A stage task as the manager sees it: its endpoint and doorbell.
#[derive(Clone, Copy)]
pub struct Task {
    pub endpoint: Endpoint,
    pub bell: usize,
}

/// The stage task named `name` in `[flows] stages`.
pub fn task(name: &str) -> Task {
    let &(_, endpoint, bell) = config::flows::STAGES
        .iter()
        .find(|s| s.0 == name)
        .expect("the test system lists every stage task the wirer uses");
    Task {
        endpoint: Endpoint(endpoint),
        bell,
    }
}

/// A stage's answer: status and words.
pub type Answer = (Option<StageStatus>, [u64; 5]);

fn call(t: Task, msg: Message) -> Answer {
    match t.endpoint.call(&msg) {
        Ok(m) => {
            let mut w = [0; 5];
            for (i, x) in w.iter_mut().enumerate().take(m.len.min(5)) {
                *x = if i < 4 { m.words[i] } else { long_word(i) };
            }
            (StageStatus::from_label(m.label), w)
        }
        Err(_) => (None, [0; 5]),
    }
}

pub fn info(t: Task) -> Answer {
    call(t, Message::new(label::INFO, &[]))
}

/// Mints a copy of `slot` and attaches it as `grant` of stage flow `flow`.
pub fn attach(t: Task, flow: u32, grant: Grant, slot: usize) -> Option<StageStatus> {
    let _ = Slot(SPARE).delete();
    if Slot(slot).copy(SPARE).is_err() {
        return None;
    }
    let msg = Message::new(label::ATTACH, &[u64::from(flow), grant as u64]).with_cap(SPARE);
    let status = call(t, msg).0;
    // Moved by the transfer; deleted here in case it was not.
    let _ = Slot(SPARE).delete();
    status
}

/// ATTACH with no capability at all (a confused manager).
pub fn attach_nothing(t: Task, flow: u32, grant: Grant) -> Option<StageStatus> {
    call(
        t,
        Message::new(label::ATTACH, &[u64::from(flow), grant as u64]),
    )
    .0
}

pub fn start(t: Task, s: &Start) -> Option<StageStatus> {
    let mut w = [0u64; START_WORDS];
    let n = s.encode(&mut w).expect("a start message fits its words");
    for (i, &x) in w.iter().enumerate().take(n).skip(4) {
        set_long_word(i, x);
    }
    call(t, Message::new(label::START, &w[..4]).with_len(n)).0
}

pub fn simple(t: Task, op: u32, flow: u32) -> Answer {
    call(t, Message::new(op, &[u64::from(flow)]))
}

/// One stage of a flow being wired: which task, its own flow number, what
/// it does, and its edges (indices into the slot's edges).
#[derive(Clone, Copy)]
pub struct Stage {
    pub task: Task,
    pub flow: u32,
    pub spec: StageSpec,
    pub input: Option<usize>,
    pub output: Option<usize>,
}

/// A flow slot of the manifest: pool and edges (the edges mapped here).
pub struct FlowSlot {
    pub pool: usize,
    pub edges: [usize; 5],
    pub addrs: [u64; 5],
}

pub fn slot(n: usize) -> FlowSlot {
    let (pool, edges, addrs) = config::flows::SLOTS[n];
    FlowSlot { pool, edges, addrs }
}

impl FlowSlot {
    /// Formats edge `e` for `span` (empty rings, every buffer free).
    pub fn format(&self, e: usize, span: Span) -> bool {
        // Safety: the manifest maps edge `e` at `addrs[e]`, EDGE_BYTES
        // long and writable, for this task's life; no stage has it yet
        // (it is attached only after this).
        unsafe { edge::format(self.addrs[e] as *mut u8, EDGE_BYTES, POOL, span) }.is_ok()
    }

    /// What edge `e` reports.
    pub fn observe(&self, e: usize) -> Option<EdgeStats> {
        // Safety: mapped readable (see `format`).
        unsafe { edge::observe(self.addrs[e] as *mut u8, EDGE_BYTES) }.ok()
    }

    /// Edge `e`'s downstream end, for a test that plays a stage itself.
    pub fn input(&self, e: usize, span: Span) -> Option<Input> {
        // Safety: mapped writable for the task's life (see `format`); the
        // `Input` is dropped before the test ends.
        unsafe { edge::attach_input(self.addrs[e] as *mut u8, EDGE_BYTES, POOL, span) }.ok()
    }

    /// Edge `e`'s upstream end, for a test that plays a stage itself.
    pub fn output(&self, e: usize, span: Span) -> Option<Output> {
        // Safety: as for `input`.
        unsafe { edge::attach_output(self.addrs[e] as *mut u8, EDGE_BYTES, POOL, span) }.ok()
    }

    /// Attaches everything `stage` needs, its neighbours' doorbells from
    /// `up` and `down`; the first refusal, if any.
    pub fn attach(&self, s: &Stage, up: Option<Task>, down: Option<Task>) -> Option<StageStatus> {
        let mut grants = alloc::vec![(Grant::Pool, self.pool)];
        if let Some(e) = s.input {
            grants.push((Grant::Input, self.edges[e]));
        }
        if let Some(e) = s.output {
            grants.push((Grant::Output, self.edges[e]));
        }
        if let Some(d) = down {
            grants.push((Grant::WakeDownstream, d.bell));
        }
        if let Some(u) = up {
            grants.push((Grant::WakeUpstream, u.bell));
        }
        for (g, slot) in grants {
            match attach(s.task, s.flow, g, slot) {
                Some(StageStatus::Ok) => {}
                other => return other.or(Some(StageStatus::BadCapability)),
            }
        }
        None
    }

    /// Revokes what was derived from the slot's pool and edges; how many
    /// copies were still alive (0 when every stage deleted its own).
    pub fn revoke(&self) -> u64 {
        let mut n = Slot(self.pool).revoke().unwrap_or(u64::MAX);
        for &e in &self.edges {
            n = n.saturating_add(Slot(e).revoke().unwrap_or(u64::MAX));
        }
        n
    }
}

/// The pool's size (every slot's).
pub const POOL: u64 = config::flows::POOL_SIZE as u64;

/// Wires a pipeline on `slot`: formats the edges for `spans` (edge `i`
/// joins stage `i` and `i + 1`), attaches every stage and starts them,
/// sink first. The first failure, described.
pub fn wire(
    slot: &FlowSlot,
    stages: &[Stage],
    spans: &[Span],
) -> Result<(), alloc::string::String> {
    for (e, &span) in spans.iter().enumerate() {
        if !slot.format(e, span) {
            return Err(alloc::format!("formatting edge {e}"));
        }
    }
    for (i, s) in stages.iter().enumerate() {
        let up = i.checked_sub(1).map(|j| stages[j].task);
        let down = stages.get(i + 1).map(|d| d.task);
        if let Some(st) = slot.attach(s, up, down) {
            return Err(alloc::format!("attaching stage {i}: {st:?}"));
        }
    }
    for s in stages.iter().rev() {
        let msg = start_of(s, s.input.map(|e| spans[e]), s.output.map(|e| spans[e]));
        match start(s.task, &msg) {
            Some(StageStatus::Ok) => {}
            other => return Err(alloc::format!("starting {:?}: {other:?}", s.spec.kind())),
        }
    }
    Ok(())
}

/// The START message of `s` with one lane each way, its edges' spans
/// given, at position 0 and default scheduling.
pub fn start_of(s: &Stage, input: Option<Span>, output: Option<Span>) -> Start {
    Start {
        flow: s.flow,
        spec: s.spec,
        input,
        output,
        sched: Default::default(),
        position: 0,
        input2: None,
        output2: None,
        replica: false,
    }
}

/// Stops every stage; whether each answered Ok.
pub fn stop_all(stages: &[Stage]) -> bool {
    stages
        .iter()
        .all(|s| simple(s.task, label::STOP, s.flow).0 == Some(StageStatus::Ok))
}
