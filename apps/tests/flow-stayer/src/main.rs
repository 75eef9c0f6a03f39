//! An application that holds its own flow while another departs a
//! thousand times (`test-flow-departer`): tearing the departed
//! application's flows down must never touch another's. It creates its
//! flow, waits until the departer says it is done, and checks that its
//! flow is still listed as its own and still moving, then that it can
//! destroy it and make another.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::stage::StageSpec;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use flow_client::{FlowId, FlowState, Flows};

conflux_userlib::entry!(main);

fn request(count: u64) -> FlowRequest {
    let source = StageSpec::Pattern { count, seed: 9 };
    FlowRequest::new(source, &[], StageSpec::Check { seed: 9 }, 0, 0, 1024)
        .expect("pattern → check is a valid flow")
}

/// Buffers the flow's source has sent so far.
fn sent(flows: &Flows, id: FlowId) -> Option<u64> {
    Some(flows.stats(id).ok()?.edges[0].buffers)
}

fn main() {
    let mut c = Checks::new();
    let flows = Flows::new(config::caps::FLOWMGR);
    let id = match flows.create(&request(100_000_000)) {
        Ok(id) => id,
        Err(e) => {
            c.that("create its flow", false, e);
            c.finish();
        }
    };
    // Paused while the departer runs, so the stage's time goes to its
    // flows; it must come back as it was left.
    c.that("pause its flow", flows.pause(id).is_ok(), ());
    let _ = Notification(config::caps::DONE).wait();
    let mut out = [(FlowId(0), FlowState::Running); 4];
    let listed = flows.list(&mut out).ok().map(|n| (n, out[0]));
    c.eq(
        "after the departures its flow is still its own, paused",
        listed,
        Some((1, (id, FlowState::Paused))),
    );
    c.that("resume its flow", flows.resume(id).is_ok(), ());
    let before = sent(&flows, id);
    let clock = Notification(config::caps::CLOCK);
    let mut moved = false;
    for _ in 0..100 {
        if clock.timer(2).is_ok() {
            let _ = clock.wait();
        }
        if sent(&flows, id) > before {
            moved = true;
            break;
        }
    }
    c.that("its flow moves again", moved, (before, sent(&flows, id)));
    c.that("it destroys its flow", flows.destroy(id).is_ok(), ());
    let again = flows.create(&request(1000));
    c.that("and makes another", again.is_ok(), again.err());
    println!("(served as before: never refused)");
    c.finish();
}
