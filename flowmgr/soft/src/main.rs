//! `flowsoft`: the software flow stage task.
//!
//! It runs, for `flowmgr`, the stages that need no device: the AES-CBC/CTR
//! transformer (a flow's `Software` or `Any` cipher, and the fallback when
//! no crypto device is left), CRC-32C, the `pattern` source and the `null`
//! and `check` sinks. Its loop is every stage task's: move buffers for
//! every running flow while any moves; when none can, ask the neighbours
//! to ring (the edges' *signal me*) and wait on its FLOW endpoint, where
//! `flowmgr`'s messages arrive and where its doorbell notification
//! (`FLOW_BELL`) is bound, so a ring ends the wait.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

mod work;

use conflux_flow_stage::{Arrived, Config, Stages, System};
use conflux_userlib::ipc::{Endpoint, Notification};
use conflux_userlib::println;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
const RECEIVED: usize = config::caps::FIRST_FREE + 1;
const CAP_BASE: usize = config::caps::FIRST_FREE + 2;
/// Flows' mappings: far above the manifest's premapped regions, which are
/// placed from the bottom of the region window.
const WINDOW_BASE: u64 = 0x0000_6000_0000_0000;

fn main() {
    let flow = Endpoint(config::caps::FLOW);
    if let Err(e) = Notification(config::caps::FLOW_BELL).bind(&flow) {
        println!("cannot bind the doorbell to the FLOW endpoint: {e}; the task stops (check the manifest's [flows] lowering)");
        return;
    }
    let free = conflux_abi::cap::CAP_SLOTS.saturating_sub(CAP_BASE) / 5;
    let mut stages = Stages::new(Config {
        cap_base: CAP_BASE,
        window_base: WINDOW_BASE,
        flows: free as u32,
    });
    let mut soft = work::Soft;
    let mut os = System;
    println!("software stage ready: cipher, crc32c, null, pattern, check");
    loop {
        let progress = stages.run(|_, io, job| work::step(&mut os, io, job));
        // Busy: look for a message without waiting. Idle: wait for one
        // or for a doorbell.
        let got = if progress || !stages.idle() {
            flow.nb_recv(REPLY, RECEIVED)
        } else {
            flow.recv(REPLY, RECEIVED).map(Some)
        };
        match got {
            Ok(Some(got)) => match os.serve(&mut stages, &mut soft, &got, REPLY) {
                Arrived::Answered | Arrived::Rang(_) => {}
            },
            Ok(None) => {}
            Err(e) => {
                println!("receive on the FLOW endpoint failed: {e}; the task stops");
                return;
            }
        }
    }
}
