//! An application that takes its quota of flows (one) and exits, over and
//! over: restarted by init (`restart = "always"`), each instance is one
//! round, counted in a region of its own (regions outlive the task).
//!
//! flowmgr has no other way to learn that an application is gone than
//! init's `CLIENT_GONE`: a new instance calls with the same badge, so if
//! the last instance's flow were still there, this instance's CREATE
//! would be refused (`OverQuota`, or `NoSlot`). Each instance creates its
//! flow (a pattern source into a checking sink, long enough to run until
//! it is torn down), checks that a second one is refused `OverQuota`,
//! counts the round and exits with the flow running. After the last
//! round it tells the stayer and waits for ever.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::{FlowRequest, FlowStatus};
use conflux_flow_protocol::stage::StageSpec;
use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::println;
use flow_client::{Error, Flows, Refusal};

conflux_userlib::entry!(main);

/// Departures the test makes.
const ROUNDS: u64 = 1000;

fn request(seed: u64) -> FlowRequest {
    let source = StageSpec::Pattern {
        count: 1_000_000,
        seed,
    };
    FlowRequest::new(source, &[], StageSpec::Check { seed }, 0, 0, 1024)
        .expect("pattern → check is a valid flow")
}

fn main() {
    let state = Region(config::caps::STATE).premapped(config::caps::STATE_ADDR, 4096);
    let round = state.read_u64(0).unwrap_or(0);
    if round >= ROUNDS {
        println!("all {ROUNDS} rounds done, each instance with its flow; waiting for ever");
        let _ = Notification(config::caps::DONE).signal();
        loop {
            let _ = Notification(config::caps::IDLE).wait();
        }
    }
    let flows = Flows::new(config::caps::FLOWMGR);
    if let Err(e) = flows.create(&request(round)) {
        println!("CHECK FAILED: round {round}: create this instance's flow: {e} (the last instance's flow is still there?)");
        loop {
            let _ = Notification(config::caps::IDLE).wait();
        }
    }
    match flows.create(&request(round)) {
        Err(Error::Refused(Refusal {
            status: FlowStatus::OverQuota,
            ..
        })) => {}
        other => println!(
            "CHECK FAILED: round {round}: a second flow is refused OverQuota: {:?}",
            other.err()
        ),
    }
    let _ = state.write_u64(0, round + 1);
    if round < 3 {
        println!("round {round}: holding its flow; exiting");
    }
    conflux_userlib::sys::exit(0);
}
