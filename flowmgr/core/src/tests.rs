//! The manager over a model of stage tasks: wiring order and capabilities,
//! every refusal, pause/resume, destroy, and each step of the ladder with
//! the faults that cause it.

use crate::ladder::{FALLBACK, REDIRECT, RESTART, RETRY};
use crate::refusal::{bad, NO_STAGE, STAGE_DEAD};
use crate::*;
use conflux_flow_protocol::api::{FlowRequest, FlowState, FlowStatus, REQUEST_WORDS};
use conflux_flow_protocol::edge::{EdgeStats, MAX_BUFFERS};
use conflux_flow_protocol::stage::{
    info, label, Cipher, Direction, Engine, Grant, Key, Mode, StageSpec, StageStatus, Start,
};
use conflux_flow_protocol::Span;
use std::collections::HashMap;

#[derive(Default, Debug)]
struct Model {
    grants: Vec<(Grant, Cap)>,
    start: Option<Start>,
    paused: bool,
    /// What STATS reports as the stage's figures (`[40 + n, 1]` if unset).
    figures: Option<[u64; 2]>,
}

#[derive(Default)]
struct Task {
    kinds: u64,
    device: bool,
    dead: bool,
    /// The next call fails (the kernel's `DeadPeer` for a restarted
    /// task), and the instance after it knows no flows.
    restarted: bool,
    refuse_start: bool,
    /// Lives but never answers: every call runs out its deadline.
    silent: bool,
    /// Refuses second-lane grants (no capability slots for them).
    no_lanes: bool,
    broken: bool,
    retries: u64,
    flows: HashMap<u64, Model>,
}

#[derive(Default)]
struct Fake {
    tasks: Vec<Task>,
    calls: Vec<(usize, u32, u64)>,
    formatted: Vec<(usize, usize, Span)>,
    revoked: Vec<usize>,
    notified: usize,
    edges: HashMap<(usize, usize), EdgeStats>,
    /// Set these figures on (task, flow number) when an edge is read: a
    /// stage that moved on between flowmgr's STATS call and its look at
    /// the edges.
    on_observe: Option<(usize, u64, [u64; 2])>,
    rung: Vec<usize>,
    /// Stages reported silent: (flow id word, stage, task).
    silenced: Vec<(u64, usize, usize)>,
}

fn reply(status: StageStatus, words: &[u64]) -> Result<Reply, Unanswered> {
    let mut r = Reply {
        label: status as u32,
        len: words.len(),
        ..Reply::default()
    };
    r.words[..words.len()].copy_from_slice(words);
    Ok(r)
}

impl Sys for Fake {
    fn call(
        &mut self,
        task: usize,
        l: u32,
        words: &[u64],
        cap: Option<Cap>,
    ) -> Result<Reply, Unanswered> {
        let t = &mut self.tasks[task];
        if t.dead {
            return Err(Unanswered::Dead);
        }
        if t.restarted {
            t.restarted = false;
            t.flows.clear();
            return Err(Unanswered::Dead);
        }
        let n = words.first().copied().unwrap_or(u64::MAX);
        self.calls.push((task, l, n));
        if t.silent {
            return Err(Unanswered::Silent);
        }
        match l {
            label::INFO => reply(StageStatus::Ok, &[t.kinds, u64::from(t.device)]),
            label::ATTACH => {
                let g = Grant::from_word(words[1]).unwrap();
                if t.no_lanes && g as u64 >= Grant::Input2 as u64 {
                    return reply(StageStatus::Unsupported, &[g as u64]);
                }
                t.flows.entry(n).or_default().grants.push((g, cap.unwrap()));
                reply(StageStatus::Ok, &[])
            }
            label::START => {
                let s = Start::decode(words).unwrap();
                let Some(f) = t.flows.get_mut(&n) else {
                    return reply(StageStatus::NotAttached, &[]);
                };
                if t.refuse_start {
                    return reply(StageStatus::DeviceRefused, &[]);
                }
                f.start = Some(s);
                reply(StageStatus::Ok, &[])
            }
            label::STATS => match t.flows.get(&n) {
                Some(f) => {
                    let st = 1 + u64::from(f.paused) + 2 * u64::from(t.broken);
                    let [a, b] = f.figures.unwrap_or([40 + n, 1]);
                    reply(StageStatus::Ok, &[st, t.retries, 0, a, b])
                }
                None => reply(StageStatus::UnknownFlow, &[n]),
            },
            label::PAUSE | label::RESUME => match t.flows.get_mut(&n) {
                Some(f) => {
                    f.paused = l == label::PAUSE;
                    reply(StageStatus::Ok, &[])
                }
                None => reply(StageStatus::UnknownFlow, &[n]),
            },
            label::STOP => match t.flows.remove(&n) {
                Some(_) => reply(StageStatus::Ok, &[0, 0]),
                None => reply(StageStatus::UnknownFlow, &[n]),
            },
            _ => reply(StageStatus::BadLabel, &[]),
        }
    }
    fn format(&mut self, slot: usize, edge: usize, span: Span) -> bool {
        self.formatted.push((slot, edge, span));
        self.edges.insert((slot, edge), EdgeStats::default());
        true
    }
    fn observe(&mut self, slot: usize, edge: usize) -> Option<EdgeStats> {
        if let Some((t, n, figures)) = self.on_observe.take() {
            if let Some(f) = self.tasks[t].flows.get_mut(&n) {
                f.figures = Some(figures);
            }
        }
        self.edges.get(&(slot, edge)).copied()
    }
    fn revoke(&mut self, slot: usize) {
        self.revoked.push(slot);
    }
    fn notify(&mut self, _slot: usize) {
        self.notified += 1;
    }
    fn ring(&mut self, task: usize) {
        self.rung.push(task);
    }
    fn stage_silent(&mut self, flow: u64, stage: usize, task: usize) {
        self.silenced.push((flow, stage, task));
    }
}

const PATTERN: u64 = 1 << 6;
const CIPHER: u64 = 1 << 3;
const CHECK: u64 = 1 << 7;
const NULL: u64 = 1 << 5;

/// 0: software (pattern, cipher, check, null); 1, 2: device ciphers.
fn system() -> Fake {
    let task = |kinds, device| Task {
        kinds,
        device,
        ..Task::default()
    };
    Fake {
        tasks: vec![
            task(PATTERN | CIPHER | CHECK | NULL, false),
            task(CIPHER, true),
            task(CIPHER, true),
        ],
        ..Fake::default()
    }
}

fn cipher(direction: Direction, engine: Engine) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction,
        engine,
        key: Key::new(&[7; 16]).unwrap(),
        iv: [1; 16],
    })
}

fn words(r: &FlowRequest) -> Vec<u64> {
    let mut w = [0; REQUEST_WORDS];
    let n = r.encode(&mut w).unwrap();
    w[..n].to_vec()
}

/// pattern → encrypt (any engine) → decrypt (software) → check.
fn round_trip() -> Vec<u64> {
    words(
        &FlowRequest::new(
            StageSpec::Pattern {
                count: 100,
                seed: 7,
            },
            &[
                cipher(Direction::Encrypt, Engine::Any),
                cipher(Direction::Decrypt, Engine::Software),
            ],
            StageSpec::Check { seed: 7 },
            0,
            0,
            1024,
        )
        .unwrap(),
    )
}

const APP: u64 = 5;

fn manager(sys: &mut Fake) -> Manager {
    let mut m = Manager::new(sys.tasks.len(), 2, 2 << 20);
    m.learn(sys);
    m
}

#[test]
fn create_places_attaches_and_starts_sink_first() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    sys.calls.clear();
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(sys.formatted.len(), 3);
    // Encrypt went to a device, decrypt to software.
    let enc = &sys.tasks[1].flows[&0];
    assert_eq!(
        enc.grants,
        [
            (Grant::Pool, Cap::Pool { slot: 0 }),
            (Grant::Input, Cap::Edge { slot: 0, edge: 0 }),
            (Grant::Output, Cap::Edge { slot: 0, edge: 1 }),
            (Grant::WakeDownstream, Cap::Bell { task: 0 }),
            (Grant::WakeUpstream, Cap::Bell { task: 0 }),
        ]
    );
    let source = &sys.tasks[0].flows[&0];
    assert_eq!(source.grants.len(), 3, "pool, output, downstream bell");
    assert_eq!(source.start.unwrap().input, None);
    let sink = &sys.tasks[0].flows[&2];
    assert_eq!(sink.start.unwrap().output, None);
    assert_eq!(sink.start.unwrap().input, Some(sys.formatted[2].2));
    let starts: Vec<(usize, u64)> = sys
        .calls
        .iter()
        .filter(|c| c.1 == label::START)
        .map(|c| (c.0, c.2))
        .collect();
    assert_eq!(starts, [(0, 2), (0, 1), (1, 0), (0, 0)], "sink first");
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(
        (s.state, s.edge_count, s.ladder),
        (FlowState::Running, 3, [0; 4])
    );
}

#[test]
fn refusals_say_what_and_where() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    assert_eq!(
        m.create(&mut sys, &[], APP).unwrap_err().status,
        FlowStatus::BadRequest
    );
    let mut w = round_trip();
    w[3] = 99; // stage 0's kind
    let r = m.create(&mut sys, &w, APP).unwrap_err();
    assert_eq!(
        (r.status, r.stage, r.detail),
        (FlowStatus::BadRequest, 0, bad::SPEC)
    );
    let udp = words(
        &FlowRequest::new(StageSpec::Udp { port: 9 }, &[], StageSpec::Null, 0, 0, 64).unwrap(),
    );
    assert_eq!(
        m.create(&mut sys, &udp, APP).unwrap_err(),
        Refusal::no_stage(0)
    );
    let big = words(
        &FlowRequest::new(
            StageSpec::Pattern { count: 1, seed: 1 },
            &[],
            StageSpec::Null,
            0,
            0,
            64 * 1024,
        )
        .unwrap(),
    );
    let mut small = Manager::new(3, 1, 32 * 1024);
    small.learn(&mut sys);
    let r = small.create(&mut sys, &big, APP).unwrap_err();
    assert_eq!(
        (r.status, r.detail),
        (FlowStatus::BadRequest, bad::POOL_TOO_SMALL)
    );
    // A stage that refuses START: the flow is unwound, numbers freed.
    sys.tasks[1].refuse_start = true;
    sys.tasks[2].refuse_start = true;
    let r = m.create(&mut sys, &round_trip(), APP).unwrap_err();
    assert_eq!(
        (r.status, r.stage, r.detail),
        (
            FlowStatus::StageRefused,
            1,
            StageStatus::DeviceRefused as u64
        )
    );
    assert!(sys.tasks.iter().all(|t| t.flows.is_empty()));
    assert_eq!(sys.revoked, [0]);
    assert_eq!(m.registry().in_use(0) + m.registry().in_use(1), 0);
    sys.tasks[1].refuse_start = false;
    sys.tasks[1].dead = true;
    sys.tasks[2].dead = true;
    sys.tasks[0].kinds &= !CIPHER;
    let r = m.create(&mut sys, &round_trip(), APP).unwrap_err();
    assert_eq!(
        (r.status, r.stage, r.detail),
        (FlowStatus::StageRefused, 1, STAGE_DEAD)
    );
    // Unknown and foreign ids.
    for op in 0..4 {
        let e = match op {
            0 => m.stats(&mut sys, 0x100, APP).unwrap_err(),
            1 => m.pause(&mut sys, 0x100, APP, true).unwrap_err(),
            2 => m.pause(&mut sys, u64::MAX, APP, false).unwrap_err(),
            _ => m.destroy(&mut sys, 0x100, APP).unwrap_err(),
        };
        assert_eq!((e.status, e.stage), (FlowStatus::UnknownFlow, NO_STAGE));
    }
}

/// With clients named, each keeps a slot for itself: one application
/// cannot take every slot (the manager has two).
#[test]
fn a_client_cannot_hold_the_slot_another_is_owed() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    m.set_clients(crate::quota::Clients {
        badges: &[APP, APP + 1],
        quotas: &[None, None],
    });
    m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(
        m.create(&mut sys, &round_trip(), APP).unwrap_err().status,
        FlowStatus::OverQuota
    );
    assert!(m.create(&mut sys, &round_trip(), APP + 1).is_ok());
    assert_eq!(
        m.create(&mut sys, &round_trip(), 0x77).unwrap_err().status,
        FlowStatus::OverQuota,
        "a badge the manifest does not list is owed nothing"
    );
}

#[test]
fn slots_run_out_and_ids_are_owned() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let a = m.create(&mut sys, &round_trip(), APP).unwrap();
    let b = m.create(&mut sys, &round_trip(), APP + 1).unwrap();
    assert_eq!(
        m.create(&mut sys, &round_trip(), APP).unwrap_err().status,
        FlowStatus::NoSlot
    );
    assert_eq!(
        m.stats(&mut sys, b.word(), APP).unwrap_err().status,
        FlowStatus::NotYours
    );
    assert_eq!(
        m.destroy(&mut sys, b.word(), APP).unwrap_err().status,
        FlowStatus::NotYours
    );
    assert_eq!(m.list(APP).map(|(id, _)| id).collect::<Vec<_>>(), [a]);
    assert_eq!(m.destroy(&mut sys, a.word(), APP), Ok(0));
    assert_eq!(sys.revoked, [0]);
    assert_eq!(
        m.stats(&mut sys, a.word(), APP).unwrap_err().status,
        FlowStatus::UnknownFlow
    );
    let c = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(c.slot(), a.slot());
    assert_eq!(
        m.destroy(&mut sys, a.word(), APP).unwrap_err().status,
        FlowStatus::UnknownFlow
    );
    // Both flows' stages hold their own numbers.
    assert_eq!(sys.tasks[0].flows.len(), 6);
}

#[test]
fn a_client_gone_loses_all_its_flows_and_no_one_elses() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let a = m.create(&mut sys, &round_trip(), APP).unwrap();
    let b = m.create(&mut sys, &round_trip(), APP + 1).unwrap();
    let mut freed = Vec::new();
    assert_eq!(m.end_client(&mut sys, APP, |_, slot| freed.push(slot)), 1);
    assert_eq!(freed, [a.slot()]);
    assert_eq!(sys.revoked, [a.slot()], "torn down as DESTROY does");
    assert_eq!(m.list(APP).count(), 0);
    assert_eq!(
        m.stats(&mut sys, a.word(), APP).unwrap_err().status,
        FlowStatus::UnknownFlow
    );
    assert!(
        m.stats(&mut sys, b.word(), APP + 1).is_ok(),
        "the other client's flow runs on"
    );
    assert_eq!(m.end_client(&mut sys, APP, |_, _| ()), 0, "nothing left");
    // Its slot is free again: the client's next instance gets one.
    let c = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(c.slot(), a.slot());
}

#[test]
fn pause_resume_reach_every_stage_and_finished_flows_refuse() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    m.pause(&mut sys, id.word(), APP, true).unwrap();
    assert!(sys
        .tasks
        .iter()
        .flat_map(|t| t.flows.values())
        .all(|f| f.paused));
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Paused
    );
    m.pause(&mut sys, id.word(), APP, false).unwrap();
    assert!(sys
        .tasks
        .iter()
        .flat_map(|t| t.flows.values())
        .all(|f| !f.paused));
    // 100 records made and taken through all three edges: done.
    for e in 0..3 {
        let s = sys.edges.get_mut(&(0, e)).unwrap();
        s.upstream[0] = 100;
        s.downstream[0] = 100;
    }
    let before = sys.notified;
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Done
    );
    assert_eq!(sys.notified, before + 1);
    let e = m.pause(&mut sys, id.word(), APP, true).unwrap_err();
    assert_eq!(
        (e.status, e.detail),
        (FlowStatus::BadRequest, bad::FINISHED)
    );
}

#[test]
fn a_flow_is_not_done_while_buffers_are_in_flight() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    for e in 0..3 {
        let s = sys.edges.get_mut(&(0, e)).unwrap();
        s.upstream[0] = 100;
        s.downstream[0] = if e == 2 { 99 } else { 100 };
        s.upstream[1] = 100 * 1024;
    }
    sys.edges.get_mut(&(0, 0)).unwrap().upstream[2] = 3;
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(s.state, FlowState::Running);
    assert_eq!(
        (s.edges[0].buffers, s.edges[0].bytes, s.edges[0].drops),
        (100, 102400, 3)
    );
}

#[test]
fn a_file_source_is_done_once_it_finished_and_its_buffers_drained() {
    const FILE: u64 = 1 << 8;
    let mut sys = system();
    sys.tasks.push(Task {
        kinds: FILE,
        ..Task::default()
    });
    let mut m = manager(&mut sys);
    let path = conflux_flow_protocol::stage::FilePath::new("/flows/in").unwrap();
    let req = FlowRequest::new(
        StageSpec::File {
            path,
            offset: 0,
            length: u64::MAX,
        },
        &[],
        StageSpec::Check { seed: 7 },
        0,
        0,
        1024,
    )
    .unwrap();
    let id = m.create(&mut sys, &words(&req), APP).unwrap();
    let source = |sys: &mut Fake, figures| {
        sys.tasks[3].flows.get_mut(&0).unwrap().figures = Some(figures);
    };
    let edge = |sys: &mut Fake, up, down| {
        let s = sys.edges.get_mut(&(0, 0)).unwrap();
        s.upstream[0] = up;
        s.downstream[0] = down;
    };
    let state = |m: &mut Manager, sys: &mut Fake| m.stats(sys, id.word(), APP).unwrap().state;
    // Still reading: every buffer so far taken, but more may come.
    source(&mut sys, [5, 0]);
    edge(&mut sys, 5, 5);
    assert_eq!(state(&mut m, &mut sys), FlowState::Running);
    // Finished, the sink not yet through its buffers.
    source(&mut sys, [7, 1]);
    edge(&mut sys, 7, 6);
    assert_eq!(state(&mut m, &mut sys), FlowState::Running);
    // Finished and drained: done, and the application is told. The sink
    // took its last buffer after flowmgr asked it and before it read the
    // edges: the figures of the first STATS that says Done are final.
    edge(&mut sys, 7, 7);
    let sink = sys.tasks[0].flows.keys().copied().max().unwrap();
    sys.on_observe = Some((0, sink, [7, 0]));
    let before = sys.notified;
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!((s.state, s.sink), (FlowState::Done, [7, 0]));
    assert_eq!(sys.notified, before + 1);
}

#[test]
fn an_empty_file_source_is_done_at_once() {
    let mut sys = system();
    sys.tasks.push(Task {
        kinds: 1 << 8,
        ..Task::default()
    });
    let mut m = manager(&mut sys);
    let path = conflux_flow_protocol::stage::FilePath::new("/empty").unwrap();
    let req = FlowRequest::new(
        StageSpec::File {
            path,
            offset: 0,
            length: u64::MAX,
        },
        &[],
        StageSpec::Null,
        0,
        0,
        1024,
    )
    .unwrap();
    let id = m.create(&mut sys, &words(&req), APP).unwrap();
    sys.tasks[3].flows.get_mut(&0).unwrap().figures = Some([0, 1]);
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Done
    );
}

#[test]
fn the_ladder_restarts_redirects_falls_back_then_terminates() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    let stats = |m: &mut Manager, sys: &mut Fake| m.stats(sys, id.word(), APP).unwrap();
    // Retries the stages report are counted.
    sys.tasks[1].retries = 4;
    assert_eq!(stats(&mut m, &mut sys).ladder[RETRY], 4);
    // The device stage's task restarts: wired again there.
    sys.tasks[1].restarted = true;
    let s = stats(&mut m, &mut sys);
    assert_eq!((s.state, s.ladder[RESTART]), (FlowState::Recovering, 1));
    assert!(sys.tasks[1].flows[&0].start.is_some());
    assert_eq!(sys.formatted.len(), 6, "edges formatted again");
    assert_eq!(stats(&mut m, &mut sys).state, FlowState::Running);
    // It dies for good: another device.
    sys.tasks[1].dead = true;
    let s = stats(&mut m, &mut sys);
    assert_eq!((s.ladder[RESTART], s.ladder[REDIRECT]), (1, 1));
    assert!(sys.tasks[2].flows[&0].start.is_some());
    // The neighbours were wired to the new task's doorbell.
    assert!(sys.tasks[0].flows[&0]
        .grants
        .contains(&(Grant::WakeDownstream, Cap::Bell { task: 2 })));
    // No device left: software.
    sys.tasks[2].dead = true;
    let s = stats(&mut m, &mut sys);
    assert_eq!(s.ladder[FALLBACK], 1);
    assert_eq!(sys.tasks[0].flows.len(), 4, "all four stages in software");
    assert_eq!(stats(&mut m, &mut sys).state, FlowState::Running);
    // Software dies too: terminated, stages stopped, capabilities revoked.
    sys.tasks[0].dead = true;
    let n = sys.notified;
    let s = stats(&mut m, &mut sys);
    assert_eq!(s.state, FlowState::Terminated);
    assert!(sys.notified > n);
    assert_eq!(*sys.revoked.last().unwrap(), 0);
    assert_eq!(m.registry().in_use(0), 0);
    // A terminated flow still answers until destroyed.
    assert_eq!(stats(&mut m, &mut sys).state, FlowState::Terminated);
    assert_eq!(m.destroy(&mut sys, id.word(), APP), Ok(0));
}

#[test]
fn a_broken_edge_is_mended_by_rewiring_and_a_flapping_stage_moves() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    sys.tasks[1].broken = true;
    // One step per look: two restarts on task 1 (broken again each
    // time), then elsewhere.
    let mut s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!((s.state, s.ladder[RESTART]), (FlowState::Recovering, 1));
    for _ in 0..2 {
        s = m.stats(&mut sys, id.word(), APP).unwrap();
    }
    assert_eq!((s.ladder[RESTART], s.ladder[REDIRECT]), (2, 1));
    assert!(sys.tasks[1].flows.is_empty());
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Running
    );
}

#[test]
fn a_tick_climbs_the_ladder_and_finishes_flows_without_stats() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    assert!(!m.watching(), "nothing to watch without flows");
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert!(m.watching());
    // The device stage dies for good; only ticks look.
    sys.tasks[1].dead = true;
    let n = sys.notified;
    m.watch(&mut sys);
    assert!(
        sys.tasks[2].flows[&0].start.is_some(),
        "redirected on a tick"
    );
    assert!(sys.notified > n, "the application was told");
    // Both device tasks gone: the next tick falls back to software.
    sys.tasks[2].dead = true;
    m.watch(&mut sys);
    assert_eq!(sys.tasks[0].flows.len(), 4, "all four stages in software");
    // A tick that finds every stage well ends the recovery.
    m.watch(&mut sys);
    // Every record through every edge: a tick marks the flow done, and
    // then there is nothing left to watch.
    for e in 0..3 {
        let s = sys.edges.get_mut(&(0, e)).unwrap();
        s.upstream[0] = 100;
        s.downstream[0] = 100;
    }
    let n = sys.notified;
    m.watch(&mut sys);
    assert!(sys.notified > n);
    assert!(!m.watching());
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(s.state, FlowState::Done);
    assert_eq!((s.ladder[REDIRECT], s.ladder[FALLBACK]), (1, 1));
}

#[test]
fn a_paused_flow_is_not_watched() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    m.pause(&mut sys, id.word(), APP, true).unwrap();
    assert!(!m.watching());
    sys.tasks[1].dead = true;
    let calls = sys.calls.len();
    m.watch(&mut sys);
    assert_eq!(sys.calls.len(), calls, "a tick leaves a paused flow alone");
}

#[test]
fn a_paused_flow_stays_paused_across_recovery() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    m.pause(&mut sys, id.word(), APP, true).unwrap();
    sys.tasks[1].restarted = true;
    m.stats(&mut sys, id.word(), APP).unwrap();
    assert!(sys.tasks[1].flows[&0].paused);
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Paused
    );
}

#[test]
fn refusals_display_their_detail() {
    let r = Refusal::stage_refused(2, Some(StageStatus::Unsupported as u32));
    assert_eq!(
        r.to_string(),
        "a stage's task refused to start its part of the flow: stage 2: this stage task cannot do that kind of work"
    );
    let d = Refusal::decode(FlowStatus::BadRequest as u32, &r.words()).unwrap();
    assert_eq!(d.stage, 2);
    assert_eq!(Refusal::decode(0, &[]), None);
    assert_eq!(Refusal::decode(99, &[]), None);
    assert!(Refusal::no_stage(1).to_string().ends_with("(stage 1)"));
    assert_eq!(
        Refusal::bad(bad::FINISHED).to_string(),
        "bad request: the flow is done or terminated: destroy it"
    );
    let spec = Refusal {
        stage: 2,
        ..Refusal::bad(bad::SPEC)
    };
    assert_eq!(
        spec.to_string(),
        "bad request: stage 2: its spec is malformed"
    );
    assert_eq!(info::DEVICE, 1);
}

mod hostile {
    use super::*;
    use crate::slots::FlowId;
    use proptest::prelude::*;

    proptest! {
        /// Any words from any client, any ids, stage tasks restarting and
        /// dying in between: nothing panics, and once every flow is
        /// destroyed no stage holds a flow number or a flow.
        #[test]
        fn any_requests_leave_nothing_behind(
            ops in proptest::collection::vec(
                (0u8..7, proptest::collection::vec(any::<u64>(), 0..40), any::<u64>(), 0u64..3),
                0..40,
            ),
            seed in proptest::collection::vec(0usize..6, 0..4),
        ) {
            let mut sys = system();
            let mut m = manager(&mut sys);
            let mut made = Vec::new();
            for (op, mut words, id, owner) in ops {
                // Half the creates start from a real request, mutated.
                if op == 0 && words.len() % 2 == 0 {
                    let mut w = round_trip();
                    for (k, &i) in seed.iter().enumerate() {
                        if let Some(x) = w.get_mut(i) {
                            *x ^= words.get(k).copied().unwrap_or(1);
                        }
                    }
                    words = w;
                }
                let id = made.get(id as usize % (made.len() + 1)).map_or(id, |f: &FlowId| f.word());
                match op {
                    0 => {
                        if let Ok(f) = m.create(&mut sys, &words, owner) {
                            made.push(f);
                        }
                    }
                    1 => { let _ = m.stats(&mut sys, id, owner); }
                    2 => { let _ = m.pause(&mut sys, id, owner, true); }
                    3 => { let _ = m.pause(&mut sys, id, owner, false); }
                    4 => { let _ = m.destroy(&mut sys, id, owner); }
                    // Faults: a task restarts (its flows forgotten), or
                    // dies, or comes back.
                    5 => sys.tasks[id as usize % 3].restarted = true,
                    _ => {
                        let t = &mut sys.tasks[id as usize % 3];
                        t.dead = !t.dead;
                        t.flows.clear();
                    }
                }
            }
            for t in &mut sys.tasks {
                t.dead = false;
            }
            for owner in 0..3 {
                let ids: Vec<FlowId> = m.list(owner).map(|(id, _)| id).collect();
                for id in ids {
                    prop_assert!(m.destroy(&mut sys, id.word(), owner).is_ok());
                }
            }
            for t in 0..sys.tasks.len() {
                prop_assert_eq!(m.registry().in_use(t), 0);
                prop_assert!(sys.tasks[t].flows.is_empty());
            }
        }
    }
}

#[test]
fn a_restarted_manager_stops_its_predecessor_s_flows_and_revokes_every_slot() {
    let mut sys = system();
    // Nothing to take back on a first boot.
    let fresh = reclaim::reclaim(&mut sys, 3, 2);
    assert_eq!(fresh, reclaim::Reclaimed::default());
    assert_eq!(sys.revoked, [0, 1]);
    let mut old = manager(&mut sys);
    let id = old.create(&mut sys, &round_trip(), APP).unwrap();
    let running: usize = sys.tasks.iter().map(|t| t.flows.len()).sum();
    assert_eq!(running, 4);
    // The old instance dies with its table; a task also died meanwhile.
    let _ = old;
    sys.tasks[2].dead = true;
    sys.revoked.clear();
    let found = reclaim::reclaim(&mut sys, 3, 2);
    assert_eq!(
        found,
        reclaim::Reclaimed {
            stopped: 4,
            silent: 1
        }
    );
    assert!(sys.tasks.iter().all(|t| t.flows.is_empty()));
    assert_eq!(sys.revoked, [0, 1]);
    // The new instance's ids do not take the old one's.
    let mut new = Manager::new(3, 2, 2 << 20);
    new.start_generations_at(0x1234_5678);
    new.learn(&mut sys);
    assert_eq!(
        new.stats(&mut sys, id.word(), APP).unwrap_err(),
        Refusal::new(FlowStatus::UnknownFlow)
    );
    let again = new.create(&mut sys, &round_trip(), APP).unwrap();
    assert_ne!(again, id);
}

/// pattern → null at `rate` bytes/s, priority 6.
fn limited(rate: u64) -> Vec<u64> {
    words(
        &FlowRequest::new(
            StageSpec::Pattern { count: 10, seed: 1 },
            &[],
            StageSpec::Null,
            6,
            rate,
            1024,
        )
        .unwrap(),
    )
}

#[test]
fn the_source_gets_the_rate_every_stage_the_priority_and_ticks_ring_it() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    // Without a measured TSC rate a limit cannot be kept: refused.
    let r = m.create(&mut sys, &limited(4096), APP).unwrap_err();
    assert_eq!(
        (r.status, r.detail),
        (FlowStatus::BadRequest, bad::NO_CLOCK)
    );
    m.set_tsc_hz(3_000_000_000);
    let id = m.create(&mut sys, &limited(4096), APP).unwrap();
    let src = sys.tasks[0].flows[&0].start.unwrap();
    let sink = sys.tasks[0].flows[&1].start.unwrap();
    assert_eq!(
        (src.sched.priority, src.sched.rate, src.sched.tsc_hz),
        (6, 4096, 3_000_000_000)
    );
    assert_eq!((sink.sched.priority, sink.sched.rate), (6, 0));
    m.watch(&mut sys);
    assert_eq!(sys.rung, [0], "the source's task is woken");
    // Paused: nothing to wake. An unlimited flow is never rung.
    m.pause(&mut sys, id.word(), APP, true).unwrap();
    m.watch(&mut sys);
    assert_eq!(sys.rung, [0]);
    m.create(&mut sys, &limited(0), APP).unwrap();
    m.watch(&mut sys);
    assert_eq!(sys.rung, [0]);
}

fn replicated(engine: Engine) -> Vec<u64> {
    let r = FlowRequest::new(
        StageSpec::Pattern {
            count: 100,
            seed: 7,
        },
        &[
            cipher(Direction::Encrypt, engine),
            cipher(Direction::Decrypt, Engine::Software),
        ],
        StageSpec::Check { seed: 7 },
        0,
        0,
        1024,
    )
    .unwrap()
    .with_replicas(2)
    .unwrap();
    words(&r)
}

#[test]
fn replicas_at_creation_split_at_the_source_and_merge_at_the_next_stage() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    sys.calls.clear();
    let id = m
        .create(&mut sys, &replicated(Engine::Device), APP)
        .unwrap();
    // Three edges of the flow and the replica's two lanes.
    assert_eq!(sys.formatted.len(), 5);
    let (lane_in, lane_out) = (
        Cap::Edge { slot: 0, edge: 3 },
        Cap::Edge { slot: 0, edge: 4 },
    );
    // The source splits: edge 0 to device 1, edge 3 to device 2.
    let src = &sys.tasks[0].flows[&0];
    assert!(src.grants.contains(&(Grant::Output2, lane_in)));
    assert!(src
        .grants
        .contains(&(Grant::WakeDownstream2, Cap::Bell { task: 2 })));
    assert_eq!(src.start.unwrap().output2, Some(sys.formatted[3].2));
    // Both replicas are marked; the twin runs lane B's edges.
    assert!(sys.tasks[1].flows[&0].start.unwrap().replica);
    let twin = &sys.tasks[2].flows[&0];
    assert_eq!(
        twin.grants,
        [
            (Grant::Pool, Cap::Pool { slot: 0 }),
            (Grant::Input, lane_in),
            (Grant::Output, lane_out),
            (Grant::WakeDownstream, Cap::Bell { task: 0 }),
            (Grant::WakeUpstream, Cap::Bell { task: 0 }),
        ]
    );
    assert!(twin.start.unwrap().replica);
    // Decrypt (software, task 0's flow 1) merges both lanes.
    let merge = &sys.tasks[0].flows[&1];
    assert!(merge.grants.contains(&(Grant::Input2, lane_out)));
    assert!(merge
        .grants
        .contains(&(Grant::WakeUpstream2, Cap::Bell { task: 2 })));
    assert_eq!(merge.start.unwrap().input2, Some(sys.formatted[4].2));
    assert!(!merge.start.unwrap().replica);
    // Started sink first, the twin right after its replica, the source last.
    let starts: Vec<usize> = sys
        .calls
        .iter()
        .filter(|c| c.1 == label::START)
        .map(|c| c.0)
        .collect();
    assert_eq!(starts, [0, 0, 1, 2, 0]);
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!((s.replications, s.edge_count), (1, 5));
    // Done only once both lanes carried everything the source made.
    for e in [0, 1, 2, 3, 4] {
        let x = sys.edges.get_mut(&(0, e)).unwrap();
        let n = if e == 2 { 100 } else { 50 };
        x.upstream[0] = n;
        x.downstream[0] = n;
    }
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Done
    );
    // The twin's task is given back with the flow.
    m.destroy(&mut sys, id.word(), APP).unwrap();
    assert_eq!((m.registry().in_use(1), m.registry().in_use(2)), (0, 0));
}

#[test]
fn replicas_need_a_second_task_of_the_class() {
    let mut sys = system();
    sys.tasks.truncate(2);
    let mut m = manager(&mut sys);
    let r = m
        .create(&mut sys, &replicated(Engine::Device), APP)
        .unwrap_err();
    assert_eq!((r.status, r.stage), (FlowStatus::NoStage, 1));
    assert_eq!(
        m.registry().in_use(0) + m.registry().in_use(1),
        0,
        "nothing kept"
    );
    // An `Any` cipher's twin may run in software.
    m.create(&mut sys, &replicated(Engine::Any), APP).unwrap();
    assert_eq!(sys.tasks[0].flows.len(), 4);
}

/// pattern → encrypt (device) → decrypt (software) → check, as asked.
fn device_round_trip() -> Vec<u64> {
    words(
        &FlowRequest::new(
            StageSpec::Pattern {
                count: 100,
                seed: 7,
            },
            &[
                cipher(Direction::Encrypt, Engine::Device),
                cipher(Direction::Decrypt, Engine::Software),
            ],
            StageSpec::Check { seed: 7 },
            0,
            0,
            1024,
        )
        .unwrap(),
    )
}

fn set_edge(sys: &mut Fake, e: usize, queued: u32, up: u64, down: u64) {
    let x = sys.edges.get_mut(&(0, e)).unwrap();
    x.queued = queued;
    x.upstream[0] = up;
    x.downstream[0] = down;
}

#[test]
fn a_bottleneck_stage_seen_three_looks_running_is_replicated_and_the_flow_resumes() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &device_round_trip(), APP).unwrap();
    let count = sys.formatted[0].2.count;
    assert_eq!(count, MAX_BUFFERS, "the pool holds more than a ring");
    let hot = count * 3 / 4;
    // The cipher's input is 3/4 full, its output is not: hot.
    set_edge(&mut sys, 0, hot, 60, 12);
    set_edge(&mut sys, 1, hot - 1, 12, 0);
    m.watch(&mut sys);
    m.watch(&mut sys);
    // A look where it keeps up resets the count.
    set_edge(&mut sys, 0, hot - 1, 60, 13);
    m.watch(&mut sys);
    set_edge(&mut sys, 0, hot, 60, 12);
    m.watch(&mut sys);
    m.watch(&mut sys);
    assert!(sys.tasks[2].flows.is_empty(), "two looks are not enough");
    // The sink finished 40 records so far.
    set_edge(&mut sys, 2, 0, 40, 40);
    sys.calls.clear();
    m.watch(&mut sys);
    // Replicated: the second device runs lane B, five edges formatted
    // again, the sink was paused (its place noted) before every STOP.
    let twin = sys.tasks[2].flows[&0].start.expect("the replica started");
    assert!(twin.replica);
    assert_eq!(sys.formatted.len(), 3 + 5);
    let first_pause = sys.calls.iter().position(|c| c.1 == label::PAUSE).unwrap();
    let first_stop = sys.calls.iter().position(|c| c.1 == label::STOP).unwrap();
    assert!(first_pause < first_stop);
    // Source and check sink go on at record 40.
    let src = sys.tasks[0].flows[&0].start.unwrap();
    let sink = sys.tasks[0].flows[&2].start.unwrap();
    assert_eq!((src.position, sink.position), (40, 40));
    assert_eq!(src.output2, Some(sys.formatted[3 + 3].2));
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(
        (s.replications, s.edge_count, s.state),
        (1, 5, FlowState::Running)
    );
    // The sink's figures add up across the rewire: the old sink's (the
    // fake reports 40 + its number, 1) and the new one's.
    assert_eq!(s.sink, [42 + 42, 2]);
    // Done once the 60 records left went through both lanes.
    for (e, n) in [(0, 30), (3, 30), (1, 30), (4, 30), (2, 60)] {
        set_edge(&mut sys, e, 0, n, n);
    }
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Done
    );
}

#[test]
fn a_replicated_flow_is_not_replicated_again_and_a_paused_one_not_at_all() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &device_round_trip(), APP).unwrap();
    set_edge(&mut sys, 0, MAX_BUFFERS, 64, 0);
    // STATS, however often, is not the scheduler's measure.
    for _ in 0..5 {
        m.stats(&mut sys, id.word(), APP).unwrap();
    }
    assert!(sys.tasks[2].flows.is_empty(), "only ticks measure");
    m.pause(&mut sys, id.word(), APP, true).unwrap();
    for _ in 0..5 {
        m.watch(&mut sys);
    }
    assert!(sys.tasks[2].flows.is_empty(), "paused: nothing to measure");
    m.pause(&mut sys, id.word(), APP, false).unwrap();
    for _ in 0..3 {
        m.watch(&mut sys);
    }
    assert_eq!(m.stats(&mut sys, id.word(), APP).unwrap().replications, 1);
    set_edge(&mut sys, 0, MAX_BUFFERS, 64, 0);
    for _ in 0..6 {
        m.watch(&mut sys);
    }
    assert_eq!(m.stats(&mut sys, id.word(), APP).unwrap().replications, 1);
}

#[test]
fn recovery_resumes_where_the_sink_stopped() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    set_edge(&mut sys, 2, 0, 25, 25);
    // The device stage dies for good: redirected, the source going on at
    // record 25 and the check sink expecting it.
    sys.tasks[1].dead = true;
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(s.ladder[REDIRECT], 1);
    let src = sys.tasks[0].flows[&0].start.unwrap();
    let sink = sys.tasks[0].flows[&2].start.unwrap();
    assert_eq!((src.position, sink.position), (25, 25));
    // The sink itself dying means its tally is gone: start over.
    sys.tasks[0].restarted = true;
    m.stats(&mut sys, id.word(), APP).unwrap();
    let src = sys.tasks[0].flows[&0].start.unwrap();
    assert_eq!(src.position, 0);
}

#[test]
fn a_dead_replica_climbs_the_ladder_and_the_flow_resumes_with_both_lanes() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let id = m
        .create(&mut sys, &replicated(Engine::Device), APP)
        .unwrap();
    set_edge(&mut sys, 2, 0, 30, 30);
    // The second device's task dies for good: its replica moves to the
    // only device left (a second flow number there), both lanes rewired,
    // the source going on at record 30.
    sys.tasks[2].dead = true;
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(
        (s.ladder[REDIRECT], s.replications, s.edge_count),
        (1, 1, 5)
    );
    let lanes: Vec<bool> = sys.tasks[1]
        .flows
        .values()
        .map(|f| f.start.unwrap().replica)
        .collect();
    assert_eq!(lanes, [true, true]);
    assert_eq!(sys.tasks[0].flows[&0].start.unwrap().position, 30);
    assert_eq!(s.state, FlowState::Recovering);
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Running
    );
}

#[test]
fn a_sink_that_merges_is_settled_on_its_edge_before_the_replica_s() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let req = FlowRequest::new(
        StageSpec::Pattern {
            count: 100,
            seed: 7,
        },
        &[cipher(Direction::Encrypt, Engine::Device)],
        StageSpec::Null,
        0,
        0,
        1024,
    )
    .unwrap();
    m.create(&mut sys, &words(&req), APP).unwrap();
    // What an earlier flow left in the page lane B's output will use.
    let mut stale = EdgeStats::default();
    stale.downstream[0] = 1000;
    sys.edges.insert((0, 3), stale);
    set_edge(&mut sys, 0, MAX_BUFFERS - 4, 70, 10);
    set_edge(&mut sys, 1, 0, 10, 10);
    for _ in 0..3 {
        m.watch(&mut sys);
    }
    let src = sys.tasks[0].flows[&0].start.unwrap();
    assert!(src.output2.is_some(), "replicated");
    assert_eq!(src.position, 10, "the sink's own edge, not the stale one");
}

#[test]
fn a_split_the_stages_cannot_take_leaves_the_flow_running_unreplicated() {
    let mut sys = system();
    sys.tasks[0].no_lanes = true;
    let mut m = manager(&mut sys);
    let id = m.create(&mut sys, &device_round_trip(), APP).unwrap();
    set_edge(&mut sys, 0, MAX_BUFFERS - 4, 70, 10);
    set_edge(&mut sys, 2, 0, 10, 10);
    for _ in 0..3 {
        m.watch(&mut sys);
    }
    // Tried, refused, rewired as it was, going on at record 10.
    assert!(sys.tasks[2].flows.is_empty());
    assert_eq!(m.registry().in_use(2), 0, "the replica's number given back");
    let src = sys.tasks[0].flows[&0].start.unwrap();
    assert_eq!((src.output2, src.position), (None, 10));
    let s = m.stats(&mut sys, id.word(), APP).unwrap();
    assert_eq!(
        (s.state, s.replications, s.edge_count),
        (FlowState::Running, 0, 3)
    );
    // And not tried again: no more rewiring however hot it stays.
    let stops = |sys: &Fake| sys.calls.iter().filter(|c| c.1 == label::STOP).count();
    let before = stops(&sys);
    set_edge(&mut sys, 0, MAX_BUFFERS - 4, 70, 10);
    for _ in 0..6 {
        m.watch(&mut sys);
    }
    assert_eq!(stops(&sys), before);
    // Asked for at creation, the refusal is the stage's.
    let r = m
        .create(&mut sys, &replicated(Engine::Device), APP)
        .unwrap_err();
    assert_eq!(
        (r.status, r.detail),
        (FlowStatus::StageRefused, StageStatus::Unsupported as u64)
    );
}

/// Calls made to task `t` so far.
fn calls_to(sys: &Fake, t: usize) -> usize {
    sys.calls.iter().filter(|c| c.0 == t).count()
}

#[test]
fn a_stage_that_stops_answering_is_reported_moved_and_called_no_more() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    let first = m.create(&mut sys, &round_trip(), APP).unwrap();
    let second = m.create(&mut sys, &round_trip(), APP).unwrap();
    // Both encryptions on a device: the first on task 1, the second on 2
    // (the least loaded); the first's task gets stuck.
    assert!(sys.tasks[1].flows.contains_key(&0));
    sys.tasks[1].silent = true;
    let before = calls_to(&sys, 1);
    m.watch(&mut sys);
    assert_eq!(
        calls_to(&sys, 1),
        before + 1,
        "one call ran out; no STOP after it"
    );
    assert_eq!(
        sys.silenced,
        [(first.word(), 1, 1)],
        "reported with flow and stage"
    );
    // STATS looks again and finds every stage well: recovered.
    let s = m.stats(&mut sys, first.word(), APP).unwrap();
    assert_eq!((s.state, s.ladder[REDIRECT]), (FlowState::Running, 1));
    assert_eq!(s.ladder[RESTART], 0, "a stuck task is not restarted");
    assert!(sys.tasks[2].flows.len() == 2, "moved to the other device");
    assert_eq!(m.registry().silent(), 1 << 1);
    assert!(!m.registry().task(1).unwrap().known, "offered nothing");
    // The other flow never touched task 1 and took no step.
    let s = m.stats(&mut sys, second.word(), APP).unwrap();
    assert_eq!((s.state, s.ladder), (FlowState::Running, [0; 4]));
    // Later looks and destroys call it no more.
    m.watch(&mut sys);
    assert_eq!(m.destroy(&mut sys, first.word(), APP), Ok(first.slot()));
    assert_eq!(calls_to(&sys, 1), before + 1);
    // A create asks it INFO again (still stuck: one call); once it
    // answers, it is known again and takes stages.
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(calls_to(&sys, 1), before + 2);
    assert_eq!(m.registry().silent(), 1 << 1);
    assert_eq!(m.destroy(&mut sys, id.word(), APP), Ok(id.slot()));
    sys.tasks[1].silent = false;
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(m.registry().silent(), 0);
    assert!(m.registry().task(1).unwrap().known);
    assert!(sys.tasks[1].flows.contains_key(&0), "placed there again");
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Running
    );
}

#[test]
fn a_stuck_task_under_two_flows_costs_one_deadline_and_both_move() {
    let mut sys = system();
    sys.tasks[2].dead = true; // one device only: both flows on task 1
    let mut m = manager(&mut sys);
    let a = m.create(&mut sys, &round_trip(), APP).unwrap();
    let b = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert_eq!(sys.tasks[1].flows.len(), 2);
    sys.tasks[1].silent = true;
    let before = calls_to(&sys, 1);
    m.watch(&mut sys);
    assert_eq!(calls_to(&sys, 1), before + 1);
    assert_eq!(sys.silenced, [(a.word(), 1, 1), (b.word(), 1, 1)]);
    for id in [a, b] {
        let s = m.stats(&mut sys, id.word(), APP).unwrap();
        assert_eq!(s.ladder[FALLBACK], 1, "no device left: software");
    }
    assert_eq!(
        sys.tasks[0].flows.len(),
        8,
        "all four stages of both in software"
    );
}

#[test]
fn a_stage_stuck_at_creation_refuses_the_flow_and_is_offered_nothing() {
    let mut sys = system();
    let mut m = manager(&mut sys);
    sys.tasks[1].silent = true;
    let r = m.create(&mut sys, &round_trip(), APP).unwrap_err();
    assert_eq!(
        (r.status, r.stage, r.detail),
        (FlowStatus::StageRefused, 1, STAGE_DEAD)
    );
    assert_eq!(m.registry().silent(), 1 << 1);
    assert_eq!(m.registry().in_use(1), 0, "its number given back");
    // The next create skips it.
    let id = m.create(&mut sys, &round_trip(), APP).unwrap();
    assert!(sys.tasks[2].flows.contains_key(&0));
    assert_eq!(
        m.stats(&mut sys, id.word(), APP).unwrap().state,
        FlowState::Running
    );
}
