//! Test task: flows end to end, the application off the data path.
//!
//! Two flows at once through flowmgr, both run by `flowsoft`: A is
//! pattern → AES-CBC encrypt → AES-CBC decrypt → check (every record must
//! come back whole, in order, once), B is pattern → crc32c → null. The
//! task only signals: it creates them (A with a notification), watches
//! STATS until both are done, checks every edge's figures and the sinks'
//! tallies, and destroys them. Then flow C ends in `test-flow-keeper`, a
//! stage that keeps its pool after STOP: destroying C must make that
//! stage fault.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::{FlowRequest, FlowStatus};
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{Error, FlowId, FlowState, FlowStats, Flows, Refusal};

conflux_userlib::entry!(main);

/// Records each flow moves.
const RECORDS: u64 = 2000;
const BUFFER: u32 = 1024;
/// STATS calls before giving up on a flow finishing.
const PATIENCE: u32 = 200_000;

fn cipher(direction: Direction) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction,
        engine: Engine::Software,
        key: Key::new(&[0x2b; 16]).expect("16 bytes is an AES key"),
        iv: [0x11; 16],
    })
}

fn request(source: StageSpec, ts: &[StageSpec], sink: StageSpec) -> FlowRequest {
    FlowRequest::new(source, ts, sink, 1, 0, BUFFER).expect("the test's requests are well formed")
}

struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, what: &str, ok: bool) {
        if ok {
            self.passed += 1;
            println!("ok: {what}");
        } else {
            self.failed += 1;
            println!("FAIL: {what}");
        }
    }
}

/// Watches `ids` until every one is done (or terminated), or patience
/// runs out; their last stats.
fn watch(flows: &Flows, ids: [FlowId; 2]) -> Option<[FlowStats; 2]> {
    let a = flows.wait_finished(ids[0], PATIENCE, || {}).ok()??;
    let b = flows.wait_finished(ids[1], PATIENCE, || {}).ok()??;
    Some([a, b])
}

fn edges_carried(s: &FlowStats, records: u64) -> bool {
    s.edges[..s.edge_count]
        .iter()
        .all(|e| e.buffers == records && e.drops == 0 && e.queued == 0)
}

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let events = Notification(config::caps::EVENTS);
    let mut c = Checks {
        passed: 0,
        failed: 0,
    };
    let a = request(
        StageSpec::Pattern {
            count: RECORDS,
            seed: 7,
        },
        &[cipher(Direction::Encrypt), cipher(Direction::Decrypt)],
        StageSpec::Check { seed: 7 },
    );
    let b = request(
        StageSpec::Pattern {
            count: RECORDS,
            seed: 9,
        },
        &[StageSpec::Crc32c],
        StageSpec::Null,
    );
    let (ia, ib) = match (
        flows.create_notified(&a, config::caps::EVENTS),
        flows.create(&b),
    ) {
        (Ok(ia), Ok(ib)) => (ia, ib),
        (ra, rb) => {
            println!("FAIL: create: {ra:?} / {rb:?}");
            return;
        }
    };
    println!(
        "created flow {} (cipher round trip) and flow {} (crc32c)",
        ia.0, ib.0
    );
    let Some([sa, sb]) = watch(&flows, [ia, ib]) else {
        println!("FAIL: the flows did not finish");
        return;
    };
    println!("flow {}: {}", ia.0, Lines(&sa));
    println!("flow {}: {}", ib.0, Lines(&sb));
    c.check("the cipher round trip is done", sa.state == FlowState::Done);
    c.check("the crc32c flow is done", sb.state == FlowState::Done);
    c.check(
        "every edge of both carried every record, none dropped",
        edges_carried(&sa, RECORDS) && edges_carried(&sb, RECORDS),
    );
    let (good, missing, repeated, damaged) = Tally::from_words(sa.sink);
    println!("check sink: {good} good, {missing} missing, {repeated} repeated, {damaged} damaged");
    c.check(
        "every record came back whole, in order, once",
        (good, missing, repeated, damaged) == (RECORDS, 0, 0, 0),
    );
    c.check(
        "the null sink took every crc32c buffer, each 4 bytes longer",
        sb.sink == [RECORDS, RECORDS * u64::from(BUFFER + 4)],
    );
    c.check(
        "no ladder steps",
        sa.ladder == [0; 4] && sb.ladder == [0; 4],
    );
    c.check(
        "flowmgr signalled the flow's notification",
        events.poll().is_ok_and(|bits| bits != 0),
    );
    c.check(
        "destroy both",
        flows.destroy(ia).is_ok() && flows.destroy(ib).is_ok(),
    );
    let mut out = [(FlowId(0), FlowState::Running); 4];
    c.check("no flows left", flows.list(&mut out) == Ok(0));
    c.check(
        "a destroyed flow's id names nothing",
        flows.stats(ia).map(drop)
            == Err(Error::Refused(Refusal {
                status: FlowStatus::UnknownFlow,
                stage: u64::MAX,
                detail: 0,
            })),
    );
    // Flow C: into the stage that will not let go.
    let kept = request(
        StageSpec::Pattern { count: 10, seed: 1 },
        &[],
        StageSpec::Blocks { first: 0, count: 8 },
    );
    match flows.create(&kept) {
        Ok(id) => {
            c.check("a flow into the keeper", true);
            c.check("destroying it", flows.destroy(id).is_ok());
        }
        Err(e) => {
            println!("create into the keeper: {e}");
            c.check("a flow into the keeper", false);
        }
    }
    if c.failed == 0 {
        println!("all {} checks passed", c.passed);
    } else {
        println!(
            "FAIL: {} of {} checks failed",
            c.failed,
            c.passed + c.failed
        );
    }
}
