//! Each stage of the flow measured alone, so the report can say how much
//! of its slowest stage's throughput the whole flow reaches (the issue's
//! target: 80 %). Each is a `flowmgr` flow of one stage between a source
//! and a sink that cost it as little as the system allows, timed by the
//! stages' own stamps as [`crate::flow`] is:
//!
//! - `stage-udp`: UDP port [`flow::PORT`] → `null`: the NIC driver's
//!   steering, on the same datagrams and offered loads as the flow;
//! - `stage-crypto`: `pattern` → AES-128-CBC decrypt on the crypto device
//!   → `null`: no network; flowsoft's pattern source makes records as fast
//!   as the cipher takes them;
//! - `stage-disk`: `pattern` → the disk: the block stage packing and
//!   writing, read back and checked as the flow's disk is.
//!
//! A `null` sink only counts what reached it, so those runs print no
//! check. The pattern-sourced runs announce port 0: the runner sends them
//! nothing.

use crate::disk;
use crate::flow::{self, create, decrypt, request, watch};
use crate::plan::{Plan, Result};
use crate::{config, SEED};
use conflux_blk_client::Connection as Blk;
use conflux_flow_protocol::stage::StageSpec;
use conflux_userlib::println;
use flow_client::Flows;

/// The NIC stage alone: datagrams on [`flow::PORT`] counted by a null sink.
pub fn udp(size: u32, plan: &Plan) -> Result {
    let flows = Flows::new(config::caps::FLOWMGR);
    let udp = StageSpec::Udp { port: flow::PORT };
    let id = create(&flows, &request(udp, &[], StageSpec::Null, size));
    println!("ready config=stage-udp size={size} port={}", flow::PORT);
    let (stored, cycles) = watch(&flows, id, u64::from(plan.count));
    Result {
        stored,
        cycles,
        tally: None,
    }
}

/// The records a pattern-sourced run makes: as many as the host sends.
fn pattern(plan: &Plan) -> StageSpec {
    StageSpec::Pattern {
        count: u64::from(plan.count),
        seed: SEED,
    }
}

/// The crypto stage alone: pattern records decrypted on the device,
/// counted by a null sink.
pub fn crypto(size: u32, plan: &Plan) -> Result {
    let flows = Flows::new(config::caps::FLOWMGR);
    let id = create(
        &flows,
        &request(pattern(plan), &[decrypt()], StageSpec::Null, size),
    );
    println!("ready config=stage-crypto size={size} port=0");
    let (stored, cycles) = watch(&flows, id, u64::from(plan.count));
    Result {
        stored,
        cycles,
        tally: None,
    }
}

/// The disk stage alone: pattern records packed and written from sector
/// `first`, then read back and checked.
pub fn disk(blk: &mut Blk, size: u32, plan: &Plan, first: u64, sectors: u64) -> Result {
    let flows = Flows::new(config::caps::FLOWMGR);
    let sink = StageSpec::Blocks {
        first,
        count: sectors,
    };
    let id = create(&flows, &request(pattern(plan), &[], sink, size));
    println!("ready config=stage-disk size={size} port=0");
    let (stored, cycles) = watch(&flows, id, u64::from(plan.count));
    let tally = disk::check(blk, first, first + sectors, size as usize, stored);
    Result {
        stored,
        cycles,
        tally: Some(tally),
    }
}
