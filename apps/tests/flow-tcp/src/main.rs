//! Test task: flows into `flownet`'s network sinks, set up through
//! flowmgr from the text syntax. Records go over TCP to the runner, which
//! listens behind the system's guest forwards and checks every byte: a
//! plain stream of 8 KiB buffers (more than the socket takes at once, so
//! partial sends are retried), and a stream encrypted in software that the
//! runner decrypts. A `tcp` sink to a port nothing forwards is refused at
//! create. Datagrams to the host cannot leave QEMU's restricted network
//! (it drops every UDP datagram but DHCP and TFTP), so the `udpto` flow
//! is checked by its sink's figures: every buffer went out as one
//! datagram; one too large for a datagram is refused, dropped and
//! counted.
//!
//! In the system `flow-tcp-restart` it runs [`restart`] instead: the
//! network server dies under a running `tcp` sink.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::FlowState;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::text::{self, Lines};
use flow_client::{FlowId, Flows};

mod restart;

conflux_userlib::entry!(main);

/// Ticks (10 ms) between looks, and looks before giving up (60 s).
const EVERY: u64 = 10;
const LOOKS: u32 = 600;

/// A flow to run to its end, and the sink figures it must end with.
pub struct Case {
    pub name: &'static str,
    pub words: &'static [&'static str],
    pub figures: [u64; 2],
    /// Buffers the sink must have dropped (and counted).
    pub drops: u64,
}

const CASES: [Case; 4] = [
    Case {
        name: "plain tcp",
        words: &["pattern:200:58010", "tcp:10.0.2.100:5801", "buffer=8192"],
        figures: [200, 200 * 8192],
        drops: 0,
    },
    Case {
        name: "encrypted tcp",
        words: &[
            "pattern:300:58020",
            "encrypt:cbc:636f6e666c75782d666c6f772d6b6579:636f6e666c75782d666c6f772d697621:software",
            "tcp:10.0.2.100:5802",
            "buffer=1024",
        ],
        figures: [300, 300 * 1024],
        drops: 0,
    },
    Case {
        name: "udpto",
        words: &["pattern:50:58030", "udpto:10.0.2.100:5803", "buffer=1024"],
        figures: [50, 50 * 1024],
        drops: 0,
    },
    // Larger than flownet's staging area (half its 64 KiB control
    // region): each datagram is refused, dropped and counted.
    Case {
        name: "udpto too large",
        words: &["pattern:5:58060", "udpto:10.0.2.100:5803", "buffer=40960"],
        figures: [0, 0],
        drops: 5,
    },
];

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let clock = Notification(config::caps::CLOCK);
    if config::SYSTEM_NAME == "flow-tcp-restart" {
        restart::run(&flows, clock);
        println!("done");
        return;
    }
    for case in &CASES {
        run(&flows, clock, case);
    }
    destroy_mid_stream(&flows, clock);
    // Nothing forwards guest port 5899: QEMU's restricted network refuses
    // the connection, and flownet refuses START.
    let words = ["pattern:10:1", "tcp:10.0.2.100:5899"];
    match text::request(&words).map(|r| flows.create(&r)) {
        Ok(Err(e)) => println!("ok: tcp to a port nobody listens on refused: {e}"),
        Ok(Ok(id)) => {
            println!("FAIL: tcp to a port nobody listens on was created");
            let _ = flows.destroy(id);
        }
        Err(e) => println!("FAIL: parse: {e}"),
    }
    println!("done");
}

pub fn run(flows: &Flows, clock: Notification, case: &Case) {
    let id = match text::request(case.words) {
        Ok(r) => match flows.create(&r) {
            Ok(id) => id,
            Err(e) => return println!("FAIL: {}: create: {e}", case.name),
        },
        Err(e) => return println!("FAIL: {}: parse: {e}", case.name),
    };
    println!("{}: flow {} running", case.name, id.0);
    let Some(s) = wait_done(flows, clock, id) else {
        println!(
            "FAIL: {}: not done within {} s",
            case.name,
            LOOKS as u64 * EVERY / 100
        );
        let _ = flows.destroy(id);
        return;
    };
    println!("{}: {}", case.name, Lines(&s));
    let drops = s.edges[..s.edge_count].last().map_or(0, |e| e.drops);
    if s.state == FlowState::Done && s.sink == case.figures && drops == case.drops {
        println!(
            "ok: {}: {} buffers, {} bytes sent, {drops} dropped",
            case.name, s.sink[0], s.sink[1]
        );
    } else {
        println!(
            "FAIL: {}: {:?} with sink figures {:?} and {drops} dropped, not Done with {:?} and {} dropped",
            case.name, s.state, s.sink, case.figures, case.drops
        );
    }
    match flows.destroy(id) {
        Ok(()) => println!("ok: {}: destroyed", case.name),
        Err(e) => println!("FAIL: {}: destroy: {e}", case.name),
    }
}

/// A `tcp` flow destroyed while it runs: at STOP flownet sends what it
/// holds (a buffer the socket took only part of) and what is queued for
/// it, then closes, so the runner's stream ends between records
/// (`cut_at_unit`). 1472-byte buffers do not divide the socket's 64 KiB,
/// so sends are cut part-way through buffers.
fn destroy_mid_stream(flows: &Flows, clock: Notification) {
    let words = ["pattern:100000:58070", "tcp:10.0.2.100:5804", "buffer=1472"];
    let id = match text::request(&words).map(|r| flows.create(&r)) {
        Ok(Ok(id)) => id,
        Ok(Err(e)) => return println!("FAIL: mid-stream: create: {e}"),
        Err(e) => return println!("FAIL: mid-stream: parse: {e}"),
    };
    let mut sent = 0;
    for _ in 0..LOOKS * EVERY as u32 {
        let _ = clock.timer(1);
        let _ = clock.wait();
        sent = flows.stats(id).map_or(0, |s| s.sink[0]);
        if sent >= 300 {
            break;
        }
    }
    match flows.destroy(id) {
        Ok(()) if sent >= 300 => {
            println!("ok: mid-stream: destroyed after at least {sent} buffers sent")
        }
        Ok(()) => println!("FAIL: mid-stream: only {sent} buffers sent in a minute"),
        Err(e) => println!("FAIL: mid-stream: destroy: {e}"),
    }
}

/// The flow's statistics once it is over (done or terminated), looking
/// every `EVERY` ticks.
pub fn wait_done(
    flows: &Flows,
    clock: Notification,
    id: FlowId,
) -> Option<conflux_flow_protocol::api::FlowStats> {
    let sleep = || {
        let _ = clock.timer(EVERY);
        let _ = clock.wait();
    };
    flows.wait_finished(id, LOOKS, sleep).ok().flatten()
}
