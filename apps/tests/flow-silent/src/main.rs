//! Test task: a stage that stops answering mid-flow. Flow A is pattern →
//! crc32c → null, the crc32c stage on `test-flow-flaky`, which in this
//! system goes silent after 100 buffers: alive, holding a buffer, and
//! answering nobody. Nothing faults, so init restarts nothing; only
//! `flowmgr`'s call deadline can notice. It must: the stage is reported,
//! the ladder redirects it to flowsoft (a redirect, no restart), and A
//! still delivers every record, 4 bytes longer. Flow B, pattern → check
//! on flowsoft alone, runs meanwhile and must be untouched: no ladder step
//! and every record whole, once, in order. The app only waits on the
//! flows' notification and reads their states with LIST until both are
//! over; STATS comes after.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::StageSpec;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use flow_client::text::Lines;
use flow_client::{FlowId, FlowState, Flows};

conflux_userlib::entry!(main);

const RECORDS_A: u64 = 2000;
const RECORDS_B: u64 = 4000;
const BUFFER: u32 = 1024;
const SEED: u64 = 5;
/// Signals waited for before giving up (each is a state change or a
/// ladder step of either flow; they take a handful).
const PATIENCE: u32 = 64;

fn requests() -> Option<(FlowRequest, FlowRequest)> {
    let pattern = |count| StageSpec::Pattern { count, seed: SEED };
    let a = FlowRequest::new(
        pattern(RECORDS_A),
        &[StageSpec::Crc32c],
        StageSpec::Null,
        0,
        0,
        BUFFER,
    );
    let b = FlowRequest::new(
        pattern(RECORDS_B),
        &[],
        StageSpec::Check { seed: SEED },
        0,
        0,
        BUFFER,
    );
    Some((a.ok()?, b.ok()?))
}

/// The states of `ids` as LIST gives them (flowmgr looks at no stage).
fn states(flows: &Flows, ids: [FlowId; 2]) -> Option<[FlowState; 2]> {
    let mut out = [(FlowId(0), FlowState::Running); 4];
    let n = flows.list(&mut out).ok()?;
    let listed = &out[..n.min(out.len())];
    let find = |id| listed.iter().find(|(f, _)| *f == id).map(|(_, s)| *s);
    Some([find(ids[0])?, find(ids[1])?])
}

fn over(s: FlowState) -> bool {
    matches!(s, FlowState::Done | FlowState::Terminated)
}

fn main() {
    let mut c = Checks::new();
    let flows = Flows::new(config::caps::FLOWMGR);
    let events = Notification(config::caps::EVENTS);
    let Some((a, b)) = requests() else {
        c.that("the test's requests are valid", false, "refused");
        c.finish()
    };
    // A first, so its crc32c goes to the least loaded task: flaky.
    let ids = match (
        flows.create_notified(&a, config::caps::EVENTS),
        flows.create_notified(&b, config::caps::EVENTS),
    ) {
        (Ok(a), Ok(b)) => [a, b],
        (a, b) => {
            c.that("create both flows", false, (a.err(), b.err()));
            c.finish()
        }
    };
    println!(
        "created flows {} (through the stage that goes silent) and {}",
        ids[0].0, ids[1].0
    );
    let mut saw_recovering = false;
    let mut finished = false;
    for _ in 0..PATIENCE {
        if let Err(e) = events.wait() {
            c.that("wait on the flows' notification", false, e);
            c.finish()
        }
        let Some(now) = states(&flows, ids) else {
            c.that("LIST names both flows", false, "missing");
            c.finish()
        };
        if now[0] == FlowState::Recovering && !saw_recovering {
            saw_recovering = true;
            println!("flow A is recovering, seen through its notification");
        }
        if over(now[0]) && over(now[1]) {
            finished = true;
            break;
        }
    }
    c.that("both flows finished", finished, PATIENCE);
    for (name, id) in ["A", "B"].iter().zip(ids) {
        if let Ok(s) = flows.stats(id) {
            println!("flow {name} ({}): {}", id.0, Lines(&s));
        }
    }
    let (sa, sb) = match (flows.stats(ids[0]), flows.stats(ids[1])) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            c.that("stats of both flows", false, (a.err(), b.err()));
            c.finish()
        }
    };
    let [_, restarts, redirects, fallbacks] = sa.ladder;
    c.eq("flow A done", sa.state, FlowState::Done);
    c.eq(
        "flow A: one redirect, no restart (nothing died)",
        (restarts, redirects, fallbacks),
        (0, 1, 0),
    );
    c.that("the app saw flow A recovering", saw_recovering, "");
    c.eq(
        "flow A: every record reached the sink, 4 bytes longer",
        sa.sink,
        [RECORDS_A, RECORDS_A * u64::from(BUFFER + 4)],
    );
    c.eq("flow B done", sb.state, FlowState::Done);
    c.eq("flow B untouched by the ladder", sb.ladder, [0; 4]);
    c.eq(
        "flow B: every record whole, once, in order",
        Tally::from_words(sb.sink),
        (RECORDS_B, 0, 0, 0),
    );
    c.eq("destroy A", flows.destroy(ids[0]).map_err(|_| ()), Ok(()));
    c.eq("destroy B", flows.destroy(ids[1]).map_err(|_| ()), Ok(()));
    c.finish()
}
