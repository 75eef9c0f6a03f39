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

use conflux_flow_stage::{StageEndpoint, System};
use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    let mut flows = match StageEndpoint::new(
        config::caps::FLOW,
        config::caps::FLOW_BELL,
        config::caps::FIRST_FREE,
        work::Soft,
    ) {
        Ok(f) => f,
        Err(e) => {
            println!("cannot bind the doorbell to the FLOW endpoint: {e}; the task stops (check the manifest's [flows] lowering)");
            return;
        }
    };
    let mut os = System;
    println!("software stage ready: cipher, crc32c, null, pattern, check");
    loop {
        let progress = flows.stages.run(|_, io, job| work::step(&mut os, io, job));
        // Busy: look for a message without waiting. Idle: wait for one or
        // for a doorbell (answered or noted inside `receive`).
        let _ = flows.receive(!progress);
    }
}
