//! Three stage tasks in one process, over memory standing in for the
//! pool and edges: `flowmgr`'s messages, buffers moving source →
//! transformer → sink in order, doorbells, pause, stop, and every refusal.
#![allow(unsafe_code)]

use super::*;
use conflux_flow_protocol::edge::{self, EDGE_BYTES};
use conflux_flow_protocol::stage::{
    label, Grant, Sched, StageSpec, StageStatus, Start, START_WORDS,
};
use conflux_flow_protocol::Span;
use std::collections::HashMap;

/// A capability in the fake system: memory (a region) or a doorbell.
#[derive(Clone, Copy, Debug)]
enum Cap {
    Region(*mut u8, usize),
    Bell(u32),
}

#[derive(Default)]
struct FakeOs {
    slots: HashMap<usize, Cap>,
    rung: Vec<u32>,
    mapped: usize,
    clock: u64,
    /// The clock stands still (a test moves it) instead of ticking once
    /// per reading.
    frozen: bool,
}

const RECEIVE: usize = 60;

impl Os for FakeOs {
    fn take_region(&mut self, from: usize, to: usize, _vaddr: u64) -> Option<Mapping> {
        match self.slots.remove(&from)? {
            Cap::Region(p, n) => {
                self.slots.insert(to, Cap::Region(p, n));
                self.mapped += 1;
                Some(Mapping::new(p, n, to))
            }
            Cap::Bell(_) => None,
        }
    }
    fn take_cap(&mut self, from: usize, to: usize) -> bool {
        self.slots
            .remove(&from)
            .map(|c| self.slots.insert(to, c))
            .is_some()
    }
    fn release(&mut self, slot: usize, mapping: Option<Mapping>) {
        if mapping.is_some() {
            self.mapped -= 1;
        }
        self.slots.remove(&slot);
    }
    fn now(&mut self) -> u64 {
        if !self.frozen {
            self.clock += 1;
        }
        self.clock
    }
    fn ring(&mut self, slot: usize) {
        if let Some(Cap::Bell(b)) = self.slots.get(&slot) {
            self.rung.push(*b);
        }
    }
}

#[repr(C, align(4096))]
struct Page([u8; 4096]);

/// Pages of an edge region.
const EDGE_PAGES: usize = EDGE_BYTES / 4096;

fn memory(pages: usize) -> (*mut u8, usize) {
    let v: Vec<Page> = (0..pages).map(|_| Page([0; 4096])).collect();
    (
        Box::leak(v.into_boxed_slice()).as_mut_ptr().cast(),
        pages * 4096,
    )
}

/// What the test stages do: a source that counts to `limit`, a
/// transformer that adds 1 to every byte, a sink that records.
#[derive(Default)]
struct Toy {
    started: Vec<u32>,
    stopped: Vec<u32>,
    refuse: bool,
    /// A sink that takes what is queued for it when it stops: the
    /// sequence numbers it took then.
    drain: Option<Vec<u32>>,
}

impl Work for Toy {
    type Flow = ();
    fn start(&mut self, flow: u32, _s: &Start, _io: &mut FlowIo) -> Result<(), StageStatus> {
        if self.refuse {
            return Err(StageStatus::DeviceRefused);
        }
        self.started.push(flow);
        Ok(())
    }
    fn stopping(&mut self, _flow: u32, _: &mut (), io: &mut FlowIo) {
        let Some(taken) = self.drain.as_mut() else {
            return;
        };
        let mut os = FakeOs::default();
        while io.sink(&mut os, |_, seq| {
            taken.push(seq);
            Ok(())
        }) == Step::Progress
        {}
    }
    fn stop(&mut self, flow: u32, _: ()) {
        self.stopped.push(flow);
    }
    fn info(&self) -> [u64; 2] {
        [1 << 4, 0]
    }
}

/// One stage task's configuration; `task` keeps the fake tasks' slots
/// apart, since the fake system has one slot table for all of them.
const fn config(task: usize) -> Config {
    Config {
        cap_base: 10 + 32 * task,
        ..CONFIG
    }
}

const CONFIG: Config = Config {
    cap_base: 10,
    window_base: 0x2000_0000_0000,
    flows: 2,
    lanes: 2,
};

const BUF: u32 = 256;
const IN: Span = Span {
    lo: 0,
    count: 4,
    size: BUF,
};
const OUT: Span = Span {
    lo: 4096,
    count: 4,
    size: BUF,
};

struct Rig {
    os: FakeOs,
    pool: (*mut u8, usize),
    edges: [(*mut u8, usize); 2],
}

impl Rig {
    fn new() -> Self {
        let pool = memory(4);
        let edges = [memory(EDGE_PAGES), memory(EDGE_PAGES)];
        for (e, span) in edges.iter().zip([IN, OUT]) {
            // Safety: leaked page-aligned memory; flowmgr's role.
            unsafe { edge::format(e.0, EDGE_BYTES, pool.1 as u64, span) }.unwrap();
        }
        Self {
            os: FakeOs::default(),
            pool,
            edges,
        }
    }

    fn send(
        &mut self,
        st: &mut Stages<Toy>,
        work: &mut Toy,
        flow: u64,
        grant: Grant,
        cap: Option<Cap>,
    ) -> StageStatus {
        if let Some(c) = cap {
            self.os.slots.insert(RECEIVE, c);
        }
        let m = st.handle(
            work,
            &mut self.os,
            label::ATTACH,
            &[flow, grant as u64],
            cap.map(|_| RECEIVE),
        );
        assert!(
            !self.os.slots.contains_key(&RECEIVE),
            "the receive slot is left empty"
        );
        m.status
    }

    /// Attaches what a stage at `position` (0 source, 1 middle, 2 sink) needs.
    fn attach(&mut self, st: &mut Stages<Toy>, work: &mut Toy, flow: u64, position: usize) {
        let pool = Cap::Region(self.pool.0, self.pool.1);
        assert_eq!(
            self.send(st, work, flow, Grant::Pool, Some(pool)),
            StageStatus::Ok
        );
        if position > 0 {
            let e = self.edges[position - 1];
            assert_eq!(
                self.send(st, work, flow, Grant::Input, Some(Cap::Region(e.0, e.1))),
                StageStatus::Ok
            );
            assert_eq!(
                self.send(
                    st,
                    work,
                    flow,
                    Grant::WakeUpstream,
                    Some(Cap::Bell(position as u32 - 1))
                ),
                StageStatus::Ok
            );
        }
        if position < 2 {
            let e = self.edges[position];
            assert_eq!(
                self.send(st, work, flow, Grant::Output, Some(Cap::Region(e.0, e.1))),
                StageStatus::Ok
            );
            assert_eq!(
                self.send(
                    st,
                    work,
                    flow,
                    Grant::WakeDownstream,
                    Some(Cap::Bell(position as u32 + 1))
                ),
                StageStatus::Ok
            );
        }
    }
}

fn start(st: &mut Stages<Toy>, work: &mut Toy, os: &mut FakeOs, s: Start) -> StageStatus {
    let mut words = [0; START_WORDS];
    s.encode(&mut words).unwrap();
    st.handle(work, os, label::START, &words, None).status
}

fn spec(flow: u32, spec: StageSpec, input: Option<Span>, output: Option<Span>) -> Start {
    Start {
        flow,
        spec,
        input,
        output,
        sched: Sched::default(),
        position: 0,
        input2: None,
        output2: None,
        replica: false,
    }
}

#[test]
fn a_three_stage_pipeline_moves_every_buffer_in_order() {
    let mut rig = Rig::new();
    let mut works = [Toy::default(), Toy::default(), Toy::default()];
    let mut stages = [
        Stages::new(config(0)),
        Stages::new(config(1)),
        Stages::new(config(2)),
    ];
    let specs = [
        spec(1, StageSpec::Udp { port: 9 }, None, Some(IN)),
        spec(1, StageSpec::Crc32c, Some(IN), Some(OUT)),
        spec(1, StageSpec::Null, Some(OUT), None),
    ];
    for p in 0..3 {
        rig.attach(&mut stages[p], &mut works[p], 1, p);
        assert_eq!(
            start(&mut stages[p], &mut works[p], &mut rig.os, specs[p]),
            StageStatus::Ok
        );
    }
    let [s0, s1, s2] = &mut stages;
    let mut sent = 0u32;
    let mut seen = Vec::new();
    for _round in 0..100 {
        s0.run(|_, io, _| {
            io.source(&mut rig.os, |dst| {
                if sent == 20 {
                    return Err(io::Failure::Permanent);
                }
                dst[..4].copy_from_slice(&sent.to_le_bytes());
                sent += 1;
                Ok(Some(4))
            })
        });
        s1.run(|_, io, _| {
            io.transform(&mut rig.os, |src, dst| {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = s.wrapping_add(1);
                }
                Ok(src.len())
            })
        });
        s2.run(|_, io, _| {
            io.sink(&mut rig.os, |src, seq| {
                seen.push((seq, src.to_vec()));
                Ok(())
            })
        });
    }
    assert_eq!(seen.len(), 20);
    for (i, (seq, bytes)) in seen.iter().enumerate() {
        let mut want = (i as u32).to_le_bytes();
        want.iter_mut().for_each(|b| *b += 1);
        assert_eq!((*seq, bytes.as_slice()), (i as u32, &want[..]));
    }
    // Stop every stage: everything it was given is unmapped and deleted.
    for p in 0..3 {
        let m = stages[p].handle(&mut works[p], &mut rig.os, label::STOP, &[1], None);
        assert_eq!(m.status, StageStatus::Ok);
        assert_eq!(works[p].stopped, vec![1]);
    }
    assert_eq!(rig.os.mapped, 0);
    assert!(rig.os.slots.is_empty(), "{:?}", rig.os.slots);
}

#[test]
fn a_sink_takes_what_is_queued_for_it_before_it_stops() {
    let mut rig = Rig::new();
    let mut works = [
        Toy::default(),
        Toy::default(),
        Toy {
            drain: Some(Vec::new()),
            ..Toy::default()
        },
    ];
    let mut stages = [
        Stages::new(config(0)),
        Stages::new(config(1)),
        Stages::new(config(2)),
    ];
    let specs = [
        spec(1, StageSpec::Udp { port: 9 }, None, Some(IN)),
        spec(1, StageSpec::Crc32c, Some(IN), Some(OUT)),
        spec(1, StageSpec::Null, Some(OUT), None),
    ];
    for p in 0..3 {
        rig.attach(&mut stages[p], &mut works[p], 1, p);
        assert_eq!(
            start(&mut stages[p], &mut works[p], &mut rig.os, specs[p]),
            StageStatus::Ok
        );
    }
    // The sink never runs: the middle stage fills its output edge.
    let [s0, s1, s2] = &mut stages;
    for _round in 0..10 {
        s0.run(|_, io, _| io.source(&mut rig.os, |_| Ok(Some(4))));
        s1.run(|_, io, _| io.transform(&mut rig.os, |src, _| Ok(src.len())));
    }
    let m = s2.handle(&mut works[2], &mut rig.os, label::STOP, &[1], None);
    assert_eq!(m.status, StageStatus::Ok);
    assert_eq!(works[2].drain, Some(vec![0, 1, 2, 3]));
    assert_eq!(works[2].stopped, vec![1]);
}

#[test]
fn a_sleeping_neighbour_gets_exactly_its_doorbell() {
    let mut rig = Rig::new();
    let (mut w0, mut w1) = (Toy::default(), Toy::default());
    let (mut src, mut mid) = (Stages::new(config(0)), Stages::new(config(1)));
    rig.attach(&mut src, &mut w0, 0, 0);
    rig.attach(&mut mid, &mut w1, 0, 1);
    start(
        &mut src,
        &mut w0,
        &mut rig.os,
        spec(0, StageSpec::Udp { port: 9 }, None, Some(IN)),
    );
    start(
        &mut mid,
        &mut w1,
        &mut rig.os,
        spec(0, StageSpec::Crc32c, Some(IN), Some(OUT)),
    );
    // The middle stage finds nothing and sleeps.
    mid.run(|_, io, _| io.transform(&mut rig.os, |_, _| Ok(0)));
    assert!(mid.idle());
    // The source sends one buffer: bell 1 (the middle stage) rings.
    assert!(src.get(0).unwrap().0.offer(&mut rig.os, |d| {
        d[0] = 7;
        1
    }));
    assert_eq!(rig.os.rung, vec![1]);
}

#[test]
fn a_full_flow_counts_drops_instead_of_blocking_a_source() {
    let mut rig = Rig::new();
    let mut w = Toy::default();
    let mut src = Stages::new(CONFIG);
    rig.attach(&mut src, &mut w, 0, 0);
    start(
        &mut src,
        &mut w,
        &mut rig.os,
        spec(0, StageSpec::Udp { port: 9 }, None, Some(IN)),
    );
    let io = src.get(0).unwrap().0;
    let taken = (0..10).filter(|_| io.offer(&mut rig.os, |_| 1)).count();
    assert_eq!(taken, 4, "four buffers in the edge");
    // Safety: the leaked edge page.
    let s = unsafe { edge::observe(rig.edges[0].0, EDGE_BYTES) }.unwrap();
    assert_eq!((s.queued, s.upstream[2]), (4, 6));
    // Paused: everything offered is dropped.
    let m = src.handle(&mut w, &mut rig.os, label::PAUSE, &[0], None);
    assert_eq!(m.status, StageStatus::Ok);
    assert!(!src.get(0).unwrap().0.offer(&mut rig.os, |_| 1));
}

#[test]
fn refusals_each_have_their_status_and_leave_no_capability_behind() {
    let mut rig = Rig::new();
    let mut w = Toy::default();
    let mut st = Stages::new(CONFIG);
    let pool = Cap::Region(rig.pool.0, rig.pool.1);
    // A flow number past the task's flows; a grant word that is none.
    assert_eq!(
        rig.send(&mut st, &mut w, 2, Grant::Pool, Some(pool)),
        StageStatus::UnknownFlow
    );
    let m = st.handle(&mut w, &mut rig.os, label::ATTACH, &[0, 9], None);
    assert_eq!(m.status, StageStatus::BadCapability);
    // ATTACH without a capability; a doorbell where a region belongs.
    assert_eq!(
        rig.send(&mut st, &mut w, 0, Grant::Pool, None),
        StageStatus::BadCapability
    );
    assert_eq!(
        rig.send(&mut st, &mut w, 0, Grant::Pool, Some(Cap::Bell(3))),
        StageStatus::BadCapability
    );
    // START before the pool; a bad spec; an unknown label.
    let s = spec(0, StageSpec::Null, Some(IN), None);
    assert_eq!(
        start(&mut st, &mut w, &mut rig.os, s),
        StageStatus::NotAttached
    );
    let m = st.handle(&mut w, &mut rig.os, label::START, &[0, 77], None);
    assert_eq!((m.status, m.words[0]), (StageStatus::BadSpec, 77));
    assert_eq!(
        st.handle(&mut w, &mut rig.os, 0x9999, &[0], None).status,
        StageStatus::BadLabel
    );
    // The pool, but no input edge for a sink that needs one.
    assert_eq!(
        rig.send(&mut st, &mut w, 0, Grant::Pool, Some(pool)),
        StageStatus::Ok
    );
    assert_eq!(
        start(&mut st, &mut w, &mut rig.os, s),
        StageStatus::NotAttached
    );
    // Spans that overlap, or leave the pool.
    let e = rig.edges[0];
    assert_eq!(
        rig.send(
            &mut st,
            &mut w,
            0,
            Grant::Input,
            Some(Cap::Region(e.0, e.1))
        ),
        StageStatus::Ok
    );
    assert_eq!(
        rig.send(
            &mut st,
            &mut w,
            0,
            Grant::Output,
            Some(Cap::Region(e.0, e.1))
        ),
        StageStatus::Ok
    );
    let overlap = spec(0, StageSpec::Crc32c, Some(IN), Some(Span { lo: 256, ..IN }));
    assert_eq!(
        start(&mut st, &mut w, &mut rig.os, overlap),
        StageStatus::BadEdge
    );
    let outside = spec(
        0,
        StageSpec::Null,
        Some(Span {
            lo: 4 * 4096 - 256,
            ..IN
        }),
        None,
    );
    assert_eq!(
        start(&mut st, &mut w, &mut rig.os, outside),
        StageStatus::BadEdge
    );
    // The task's own refusal; then a good start, and a second one.
    w.refuse = true;
    assert_eq!(
        start(&mut st, &mut w, &mut rig.os, s),
        StageStatus::DeviceRefused
    );
    w.refuse = false;
    assert_eq!(start(&mut st, &mut w, &mut rig.os, s), StageStatus::Ok);
    assert_eq!(start(&mut st, &mut w, &mut rig.os, s), StageStatus::Busy);
    assert_eq!(
        rig.send(&mut st, &mut w, 0, Grant::Pool, Some(pool)),
        StageStatus::Busy
    );
    // STOP releases all; a second STOP names no flow.
    let m = st.handle(&mut w, &mut rig.os, label::STOP, &[0], None);
    assert_eq!(m.status, StageStatus::Ok);
    assert_eq!(
        st.handle(&mut w, &mut rig.os, label::STOP, &[0], None)
            .status,
        StageStatus::UnknownFlow
    );
    assert_eq!(rig.os.mapped, 0);
    assert!(rig.os.slots.is_empty(), "{:?}", rig.os.slots);
    // INFO needs no flow.
    let m = st.handle(&mut w, &mut rig.os, label::INFO, &[], None);
    assert_eq!((m.status, m.words[0]), (StageStatus::Ok, 1 << 4));
    // INFO needs no flow.
    let m = st.handle(&mut w, &mut rig.os, label::INFO, &[], None);
    assert_eq!((m.status, m.words[0]), (StageStatus::Ok, 1 << 4));
}

#[test]
fn edges_match_the_role() {
    use conflux_flow_protocol::stage::StageSpec::*;
    let start = |spec, input: Option<Span>, output: Option<Span>| Start {
        flow: 0,
        spec,
        input,
        output,
        sched: Sched::default(),
        position: 0,
        input2: None,
        output2: None,
        replica: false,
    };
    let pattern = Pattern { count: 1, seed: 0 };
    assert!(edges_match(&start(pattern, None, Some(OUT))));
    assert!(!edges_match(&start(pattern, Some(IN), Some(OUT))));
    assert!(!edges_match(&start(pattern, Some(IN), None)));
    assert!(edges_match(&start(Crc32c, Some(IN), Some(OUT))));
    assert!(!edges_match(&start(Crc32c, None, Some(OUT))));
    assert!(edges_match(&start(Null, Some(IN), None)));
    let blocks = Blocks { first: 0, count: 8 };
    assert!(edges_match(&start(blocks, Some(IN), None)));
    assert!(edges_match(&start(blocks, None, Some(OUT))));
    assert!(!edges_match(&start(blocks, Some(IN), Some(OUT))));
    assert!(!edges_match(&start(Null, None, None)));
}

/// A source stage (and, for a pull source, a sink draining it) with
/// the clock frozen at 0, started with `sched` and `position`.
fn limited(rig: &mut Rig, sched: Sched, position: u64) -> (Stages<Toy>, Toy, Stages<Toy>, Toy) {
    let (mut w0, mut w1) = (Toy::default(), Toy::default());
    let (mut src, mut sink) = (Stages::new(config(0)), Stages::new(config(1)));
    rig.os.frozen = true;
    rig.attach(&mut src, &mut w0, 0, 0);
    rig.attach(&mut sink, &mut w1, 0, 1);
    let s = Start {
        sched,
        position,
        ..spec(0, StageSpec::Pattern { count: 9, seed: 1 }, None, Some(IN))
    };
    assert_eq!(start(&mut src, &mut w0, &mut rig.os, s), StageStatus::Ok);
    let s = spec(0, StageSpec::Null, Some(IN), None);
    assert_eq!(start(&mut sink, &mut w1, &mut rig.os, s), StageStatus::Ok);
    (src, w0, sink, w1)
}

const LIMIT: Sched = Sched {
    priority: 0,
    // 1000 bytes/s on a 1000 Hz clock: a byte a tick, a burst of 125.
    rate: 1000,
    tsc_hz: 1000,
};

#[test]
fn a_rate_limited_pull_source_waits_for_its_credit() {
    let mut rig = Rig::new();
    let (mut src, _w0, mut sink, _w1) = limited(&mut rig, LIMIT, 40);
    let mut seqs = Vec::new();
    let mut step = |rig: &mut Rig, src: &mut Stages<Toy>| {
        let mut got = None;
        src.run(|_, io, _| {
            let s = io.source(&mut rig.os, |_| Ok(Some(100)));
            got = Some(s);
            s
        });
        sink.run(|_, io, _| {
            io.sink(&mut rig.os, |_, seq| {
                seqs.push(seq);
                Ok(())
            })
        });
        got.unwrap()
    };
    // The burst (125) pays for two buffers of 100, the second on credit.
    assert_eq!(step(&mut rig, &mut src), Step::Progress);
    assert_eq!(step(&mut rig, &mut src), Step::Progress);
    assert_eq!(step(&mut rig, &mut src), Step::WaitOther);
    // A waiting source may sleep: flowmgr's ring wakes it.
    assert!(src.idle());
    // 75 bytes of debt: paid back at 75 ticks, sent past it.
    rig.os.clock = 75;
    assert_eq!(step(&mut rig, &mut src), Step::WaitOther);
    rig.os.clock = 76;
    assert_eq!(step(&mut rig, &mut src), Step::Progress);
    assert_eq!(step(&mut rig, &mut src), Step::WaitOther);
    // Numbered from the start position.
    assert_eq!(seqs, [40, 41, 42]);
}

#[test]
fn a_rate_limited_push_source_drops_and_counts_what_is_over() {
    let mut rig = Rig::new();
    let (mut src, _w0, _sink, _w1) = limited(&mut rig, LIMIT, 0);
    let io = src.get(0).unwrap().0;
    let taken = (0..5).filter(|_| io.offer(&mut rig.os, |_| 100)).count();
    assert_eq!(taken, 2);
    // Safety: the leaked edge page.
    let s = unsafe { edge::observe(rig.edges[0].0, EDGE_BYTES) }.unwrap();
    assert_eq!((s.queued, s.upstream[2]), (2, 3), "two sent, three dropped");
    rig.os.clock = 1000;
    assert!(
        io.offer(&mut rig.os, |_| 100),
        "a second later it has credit"
    );
}

#[test]
fn an_unlimited_source_never_waits_on_the_clock() {
    let mut rig = Rig::new();
    let (mut src, _w0, _sink, _w1) = limited(&mut rig, Sched::default(), 0);
    let io = src.get(0).unwrap().0;
    let taken = (0..4).filter(|_| io.offer(&mut rig.os, |_| 100)).count();
    assert_eq!(taken, 4, "only the edge's four buffers bound it");
}

#[test]
fn a_turn_serves_flows_most_urgent_first_in_proportion_to_priority() {
    let mut rig = Rig::new();
    let mut w = Toy::default();
    let mut st = Stages::new(CONFIG);
    for (flow, priority) in [(0u32, 1u8), (1, 6)] {
        rig.attach(&mut st, &mut w, u64::from(flow), 0);
        let s = Start {
            sched: Sched {
                priority,
                ..Sched::default()
            },
            ..spec(flow, StageSpec::Udp { port: 9 }, None, Some(IN))
        };
        assert_eq!(start(&mut st, &mut w, &mut rig.os, s), StageStatus::Ok);
    }
    // Both always have work: per turn, 7 steps for priority 6, then 2 for
    // priority 1, every turn the same.
    for _ in 0..3 {
        let mut order = Vec::new();
        assert!(st.run(|f, _, _| {
            order.push(f);
            Step::Progress
        }));
        assert_eq!(order, [1, 1, 1, 1, 1, 1, 1, 0, 0]);
    }
    // A flow that has nothing to do takes one look and yields its turn.
    let mut order = Vec::new();
    st.run(|f, _, _| {
        order.push(f);
        if f == 1 {
            Step::WaitInput
        } else {
            Step::Progress
        }
    });
    assert_eq!(order, [1, 0, 0]);
    assert_eq!((turn_steps(0), turn_steps(7), turn_steps(200)), (1, 8, 8));
}

/// A split flow: a source sending in turn to two replicas of a
/// transformer (tasks 1 and 2), and a sink merging their outputs.
struct Split {
    os: FakeOs,
    stages: [Stages<Toy>; 4],
    works: [Toy; 4],
}

const LANE: u32 = 4;
/// The source's two outputs (lanes A and B), the replicas' outputs.
const SPLIT_SPANS: [Span; 4] = [
    Span {
        lo: 0,
        count: LANE,
        size: BUF,
    },
    Span {
        lo: 2048,
        count: LANE,
        size: BUF,
    },
    Span {
        lo: 4096,
        count: LANE,
        size: BUF,
    },
    Span {
        lo: 6144,
        count: LANE,
        size: BUF,
    },
];

impl Split {
    fn new() -> Self {
        let pool = memory(4);
        let edges: Vec<_> = SPLIT_SPANS
            .iter()
            .map(|span| {
                let e = memory(EDGE_PAGES);
                // Safety: leaked page-aligned memory; flowmgr's role.
                unsafe { edge::format(e.0, EDGE_BYTES, pool.1 as u64, *span) }.unwrap();
                Cap::Region(e.0, e.1)
            })
            .collect();
        let mut me = Self {
            os: FakeOs::default(),
            stages: std::array::from_fn(|t| Stages::new(config(t))),
            works: Default::default(),
        };
        let region = Cap::Region(pool.0, pool.1);
        let grants: [Vec<(Grant, Cap)>; 4] = [
            vec![
                (Grant::Output, edges[0]),
                (Grant::Output2, edges[1]),
                (Grant::WakeDownstream, Cap::Bell(1)),
                (Grant::WakeDownstream2, Cap::Bell(2)),
            ],
            vec![
                (Grant::Input, edges[0]),
                (Grant::Output, edges[2]),
                (Grant::WakeUpstream, Cap::Bell(0)),
                (Grant::WakeDownstream, Cap::Bell(3)),
            ],
            vec![
                (Grant::Input, edges[1]),
                (Grant::Output, edges[3]),
                (Grant::WakeUpstream, Cap::Bell(0)),
                (Grant::WakeDownstream, Cap::Bell(3)),
            ],
            vec![
                (Grant::Input, edges[2]),
                (Grant::Input2, edges[3]),
                (Grant::WakeUpstream, Cap::Bell(1)),
                (Grant::WakeUpstream2, Cap::Bell(2)),
            ],
        ];
        for (t, gs) in grants.iter().enumerate() {
            for &(g, c) in std::iter::once(&(Grant::Pool, region)).chain(gs) {
                me.os.slots.insert(RECEIVE, c);
                let a = me.stages[t].handle(
                    &mut me.works[t],
                    &mut me.os,
                    label::ATTACH,
                    &[0, g as u64],
                    Some(RECEIVE),
                );
                assert_eq!(a.status, StageStatus::Ok, "task {t} grant {g:?}");
            }
        }
        let [a, b, ra, rb] = SPLIT_SPANS.map(Some);
        let starts = [
            Start {
                output2: b,
                ..spec(0, StageSpec::Pattern { count: 1, seed: 1 }, None, a)
            },
            Start {
                replica: true,
                ..spec(0, StageSpec::Crc32c, a, ra)
            },
            Start {
                replica: true,
                ..spec(0, StageSpec::Crc32c, b, rb)
            },
            Start {
                input2: rb,
                ..spec(0, StageSpec::Null, ra, None)
            },
        ];
        for (t, st) in starts.into_iter().enumerate() {
            let status = start(&mut me.stages[t], &mut me.works[t], &mut me.os, st);
            assert_eq!(status, StageStatus::Ok, "start {t}");
        }
        me
    }

    /// One step of task `t`: the source makes up to `total` buffers
    /// (byte 0 its number), the replicas copy and fail for good on the
    /// numbers in `fail`, the sink notes what it gets.
    fn step(
        &mut self,
        t: usize,
        total: u32,
        made: &mut u32,
        fail: &[u32],
        got: &mut Vec<(u32, u8)>,
    ) -> Step {
        let os = &mut self.os;
        let mut last = Step::WaitOther;
        match t {
            0 => self.stages[0].run(|_, io, _| {
                last = io.source(os, |dst| {
                    if *made == total {
                        return Err(Failure::Permanent);
                    }
                    dst[0] = *made as u8;
                    *made += 1;
                    Ok(Some(1))
                });
                last
            }),
            1 | 2 => self.stages[t].run(|_, io, _| {
                last = io.transform(os, |src, dst| {
                    if fail.contains(&u32::from(src[0])) {
                        return Err(Failure::Permanent);
                    }
                    dst[0] = src[0];
                    Ok(1)
                });
                last
            }),
            _ => self.stages[3].run(|_, io, _| {
                last = io.sink(os, |src, seq| {
                    got.push((seq, src[0]));
                    Ok(())
                });
                last
            }),
        };
        last
    }
}

/// Runs a split flow of `total` buffers, stepping the tasks in the order
/// `schedule` gives, then in turn until nothing moves; what the sink got.
fn run_split(total: u32, schedule: &[u8], fail: &[u32]) -> (Vec<(u32, u8)>, Split) {
    let mut sp = Split::new();
    let (mut made, mut got) = (0, Vec::new());
    for &t in schedule {
        sp.step(usize::from(t % 4), total, &mut made, fail, &mut got);
    }
    loop {
        let mut moved = false;
        for t in 0..4 {
            moved |= sp.step(t, total, &mut made, fail, &mut got) == Step::Progress;
        }
        if !moved {
            break;
        }
    }
    (got, sp)
}

#[test]
fn slots_fit_every_flow_and_second_lanes_for_the_first_few() {
    // flowsoft's 59 slots: 8 flows of 5, then 4 flows' second lanes.
    let c = Config::fitting(5, 0, 59);
    assert_eq!((c.flows, c.lanes), (8, 4));
    // A driver's fewer: every flow, no second lanes.
    assert_eq!(Config::fitting(20, 0, 42).lanes, 0);
    assert_eq!(Config::fitting(5, 0, 20).flows, 4);
    // A flow without lane slots is refused a second lane, and nothing is
    // left in the receive slot.
    let mut rig = Rig::new();
    let mut w = Toy::default();
    let mut st = Stages::new(Config { lanes: 1, ..CONFIG });
    rig.os
        .slots
        .insert(RECEIVE, Cap::Region(rig.edges[0].0, EDGE_BYTES));
    let a = st.handle(
        &mut w,
        &mut rig.os,
        label::ATTACH,
        &[1, Grant::Input2 as u64],
        Some(RECEIVE),
    );
    assert_eq!(a.status, StageStatus::Unsupported);
    assert!(rig.os.slots.is_empty());
    // Lane slots sit after every flow's own and never overlap them.
    let mut all: Vec<usize> = (0..2)
        .flat_map(|f| (0..9).map(move |g| (f, g)))
        .map(|(f, g)| st_slot(&CONFIG, f, g))
        .collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 18);
}

fn st_slot(c: &Config, flow: u32, g: u64) -> usize {
    let s: Stages<Toy> = Stages::new(*c);
    s.slot_of(flow, Grant::from_word(g).unwrap())
}

#[test]
fn a_split_flow_alternates_lanes_and_merges_in_order() {
    // Lane B's replica runs first and more: the sink still gets 0, 1, ...
    let (got, _) = run_split(10, &[0, 0, 0, 0, 0, 0, 2, 2, 2, 3, 1, 3], &[]);
    let want: Vec<(u32, u8)> = (0..10).map(|i| (i, i as u8)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_replica_s_failure_passes_an_empty_buffer_and_the_merge_goes_on() {
    // Replica B (odd numbers) gives up on 3, replica A on 4.
    let (got, sp) = run_split(10, &[], &[3, 4]);
    let want: Vec<(u32, u8)> = [0, 1, 2, 5, 6, 7, 8, 9]
        .iter()
        .map(|&i| (i, i as u8))
        .collect();
    assert_eq!(got, want);
    let fails: u64 = (1..3).map(|t| sp.stages[t].stats_failures(0)).sum();
    assert_eq!(fails, 2);
}

proptest::proptest! {
    /// Whatever order the four tasks run in, and whichever buffers the
    /// replicas give up on, the merge hands the sink every other buffer
    /// once, in order.
    #[test]
    fn any_interleaving_merges_in_order(
        schedule in proptest::collection::vec(0u8..4, 0..300),
        fail in proptest::collection::vec(0u32..40, 0..6),
    ) {
        let (got, _) = run_split(40, &schedule, &fail);
        let want: Vec<(u32, u8)> = (0..40).filter(|i| !fail.contains(i)).map(|i| (i, i as u8)).collect();
        proptest::prop_assert_eq!(got, want);
    }
}

mod batch;
