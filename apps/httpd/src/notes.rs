//! httpd's log lines about peers it cut, evicted or turned away, and
//! those that reset their connections.
//!
//! How often these happen is up to the peers, so each kind goes through a
//! [`Tally`]: the first of a minute is a whole line saying who, what and
//! why; the rest of that minute are counted and said in one line after
//! it. Someone reading the console at 2 a.m. sees that it happens, to
//! whom, and how often, without a line per attacker's connection.

use conflux_http::pace::{Verdict, MIN_RATE, STALL_MS};
use conflux_http::seats::{Full, EVICT_QUIET_MS, MAX_CONNS, MAX_PER_PEER};
use conflux_http::tally::Tally;
use conflux_net_client::SockAddr;
use conflux_userlib::println;

/// One tally per kind of line.
pub struct Notes {
    gone: Tally,
    cut: Tally,
    evicted: Tally,
    turned_away: Tally,
}

/// ` (and N more since the last such line)`, or nothing.
fn held(n: u64) -> alloc::string::String {
    if n == 0 {
        alloc::string::String::new()
    } else {
        alloc::format!(" (and {n} more like it in the last minute)")
    }
}

fn full_text(full: Full, peer: SockAddr) -> alloc::string::String {
    let [a, b, c, d] = peer.ip;
    match full {
        Full::Server => alloc::format!("all {MAX_CONNS} connections are taken"),
        Full::Peer => {
            alloc::format!("{a}.{b}.{c}.{d} holds its limit of {MAX_PER_PEER} connections")
        }
    }
}

impl Notes {
    pub const fn new() -> Notes {
        Notes {
            gone: Tally::new(),
            cut: Tally::new(),
            evicted: Tally::new(),
            turned_away: Tally::new(),
        }
    }

    /// The peer reset the connection while `what` was under way (a
    /// download cancelled, a client that gave up): closed.
    pub fn gone(&mut self, now: u64, peer: SockAddr, what: &str) {
        if let Some(more) = self.gone.event(now) {
            println!(
                "{peer} reset its connection during {what}; closed it{}",
                held(more)
            );
        }
    }

    /// A connection's answer missed a deadline (`verdict`) and was reset.
    pub fn cut(
        &mut self,
        now: u64,
        peer: SockAddr,
        what: &str,
        verdict: Verdict,
        sent: (u64, u64),
    ) {
        let Some(more) = self.cut.event(now) else {
            return;
        };
        let why = match verdict {
            Verdict::Stalled => alloc::format!("the peer took nothing for {} s", STALL_MS / 1000),
            _ => alloc::format!(
                "the peer reads below the floor of {} KiB/s",
                MIN_RATE / 1024
            ),
        };
        println!(
            "cut the connection from {peer} ({what}, {} of {} bytes sent): {why}; reset it and closed the file{}",
            sent.0,
            sent.1,
            held(more)
        );
    }

    /// A quiet connection made room for a new one.
    pub fn evicted(
        &mut self,
        now: u64,
        full: Full,
        victim: SockAddr,
        quiet_ms: u64,
        newcomer: SockAddr,
    ) {
        let Some(more) = self.evicted.event(now) else {
            return;
        };
        println!(
            "full ({}): closed the connection from {victim}, quiet for {}.{} s, to serve {newcomer}{}",
            full_text(full, newcomer),
            quiet_ms / 1000,
            quiet_ms % 1000 / 100,
            held(more)
        );
    }

    /// A new connection was answered 503 (`answered`), or closed without
    /// an answer because too many 503s are still going out.
    pub fn turned_away(&mut self, now: u64, full: Full, newcomer: SockAddr, answered: bool) {
        let Some(more) = self.turned_away.event(now) else {
            return;
        };
        let how = if answered {
            "answered 503"
        } else {
            "closed without an answer (too many 503s still going out)"
        };
        println!(
            "full ({}), and no connection quiet for {} s to make room: {how} to {newcomer}{}",
            full_text(full, newcomer),
            EVICT_QUIET_MS / 1000,
            held(more)
        );
    }

    /// The counts held back during a minute now over, one line each.
    pub fn flush(&mut self, now: u64) {
        if let Some(n) = self.gone.flush(now) {
            println!("{n} more connections were reset by their peers in the last minute");
        }
        if let Some(n) = self.cut.flush(now) {
            println!("cut {n} more connections in the last minute (peers that stopped reading or read too slowly)");
        }
        if let Some(n) = self.evicted.flush(now) {
            println!("evicted {n} more quiet connections in the last minute to serve new ones");
        }
        if let Some(n) = self.turned_away.flush(now) {
            println!("turned {n} more connections away in the last minute (full, none quiet)");
        }
    }
}
