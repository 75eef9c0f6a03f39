//! The network server restarts under a running `tcp` sink (system
//! `flow-tcp-restart`, whose server faults on purpose once it has sent
//! 640 KiB of frames). The sink's connection is gone with the server:
//! flownet says so once, sends nothing more on it (it never reconnects
//! behind the application's back: bytes would be missing from the middle
//! of the stream), and drops and counts the rest, so the flow still ends
//! `Done`, every buffer accounted for as sent or dropped; the runner
//! checks that every byte that came before the cut was right. A flow
//! created after the restart gets a new connection and sends whole.

use crate::{wait_done, Case};
use conflux_flow_protocol::api::FlowState;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::text::{self, Lines};
use flow_client::Flows;

/// Records of the flow the restart cuts: 4 MiB, far past the fault.
const CUT: u64 = 4000;

pub fn run_cut(flows: &Flows, clock: Notification) {
    let words = ["pattern:4000:58040", "tcp:10.0.2.100:5801", "buffer=1024"];
    let id = match text::request(&words).map(|r| flows.create(&r)) {
        Ok(Ok(id)) => id,
        Ok(Err(e)) => return println!("FAIL: cut: create: {e}"),
        Err(e) => return println!("FAIL: cut: parse: {e}"),
    };
    println!("cut: flow {} running", id.0);
    let Some(s) = wait_done(flows, clock, id) else {
        println!("FAIL: cut: not over within a minute");
        let _ = flows.destroy(id);
        return;
    };
    println!("cut: {}", Lines(&s));
    let (sent, dropped) = (s.sink[0], s.edges[0].drops);
    if s.state == FlowState::Done && sent < CUT && sent + dropped == CUT {
        println!(
            "ok: cut by the restart: {sent} buffers sent, {dropped} dropped and counted, none lost unseen"
        );
    } else {
        println!(
            "FAIL: cut: {:?}, {sent} sent and {dropped} dropped of {CUT}",
            s.state
        );
    }
    match flows.destroy(id) {
        Ok(()) => println!("ok: cut: destroyed"),
        Err(e) => println!("FAIL: cut: destroy: {e}"),
    }
}

pub fn run(flows: &Flows, clock: Notification) {
    run_cut(flows, clock);
    crate::run(
        flows,
        clock,
        &Case {
            name: "after the restart",
            words: &["pattern:300:58050", "tcp:10.0.2.100:5802", "buffer=1024"],
            figures: [300, 300 * 1024],
            drops: 0,
        },
    );
}
