//! `flowfile`: the file flow stage task.
//!
//! It runs, for `flowmgr`, the `file` stage: a byte range of a file as a
//! flow's source, a file as its sink. It is an ordinary client of the file
//! server (`conflux-fs-client`, its own control region): each buffer is
//! copied between the flow's pool and the control region, and the file
//! server never maps a pool — `flowmgr` revokes a flow's pool underneath
//! its stages when the flow is destroyed, and a server shared by every
//! task must never fault on that. Its loop is every stage task's: move
//! buffers for every running flow while any moves; when none can, ask the
//! neighbours to ring (the edges' *signal me*) and wait on its FLOW
//! endpoint, where `flowmgr`'s messages arrive and where its doorbell
//! notification (`FLOW_BELL`) is bound.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod files;
mod work;

use conflux_flow_stage::{StageEndpoint, System};
use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    let files = files::Files::new(conflux_fs_client::manifest_caps!());
    let mut flows = match StageEndpoint::new(
        config::caps::FLOW,
        config::caps::FLOW_BELL,
        config::caps::FIRST_FREE,
        work::FileStage::new(files),
    ) {
        Ok(f) => f,
        Err(e) => {
            println!("cannot bind the doorbell to the FLOW endpoint: {e}; the task stops (check the manifest's [flows] lowering)");
            return;
        }
    };
    let mut os = System;
    println!("file stage ready: file source and sink");
    loop {
        let work = &mut flows.work;
        let progress = flows
            .stages
            .run(|flow, io, job| work.step(&mut os, flow, io, job));
        // Busy: look for a message without waiting. Idle: wait for one or
        // for a doorbell (answered or noted inside `receive`).
        let _ = flows.receive(!progress);
    }
}
