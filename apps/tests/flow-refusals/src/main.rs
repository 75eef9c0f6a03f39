//! Test task: every refusal of flowmgr's API in a system with no stage
//! tasks, each checked for its exact status and words (a capability where
//! none belongs too), and that flowmgr still answers after each (nothing
//! a client sends stops it).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::{label, FlowRequest, FlowStatus};
use conflux_flow_protocol::stage::StageSpec;
use conflux_flowmgr_core::refusal::{bad, NO_STAGE};
use conflux_flowmgr_core::Refusal;
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;
use flow_client::{Error, FlowId, FlowState, Flows};

conflux_userlib::entry!(main);

/// A raw call: the answer's label and first two words.
fn raw(msg: &Message) -> (u32, [u64; 2]) {
    match Endpoint(config::caps::FLOWMGR).call(msg) {
        Ok(m) => (m.label, [m.words[0], m.words[1]]),
        Err(e) => {
            println!("FAIL: call to flowmgr failed: {e}");
            (u32::MAX, [0; 2])
        }
    }
}

fn refused(status: FlowStatus, stage: u64, detail: u64) -> Result<(), Error> {
    Err(Error::Refused(Refusal {
        status,
        stage,
        detail,
    }))
}

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let mut passed = 0;
    let mut check = |what: &str, ok: bool| {
        if ok {
            passed += 1;
            println!("ok: {what}");
        } else {
            println!("FAIL: {what}");
        }
    };
    let req = FlowRequest::new(
        StageSpec::Pattern { count: 10, seed: 1 },
        &[StageSpec::Crc32c],
        StageSpec::Null,
        0,
        0,
        1024,
    );
    let Ok(req) = req else {
        println!("FAIL: the test's own request was refused");
        return;
    };
    let got = flows.create(&req).map(drop);
    if let Err(e) = got {
        println!("create: {e}");
    }
    check(
        "create with no stage tasks: NoStage, stage 0",
        got == refused(FlowStatus::NoStage, 0, 0),
    );
    let unknown = FlowId(0x100);
    let stats = flows.stats(unknown).map(drop);
    if let Err(e) = stats {
        println!("stats: {e}");
    }
    let unknown_flow = refused(FlowStatus::UnknownFlow, NO_STAGE, 0);
    check("stats of an unknown id: UnknownFlow", stats == unknown_flow);
    check(
        "pause of an unknown id: UnknownFlow",
        flows.pause(unknown) == unknown_flow,
    );
    check(
        "resume of an unknown id: UnknownFlow",
        flows.resume(unknown) == unknown_flow,
    );
    check(
        "destroy of id 0: UnknownFlow",
        flows.destroy(FlowId(0)) == unknown_flow,
    );
    check(
        "destroy of id u64::MAX: UnknownFlow",
        flows.destroy(FlowId(u64::MAX)) == unknown_flow,
    );
    let bad_request = FlowStatus::BadRequest as u32;
    check(
        "create with no words: BadRequest",
        raw(&Message::new(label::CREATE, &[])).0 == bad_request,
    );
    check(
        "create of 9 stages: BadRequest, StageCount",
        raw(&Message::new(label::CREATE, &[9, 0, 1024]))
            == (bad_request, [NO_STAGE, bad::STAGE_COUNT]),
    );
    check(
        "create with priority 8: BadRequest, Priority",
        raw(&Message::new(label::CREATE, &[2 | 8 << 8, 0, 1024]))
            == (bad_request, [NO_STAGE, bad::PRIORITY]),
    );
    check(
        "create with a stage of kind 99: BadRequest, stage 0's spec",
        raw(&Message::new(label::CREATE, &[2, 0, 1024, 99])) == (bad_request, [0, bad::SPEC]),
    );
    check(
        "stats without an id: BadRequest, NoId",
        raw(&Message::new(label::STATS, &[])) == (bad_request, [NO_STAGE, bad::NO_ID]),
    );
    check(
        "label 0x9999: BadLabel",
        raw(&Message::new(0x9999, &[1, 2, 3, 4])).0 == FlowStatus::BadLabel as u32,
    );
    let mut words = [0u64; conflux_flow_protocol::api::REQUEST_WORDS];
    let n = req.encode(&mut words).unwrap_or(0);
    for (i, w) in words.iter().enumerate().take(n).skip(4) {
        conflux_userlib::ipc::set_long_word(i, *w);
    }
    // An endpoint capability where only a notification may come.
    let with_endpoint = Message::new(label::CREATE, &words[..4])
        .with_len(n)
        .with_cap(config::caps::FLOWMGR);
    check(
        "create with an endpoint for a notification: BadRequest, Cap",
        raw(&with_endpoint) == (bad_request, [NO_STAGE, bad::CAP]),
    );
    check(
        "stats with a capability: BadRequest, Cap",
        raw(&Message::new(label::STATS, &[0x100]).with_cap(config::caps::FLOWMGR))
            == (bad_request, [NO_STAGE, bad::CAP]),
    );
    let mut out = [(FlowId(0), FlowState::Running); 4];
    check("list: no flows", flows.list(&mut out) == Ok(0));
    let total = 15;
    if passed == total {
        println!("all {total} checks passed");
    } else {
        println!("FAIL: {passed} of {total} checks passed");
    }
}
