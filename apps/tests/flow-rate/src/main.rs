//! Test task: a rate limit holds.
//!
//! A pattern → check flow of [`RECORDS`] buffers of [`BUFFER`] bytes at
//! [`RATE`] bytes/s. The source keeps a token bucket on its TSC, so the
//! flow cannot finish sooner than its bytes allow: from the source's first
//! send to its last, at least `(bytes - one buffer - burst) / rate`
//! seconds (see `conflux_flow_stage::Bucket`). Only that lower bound is
//! checked, in the flow's own clock (the edges' TSC stamps over the TSC
//! rate `flowmgr` reports), with a quarter off: the source used the rate
//! `flowmgr` measured at boot (a few per cent off, more on a loaded host),
//! refined since; a busy machine only makes the flow slower.
//! The source also sleeps while it waits for credit, so the flow finishing
//! at all shows `flowmgr`'s looks wake it. Every record must arrive whole,
//! in order, once.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{Sched, StageSpec};
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{FlowState, Flows};

conflux_userlib::entry!(main);

const RECORDS: u64 = 48;
const BUFFER: u32 = 1024;
/// Bytes per second: the flow's 48 KiB take about 1.3 s past the burst.
const RATE: u64 = 32 * 1024;
/// STATS calls before giving up on the flow finishing.
const PATIENCE: u32 = 400_000;

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let req = FlowRequest::new(
        StageSpec::Pattern {
            count: RECORDS,
            seed: 3,
        },
        &[],
        StageSpec::Check { seed: 3 },
        4,
        RATE,
        BUFFER,
    )
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
            println!("FAIL: the rate-limited flow did not finish");
            return;
        }
        Err(e) => {
            println!("FAIL: stats: {e}");
            return;
        }
    };
    println!("flow {}: {}", id.0, Lines(&s));
    let (good, missing, repeated, damaged) = Tally::from_words(s.sink);
    let e = s.edges[0];
    let cycles = e.last.saturating_sub(e.first);
    let bytes = RECORDS * u64::from(BUFFER);
    let burst = Sched {
        priority: 4,
        rate: RATE,
        tsc_hz: s.tsc_hz,
    }
    .burst();
    let floor_bytes = bytes - u64::from(BUFFER) - burst;
    // Milliseconds, in the flow's clock, and the floor with a quarter off.
    let took = u128::from(cycles) * 1000 / u128::from(s.tsc_hz.max(1));
    let floor = u128::from(floor_bytes) * 1000 * 3 / 4 / u128::from(RATE);
    println!(
        "rate {RATE} bytes/s: {bytes} bytes in {took} ms (floor {floor} ms); TSC {} Hz; check sink: {good} good, {missing} missing, {repeated} repeated, {damaged} damaged",
        s.tsc_hz
    );
    let mut failed = 0;
    let mut check = |what: &str, ok: bool| {
        println!("{}: {what}", if ok { "ok" } else { "FAIL" });
        failed += u32::from(!ok);
    };
    check("the flow is done", s.state == FlowState::Done);
    check("flowmgr measured the TSC", s.tsc_hz != 0);
    check(
        "it took no less time than its rate allows",
        s.tsc_hz != 0 && took >= floor,
    );
    check(
        "every record arrived whole, in order, once",
        (good, missing, repeated, damaged) == (RECORDS, 0, 0, 0),
    );
    check("destroyed", flows.destroy(id).is_ok());
    if failed == 0 {
        println!("all rate checks passed");
    }
}
