//! `flownet`: the network flow stage task.
//!
//! It runs, for `flowmgr`, the sinks that send a flow's buffers to a peer
//! on the network: `tcp` (one connection, the buffers' bytes as one
//! stream, in order) and `udpto` (each buffer one datagram). It is an
//! ordinary client of the network server through `conflux-net-client`:
//! the server never maps a flow's pool (`flowmgr` revokes pools under
//! stages, and the server must never fault on that), so each buffer is
//! copied once, into this task's control region, on its way to the
//! server. Its loop is every stage task's (see `flowsoft`): move buffers
//! while any moves; when none can, ask the neighbours to ring and wait on
//! the FLOW endpoint. When a socket cannot take more (a full send
//! buffer), the task waits in the network server, briefly, for room in
//! it, then looks at its endpoint without blocking and tries again.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod datagram;
mod stream;
mod work;

use conflux_flow_stage::{StageEndpoint, System};
use conflux_net_client::Net;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    let net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            println!("cannot reach the network server: {e}; the task stops (check that the manifest gives it `net` and `net_control` and runs the net task first)");
            return;
        }
    };
    let bell = Notification(config::caps::FLOW_BELL);
    let mut flows = match StageEndpoint::new(
        config::caps::FLOW,
        config::caps::FLOW_BELL,
        config::caps::FIRST_FREE,
        work::Sinks::new(net, bell),
    ) {
        Ok(f) => f,
        Err(e) => {
            println!("cannot bind the doorbell to the FLOW endpoint: {e}; the task stops (check the manifest's [flows] lowering)");
            return;
        }
    };
    let mut os = System;
    println!("network stage ready: tcp, udpto");
    loop {
        let work = &mut flows.work;
        let progress = flows.stages.run(|_, io, job| work.step(&mut os, io, job));
        // Busy, or just waited for room in a socket: look for a message
        // without waiting. Idle: wait for one, a doorbell or the timer.
        let waited = !progress && flows.work.wait_for_room();
        let _ = flows.receive(!progress && !waited);
    }
}
