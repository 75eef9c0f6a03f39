//! Test task: the exception ladder in the guest, watched by flowmgr on
//! its own. Flow pattern → crc32c → null, where the crc32c stage runs in
//! `test-flow-flaky`, whose first instance faults after 100 buffers. init
//! restarts it; flowmgr notices at its next timer tick and takes one
//! ladder step: *restart* (the task answers as a new instance) or, if it
//! finds the task still dead, *redirect* to flowsoft's crc32c. The flow
//! is rewired and starts over; it must still finish with every record at
//! the sink. The app never asks for STATS until the flow is over: it waits
//! on its notification and, at each signal, reads its flow's state with
//! LIST (which looks at no stage), so it must see `Recovering` and `Done`
//! from flowmgr's own watching. In the system `flow-redirect` every
//! instance of the stage faults: restarts run out and the stage is
//! redirected to flowsoft. In `flow-fallback` the flow is pattern →
//! encrypt (any engine) → decrypt (software) → check, the encryption
//! placed on the flaky task standing for the only crypto device, which
//! faults in every instance: the ladder falls back to flowsoft's cipher
//! and the check sink must count every record whole. `flow-device-dies`
//! is the same flow on a real virtio-crypto driver that faults once and
//! is not restarted.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{FlowId, FlowState, Flows};

conflux_userlib::entry!(main);

const RECORDS: u64 = 2000;
const BUFFER: u32 = 1024;
/// Signals waited for before giving up on the flow finishing (each is a
/// ladder step or a state change; a flow takes a handful).
const PATIENCE: u32 = 64;
const SEED: u64 = 3;

fn fallback() -> bool {
    matches!(
        config::SYSTEM_NAME,
        "flow-fallback" | "flow-device-dies" | "flow-device-dies-2cpu"
    )
}

fn cipher(direction: Direction, engine: Engine) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Ctr,
        direction,
        engine,
        key: Key::new(&[0x2b; 16]).expect("16 bytes is an AES key"),
        iv: [0x11; 16],
    })
}

fn request() -> Result<FlowRequest, conflux_flow_protocol::api::RequestError> {
    let source = StageSpec::Pattern {
        count: RECORDS,
        seed: SEED,
    };
    if fallback() {
        let ts = [
            cipher(Direction::Encrypt, Engine::Any),
            cipher(Direction::Decrypt, Engine::Software),
        ];
        FlowRequest::new(source, &ts, StageSpec::Check { seed: SEED }, 0, 0, BUFFER)
    } else {
        FlowRequest::new(source, &[StageSpec::Crc32c], StageSpec::Null, 0, 0, BUFFER)
    }
}

/// The flow's state as LIST gives it (flowmgr looks at no stage for it).
fn state(flows: &Flows, id: FlowId) -> Option<FlowState> {
    let mut out = [(FlowId(0), FlowState::Running); 4];
    let n = flows.list(&mut out).ok()?;
    out[..n.min(out.len())]
        .iter()
        .find(|(f, _)| *f == id)
        .map(|(_, s)| *s)
}

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let events = Notification(config::caps::EVENTS);
    let req = request();
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
    let mut over = false;
    for _ in 0..PATIENCE {
        if let Err(e) = events.wait() {
            println!("FAIL: waiting on the flow's notification: {e}");
            return;
        }
        signals += 1;
        match state(&flows, id) {
            Some(FlowState::Recovering) if !saw_recovering => {
                saw_recovering = true;
                println!("the flow is recovering, seen through its notification");
            }
            Some(FlowState::Done | FlowState::Terminated) => {
                over = true;
                break;
            }
            Some(_) => {}
            None => {
                println!("FAIL: LIST does not name flow {}", id.0);
                return;
            }
        }
    }
    if !over {
        println!("FAIL: the flow did not finish after {signals} signals");
        return;
    }
    // The first STATS: the flow is over.
    let s = match flows.stats(id) {
        Ok(s) => s,
        Err(e) => {
            println!("FAIL: stats: {e}");
            return;
        }
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
    if fallback() {
        // The only device faults in every instance: restarted until the
        // ladder gives up on it (or finds it dead), then software.
        check(
            "fell back to software once, after at most 2 restarts",
            fallbacks == 1 && restarts <= 2 && redirects == 0,
        );
    } else if config::SYSTEM_NAME == "flow-redirect" {
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
    if fallback() {
        let (good, missing, repeated, damaged) = Tally::from_words(s.sink);
        println!(
            "check sink: {good} good, {missing} missing, {repeated} repeated, {damaged} damaged"
        );
        check(
            "every record arrived whole, once, in order",
            (good, missing, repeated, damaged) == (RECORDS, 0, 0, 0),
        );
    } else {
        check(
            "every record reached the sink, 4 bytes longer",
            s.sink == [RECORDS, RECORDS * u64::from(BUFFER + 4)],
        );
    }
    check("destroy", flows.destroy(id).is_ok());
    if failed == 0 {
        println!("all checks passed");
    }
}
