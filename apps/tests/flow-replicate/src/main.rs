//! Test task: a replicated stage.
//!
//! pattern → AES-CBC encrypt on a crypto device → AES-CBC decrypt in
//! software → check, created with `replicas=2`: `flowmgr` runs the
//! encrypt stage on both virtio-crypto devices, the source sends its
//! buffers to them in turn, and the decrypt stage merges their outputs in
//! turn. Every record must come back whole, in order, once (the merge
//! kept the order across two devices that finish at their own pace); each
//! device's lane must have carried exactly every other buffer; STATS must
//! count the replication.
//!
//! In the system `flow-autoreplicate` the same flow asks for no replica:
//! the first device is slowed on purpose there, and `flowmgr` must find
//! its stage the bottleneck and replicate it mid-flow, the source going
//! on where the sink stopped.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{FlowState, Flows};

conflux_userlib::entry!(main);

const RECORDS: u64 = 301;
/// Records of the automatic case: at about a millisecond each on the
/// slowed device, seconds of work, against the watch's 0.3 s to decide.
const AUTO_RECORDS: u64 = 3000;
const BUFFER: u32 = 2048;
/// STATS calls before giving up on the flow finishing.
const PATIENCE: u32 = 400_000;

fn cipher(direction: Direction, engine: Engine) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction,
        engine,
        key: Key::new(&[0x5a; 32]).expect("32 bytes is an AES key"),
        iv: [0x3c; 16],
    })
}

/// In the system `flow-autoreplicate` the flow asks for no replica and
/// `flowmgr` must make one itself, mid-flow; enough records that the
/// slowed device is still busy when the watch has looked three times.
fn automatic() -> bool {
    config::SYSTEM_NAME == "flow-autoreplicate"
}

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let records = if automatic() { AUTO_RECORDS } else { RECORDS };
    let req = FlowRequest::new(
        StageSpec::Pattern {
            count: records,
            seed: 11,
        },
        &[
            cipher(Direction::Encrypt, Engine::Device),
            cipher(Direction::Decrypt, Engine::Software),
        ],
        StageSpec::Check { seed: 11 },
        3,
        0,
        BUFFER,
    )
    .and_then(|r| {
        if automatic() {
            Ok(r)
        } else {
            r.with_replicas(2)
        }
    })
    .expect("the test's request is well formed");
    let id = match flows.create(&req) {
        Ok(id) => id,
        Err(e) => {
            println!("FAIL: create: {e}");
            return;
        }
    };
    let s = match flows.wait_finished(id, PATIENCE, || {}) {
        Ok(Some(s)) => s,
        Ok(None) => {
            println!("FAIL: the replicated flow did not finish");
            return;
        }
        Err(e) => {
            println!("FAIL: stats: {e}");
            return;
        }
    };
    println!("flow {}: {}", id.0, Lines(&s));
    let (good, missing, repeated, damaged) = Tally::from_words(s.sink);
    println!("check sink: {good} good, {missing} missing, {repeated} repeated, {damaged} damaged");
    let mut failed = 0;
    let mut check = |what: &str, ok: bool| {
        println!("{}: {what}", if ok { "ok" } else { "FAIL" });
        failed += u32::from(!ok);
    };
    check("the flow is done", s.state == FlowState::Done);
    check("STATS counts one replication", s.replications == 1);
    // Edges: 0 source → device A, 1 device A → decrypt, 2 decrypt →
    // check, 3 source → device B, 4 device B → decrypt.
    let e = &s.edges;
    if automatic() {
        // The edges are those wired at the split: each lane carried
        // every other buffer since.
        check(
            "both devices carried buffers after the split, in turn",
            s.edge_count == 5
                && e[3].buffers > 0
                && e[0].buffers.abs_diff(e[3].buffers) <= 1
                && e[1].buffers == e[0].buffers
                && e[4].buffers == e[3].buffers,
        );
        check(
            "every record came back whole, in order, once",
            (good, missing, repeated, damaged) == (records, 0, 0, 0),
        );
        check("no ladder steps", s.ladder == [0; 4]);
        check("destroyed", flows.destroy(id).is_ok());
        if failed == 0 {
            println!("all replication checks passed");
        }
        return;
    }
    check(
        "device A's lane carried the even buffers, device B's the odd",
        s.edge_count == 5
            && e[0].buffers == RECORDS.div_ceil(2)
            && e[1].buffers == RECORDS.div_ceil(2)
            && e[3].buffers == RECORDS / 2
            && e[4].buffers == RECORDS / 2,
    );
    check(
        "the merge passed every buffer on",
        e[2].buffers == RECORDS && e.iter().all(|x| x.drops == 0),
    );
    check(
        "every record came back whole, in order, once",
        (good, missing, repeated, damaged) == (RECORDS, 0, 0, 0),
    );
    check("no ladder steps", s.ladder == [0; 4]);
    check("destroyed", flows.destroy(id).is_ok());
    if failed == 0 {
        println!("all replication checks passed");
    }
}
