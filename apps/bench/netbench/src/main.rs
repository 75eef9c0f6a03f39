//! netbench: the guest side of `cargo make bench net`. The host's runner
//! times what this task serves, through QEMU's forwarded ports:
//!
//! | port | loop | path |
//! |---|---|---|
//! | 7 | echo: `recv → send` until the peer closes | VAN ([`van`]) |
//! | 8 | the same echo | COSY ([`cosy`]) |
//! | 9 | request: `accept → recv → send a fixed answer → close` | VAN |
//! | 10 | the same request | COSY |
//!
//! VAN makes one IPC per socket operation through `conflux-net-client`
//! (blocking operations wait in the network server); COSY runs each step
//! as one prepared compound on the network server. Both configurations
//! are served by this one task in the same boot, so the runner measures
//! their ratio in one run. One loop waits on the four listeners (the
//! server's `wait`), and serves whichever has a connection; an echo
//! connection is served until its peer closes. The runner drives one
//! port at a time.
//!
//! Each configuration counts the IPCs it made and prints them when the
//! task has been idle for [`IDLE_MS`] (never while the runner is timing
//! a loop), so the figures can be read as "time per IPC" as well.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod cosy;
mod van;

use conflux_net_client::{Error, Events, Net, PollEntry, SockAddr, SockKind, Socket};
use conflux_socket_protocol::ops::WAIT_FOREVER;
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// The fixed answer of the request loop: an HTTP response, so the
/// runner's HTTP client reads and checks it as it reads httpd's.
pub const RESPONSE: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnetbench\n";
/// Bytes one `recv` takes at most (an echo message or a request).
pub const ROOM: u32 = 2048;
/// How long the listeners are quiet before the tallies are printed.
const IDLE_MS: u64 = 300;

/// What a port serves, and how.
#[derive(Clone, Copy)]
enum Loop {
    EchoVan,
    EchoCosy,
    RequestVan,
    RequestCosy,
}

/// The ports, in the order of [`Loop`]'s variants.
const PORTS: [(u16, Loop); 4] = [
    (7, Loop::EchoVan),
    (8, Loop::EchoCosy),
    (9, Loop::RequestVan),
    (10, Loop::RequestCosy),
];

/// Work done by one configuration.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    /// Round trips echoed, or requests answered.
    pub served: u64,
    /// IPCs to the network server made for them.
    pub ipcs: u64,
    /// COSY requests whose bytes were not in yet when their connection
    /// was accepted (an extra `wait` and compound each).
    pub late: u64,
}

fn main() {
    let mut net = Net::connect(conflux_net_client::manifest_caps!())
        .unwrap_or_else(|e| fail(&alloc::format!("cannot reach the network server: {e}")));
    let compounds = cosy::Compounds::prepare(&mut net)
        .unwrap_or_else(|e| fail(&alloc::format!("cannot prepare the compounds: {e}")));
    let mut listeners = [Socket(0); 4];
    for (l, (port, _)) in listeners.iter_mut().zip(PORTS) {
        *l = listen(&mut net, port)
            .unwrap_or_else(|e| fail(&alloc::format!("cannot listen on port {port}: {e}")));
    }
    println!("listening: echo VAN 7, echo COSY 8, request VAN 9, request COSY 10");
    let mut tallies = [Tally::default(); 4];
    let mut entries = listeners.map(|l| entry(l, Events::READABLE));
    loop {
        for e in &mut entries {
            e.revents = Events::NONE;
        }
        match net.wait(&mut entries, IDLE_MS) {
            Ok(0) => {
                report(&mut tallies);
                continue;
            }
            Ok(_) => {}
            // Its session is gone (the network server restarted, say):
            // a benchmark cannot go on from half its state.
            Err(e) => fail(&alloc::format!("wait on the listeners failed: {e}")),
        }
        for (i, (port, what)) in PORTS.iter().enumerate() {
            if entries[i].revents.is_empty() {
                continue;
            }
            let tally = &mut tallies[i];
            // The dispatcher's `wait` is part of every request's cost.
            tally.ipcs += 1;
            let listener = listeners[i];
            let result = match what {
                Loop::EchoVan => van::echo(&mut net, listener, tally),
                Loop::EchoCosy => cosy::echo(&mut net, &compounds, listener, tally),
                Loop::RequestVan => van::request(&mut net, listener, tally),
                Loop::RequestCosy => cosy::request(&mut net, &compounds, listener, tally),
            };
            if let Err(e) = result {
                println!("port {port}: {e}; serving on");
            }
        }
    }
}

/// Prints a tally line for each configuration that served since the
/// last one (the runner sums them), and starts counting again.
fn report(tallies: &mut [Tally; 4]) {
    const NAMES: [&str; 4] = ["echo VAN", "echo COSY", "request VAN", "request COSY"];
    for (tally, name) in tallies.iter_mut().zip(NAMES) {
        if tally.ipcs > 0 {
            println!(
                "{name}: {} served with {} IPCs ({} late requests)",
                tally.served, tally.ipcs, tally.late
            );
            *tally = Tally::default();
        }
    }
}

fn fail(why: &str) -> ! {
    println!("{why}; netbench stops");
    conflux_userlib::sys::exit(1)
}

pub fn entry(sock: Socket, events: Events) -> PollEntry {
    PollEntry {
        handle: sock.0 as u32,
        events,
        revents: Events::NONE,
    }
}

/// A blocking stream socket listening on `port`, with a backlog of one:
/// the runner makes one connection at a time, and every socket a
/// listener keeps ready is one fewer of the network server's 128 for the
/// connections that linger in TIME-WAIT after this task closed them.
fn listen(net: &mut Net, port: u16) -> Result<Socket, Error> {
    let s = net.socket(SockKind::Stream)?;
    net.bind(s, SockAddr::new([0; 4], port))?;
    net.listen(s, 1)?;
    Ok(s)
}

/// Waits (one IPC, parked in the server) until `s` is readable.
pub fn wait_readable(net: &mut Net, s: Socket) -> Result<(), Error> {
    let mut e = [entry(s, Events::READABLE)];
    net.wait(&mut e, WAIT_FOREVER).map(drop)
}
