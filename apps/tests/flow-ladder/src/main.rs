//! Test task: the exception ladder in the guest. Flow pattern → crc32c →
//! null, where the crc32c stage runs in `test-flow-flaky`, whose first
//! instance faults after 100 buffers. init restarts it; flowmgr notices
//! when the app next asks for the flow's stats and takes one ladder step:
//! *restart* (the task answers as a new instance) or, if it finds the
//! task still dead, *redirect* to flowsoft's crc32c. The flow is rewired
//! and starts over; it must still finish with every record at the sink,
//! and the app must have seen `Recovering` and been notified. In the
//! system `flow-redirect` every instance of the stage faults: restarts
//! run out and the stage is redirected to flowsoft.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::stage::StageSpec;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{FlowState, Flows};

conflux_userlib::entry!(main);

const RECORDS: u64 = 2000;
const BUFFER: u32 = 1024;
const PATIENCE: u32 = 400_000;

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let events = Notification(config::caps::EVENTS);
    let req = FlowRequest::new(
        StageSpec::Pattern {
            count: RECORDS,
            seed: 3,
        },
        &[StageSpec::Crc32c],
        StageSpec::Null,
        0,
        0,
        BUFFER,
    );
    let Ok(req) = req else {
        println!("FAIL: the test's request was refused");
        return;
    };
    let id = match flows.create_notified(&req, config::caps::EVENTS) {
        Ok(id) => id,
        Err(e) => {
            println!("FAIL: create: {e}");
            return;
        }
    };
    println!("created flow {}", id.0);
    let mut saw_recovering = false;
    let mut signals = 0u32;
    let mut last = None;
    for _ in 0..PATIENCE {
        let s = match flows.stats(id) {
            Ok(s) => s,
            Err(e) => {
                println!("FAIL: stats: {e}");
                return;
            }
        };
        if events.poll().is_ok_and(|b| b != 0) {
            signals += 1;
        }
        if s.state == FlowState::Recovering && !saw_recovering {
            saw_recovering = true;
            println!("flow {}: {}", id.0, Lines(&s));
        }
        if matches!(s.state, FlowState::Done | FlowState::Terminated) {
            last = Some(s);
            break;
        }
    }
    let Some(s) = last else {
        println!("FAIL: the flow did not finish");
        return;
    };
    println!("flow {}: {}", id.0, Lines(&s));
    let [_, restarts, redirects, fallbacks] = s.ladder;
    let mut failed = 0;
    let mut check = |what: &str, ok: bool| {
        if ok {
            println!("ok: {what}");
        } else {
            failed += 1;
            println!("FAIL: {what}");
        }
    };
    check("the flow finished", s.state == FlowState::Done);
    if config::SYSTEM_NAME == "flow-redirect" {
        // The stage fails in every instance: restarted until the ladder
        // gives up on the task (or finds it dead), then moved.
        check(
            "redirected once, after at most 2 restarts",
            redirects == 1 && restarts <= 2 && fallbacks == 0,
        );
    } else {
        check(
            "one ladder step: a restart or a redirect",
            restarts + redirects == 1 && fallbacks == 0,
        );
    }
    check("the app saw the flow recovering", saw_recovering);
    check("the app was notified", signals > 0);
    check(
        "every record reached the sink, 4 bytes longer",
        s.sink == [RECORDS, RECORDS * u64::from(BUFFER + 4)],
    );
    check("destroy", flows.destroy(id).is_ok());
    if failed == 0 {
        println!("all checks passed");
    }
}
