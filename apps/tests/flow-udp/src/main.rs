//! Test task: the paper's flow, set up through flowmgr. The NIC driver
//! steers datagrams for UDP port 5710 into the flow; a cipher stage
//! decrypts them (AES-128-CBC, each datagram on its own, as the runner
//! encrypts them); a check sink verifies the records. The app creates the
//! flow, says it is ready (the runner then sends), watches the sink's
//! tally with a timer, and destroys the flow.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::Flows;

conflux_userlib::entry!(main);

/// What the runner sends (the test's `udp` entry): count, seed, key, IV.
const DATAGRAMS: u64 = 300;
const SEED: u64 = 61710;
const KEY: &[u8; 16] = b"conflux-flow-key";
const IV: &[u8; 16] = b"conflux-flow-iv!";
const PORT: u16 = 5710;
/// Ticks (10 ms) between looks, and looks before giving up (60 s).
const EVERY: u64 = 10;
const LOOKS: u32 = 600;

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let clock = Notification(config::caps::CLOCK);
    let Some(key) = Key::new(KEY) else { return };
    let decrypt = StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction: Direction::Decrypt,
        engine: Engine::Any,
        key,
        iv: *IV,
    });
    let req = FlowRequest::new(
        StageSpec::Udp { port: PORT },
        &[decrypt],
        StageSpec::Check { seed: SEED },
        0,
        0,
        1024,
    );
    let id = match req
        .map_err(|_| ())
        .and_then(|r| flows.create(&r).map_err(|e| println!("FAIL: create: {e}")))
    {
        Ok(id) => id,
        Err(()) => return,
    };
    println!("flow {} ready: udp port {PORT}", id.0);
    let mut last = None;
    for _ in 0..LOOKS {
        let _ = clock.timer(EVERY);
        let _ = clock.wait();
        let Ok(s) = flows.stats(id) else {
            println!("FAIL: stats");
            return;
        };
        let tally = Tally::from_words(s.sink);
        last = Some((s, tally));
        if tally.0 + tally.1 + tally.3 >= DATAGRAMS {
            break;
        }
    }
    let Some((s, (good, missing, repeated, damaged))) = last else {
        return;
    };
    println!("flow {}: {}", id.0, Lines(&s));
    println!("check sink: {good} good, {missing} missing, {repeated} repeated, {damaged} damaged");
    if (good, missing, repeated, damaged) == (DATAGRAMS, 0, 0, 0) {
        println!("ok: every datagram decrypted and checked, in order, once");
    } else {
        println!("FAIL: the sink's tally");
    }
    match flows.destroy(id) {
        Ok(()) => println!("ok: destroyed"),
        Err(e) => println!("FAIL: destroy: {e}"),
    }
}
