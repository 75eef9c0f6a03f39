//! Test task: flows on real virtio devices, set up through flowmgr, the
//! application only signalling.
//!
//! 1. pattern → AES-256-CBC encrypt on the crypto device (engine
//!    `Device`: only a device task may take it) → decrypt in software →
//!    check: every record comes back whole.
//! 2. pattern → the virtio-blk disk (512 sectors from sector 0); then a
//!    second flow reads the same sectors back from the disk → check.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{FlowState, FlowStats, Flows};

conflux_userlib::entry!(main);

const RECORDS: u64 = 256;
const BUFFER: u32 = 1024;
const SECTORS: u64 = RECORDS * BUFFER as u64 / 512;
const PATIENCE: u32 = 400_000;

fn cipher(direction: Direction, engine: Engine) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction,
        engine,
        key: Key::new(&[0x5a; 32]).expect("32 bytes is an AES key"),
        iv: [0x0f; 16],
    })
}

/// Creates the flow, watches it to the end, destroys it; its last stats.
fn run(
    flows: &Flows,
    what: &str,
    source: StageSpec,
    ts: &[StageSpec],
    sink: StageSpec,
) -> Option<FlowStats> {
    let req = FlowRequest::new(source, ts, sink, 0, 0, BUFFER).ok()?;
    match flows.run(&req, PATIENCE) {
        Ok(Some(s)) => {
            println!("{what}: {}", Lines(&s));
            Some(s)
        }
        Ok(None) => {
            println!("FAIL: {what}: did not finish");
            None
        }
        Err(e) => {
            println!("FAIL: {what}: {e}");
            None
        }
    }
}

fn good(s: &Option<FlowStats>) -> Option<(u64, u64, u64, u64)> {
    s.as_ref()
        .filter(|s| s.state == FlowState::Done)
        .map(|s| Tally::from_words(s.sink))
}

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let mut failed = 0;
    let mut check = |what: &str, ok: bool| {
        if ok {
            println!("ok: {what}");
        } else {
            failed += 1;
            println!("FAIL: {what}");
        }
    };
    let s = run(
        &flows,
        "device cipher",
        StageSpec::Pattern {
            count: RECORDS,
            seed: 5,
        },
        &[
            cipher(Direction::Encrypt, Engine::Device),
            cipher(Direction::Decrypt, Engine::Software),
        ],
        StageSpec::Check { seed: 5 },
    );
    check(
        "encrypted on the device, decrypted in software: every record whole",
        good(&s) == Some((RECORDS, 0, 0, 0)),
    );
    let w = run(
        &flows,
        "to disk",
        StageSpec::Pattern {
            count: RECORDS,
            seed: 6,
        },
        &[],
        StageSpec::Blocks {
            first: 0,
            count: SECTORS,
        },
    );
    check(
        "records written to the disk",
        w.is_some_and(|s| s.state == FlowState::Done && s.edges[0].buffers == RECORDS),
    );
    let r = run(
        &flows,
        "from disk",
        StageSpec::Blocks {
            first: 0,
            count: SECTORS,
        },
        &[],
        StageSpec::Check { seed: 6 },
    );
    check(
        "records read back from the disk: every one whole",
        good(&r) == Some((RECORDS, 0, 0, 0)),
    );
    if failed == 0 {
        println!("all checks passed");
    }
}
