//! The user-mode network's isolation, from inside the guest: this task
//! connects to port [`PORT`] at every address a guest might use to get
//! out, while the runner listens on that port at every address of the
//! host (`[test] listen`), loopback included — so a way out, if there
//! were one, would have something to reach. Every attempt must fail:
//! refused, unreachable, or no answer within [`PATIENCE_MS`].
//!
//! The connects are non-blocking and waited on together, so a network
//! that drops them silently (slirp's `restrict=on`) costs the patience
//! once, not the network server's 30-second connect timeout per address.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_net_client::{Error, Events, Net, NetError, PollEntry, SockAddr, SockKind, Socket};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// The host port the runner listens on at every address.
const PORT: u16 = 5611;
/// How long the connects may take, together.
const PATIENCE_MS: u64 = 8000;
/// Each wait's slice of the patience.
const SLICE_MS: u64 = 500;

/// Where a guest might try to get out, and why each matters.
const TARGETS: [([u8; 4], &str); 5] = [
    (
        [10, 0, 2, 2],
        "the gateway (the host's loopback, if it were mapped)",
    ),
    ([127, 0, 0, 1], "the loopback address, sent out on the wire"),
    ([192, 0, 2, 1], "an address past the gateway"),
    (
        [10, 0, 2, 100],
        "the guest-forward address, on a port not forwarded",
    ),
    ([10, 0, 2, 3], "slirp's DNS address"),
];

/// How one attempt ended.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fate {
    Pending,
    Connected,
    Failed(Option<NetError>),
}

fn main() {
    let mut c = Checks::new();
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish();
        }
    };
    let mut attempts: [(Option<Socket>, Fate); TARGETS.len()] = [(None, Fate::Pending); 5];
    for (i, (addr, _)) in TARGETS.iter().enumerate() {
        attempts[i] = start(&mut net, *addr);
    }
    let mut waited = 0;
    while waited < PATIENCE_MS && attempts.iter().any(|(_, f)| *f == Fate::Pending) {
        settle(&mut net, &mut attempts);
        waited += SLICE_MS;
    }
    for (i, (addr, why)) in TARGETS.iter().enumerate() {
        let [a, b, cc, d] = *addr;
        let fate = attempts[i].1;
        let how = match fate {
            Fate::Pending => "no answer",
            Fate::Connected => "CONNECTED",
            Fate::Failed(Some(NetError::Refused)) => "refused",
            Fate::Failed(Some(NetError::NetworkUnreachable)) => "unreachable",
            Fate::Failed(Some(NetError::TimedOut)) => "timed out",
            Fate::Failed(_) => "failed",
        };
        println!("{a}.{b}.{cc}.{d}:{PORT} ({why}): {how}");
        c.that(
            "a connection beyond the guest is not made",
            fate != Fate::Connected,
            fate,
        );
    }
    for s in attempts.iter().filter_map(|(s, _)| *s) {
        let _ = net.close(s);
    }
    if attempts.iter().all(|(_, f)| *f != Fate::Connected) {
        println!("no address beyond the guest was reached");
    }
    c.finish();
}

/// Starts a non-blocking connect to `addr`:[`PORT`].
fn start(net: &mut Net, addr: [u8; 4]) -> (Option<Socket>, Fate) {
    let s = match net.socket(SockKind::Stream) {
        Ok(s) => s,
        Err(e) => return (None, Fate::Failed(e.net())),
    };
    if let Err(e) = net.set_nonblocking(s, true) {
        return (Some(s), Fate::Failed(e.net()));
    }
    match net.connect_to(s, SockAddr::new(addr, PORT)) {
        Ok(()) => (Some(s), Fate::Connected),
        Err(Error::Net(NetError::InProgress)) => (Some(s), Fate::Pending),
        Err(e) => (Some(s), Fate::Failed(e.net())),
    }
}

/// Waits one slice for the pending connects; records which ended how.
fn settle(net: &mut Net, attempts: &mut [(Option<Socket>, Fate)]) {
    let mut entries = [PollEntry {
        handle: 0,
        events: Events::NONE,
        revents: Events::NONE,
    }; TARGETS.len()];
    let mut which = [0usize; TARGETS.len()];
    let mut n = 0;
    for (i, (s, fate)) in attempts.iter().enumerate() {
        if let (Some(s), Fate::Pending) = (s, fate) {
            entries[n] = PollEntry {
                handle: s.0 as u32,
                events: Events::WRITABLE,
                revents: Events::NONE,
            };
            which[n] = i;
            n += 1;
        }
    }
    if net.wait(&mut entries[..n], SLICE_MS).is_err() {
        return;
    }
    for (entry, &i) in entries[..n].iter().zip(&which) {
        let r = entry.revents.0;
        if r & (Events::ERROR.0 | Events::HANGUP.0 | Events::INVALID.0) != 0 {
            // What the connect itself says now: its error.
            let again = attempts[i]
                .0
                .map(|s| net.connect_to(s, SockAddr::new(TARGETS[i].0, PORT)));
            attempts[i].1 = Fate::Failed(again.and_then(|r| r.err()).and_then(|e| e.net()));
        } else if r & Events::WRITABLE.0 != 0 {
            attempts[i].1 = Fate::Connected;
        }
    }
}
