//! httpd's counters and the status page that shows them.
//!
//! The page is at the target `/?status` ([`STATUS_TARGET`]): a query on
//! the root, which no file can be named by (httpd drops queries when it
//! maps a target to a path, so a file's URL never needs one), so the
//! page can never hide a file or be hidden by one. It is plain text, one
//! `name value` pair a line, for people and for scripts alike.
//!
//! What is counted, and when:
//! - `requests`: request heads read whole or refused (400, 408, 431,
//!   505…), each once, when its answer is chosen. The status page's own
//!   request is counted before the page is written.
//! - `responses_1xx` … `responses_5xx`: the answers chosen, by the class
//!   of their status, at the same moment; the 503s to connections turned
//!   away (no request read) are counted here and in `turned_away`. The
//!   status page's own answer is counted before the page is written.
//! - `bytes_sent`: bytes of heads and bodies the network server took,
//!   as it takes them (the page's own bytes come later, so they are not
//!   in it).
//! - `connections_open`: connections served at the moment (the page's
//!   own among them), not counting those being turned away;
//!   `connections_accepted`: every connection accepted since start.
//! - `turned_away`: new connections answered 503 or closed unanswered
//!   because httpd was full; `evicted`: quiet connections closed to make
//!   room; `cut`: answers reset because the peer read too slowly or not
//!   at all; `reset_by_peer`: connections the peer reset.

use alloc::string::String;
use core::fmt::Write;

use crate::date::HttpDate;
use crate::status::Status;

/// The request target of the status page.
pub const STATUS_TARGET: &str = "/?status";

/// Everything httpd counts since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub requests: u64,
    /// Answers by status class: index 0 is 1xx, 4 is 5xx.
    pub responses: [u64; 5],
    pub bytes_sent: u64,
    pub connections_open: u64,
    pub connections_accepted: u64,
    pub turned_away: u64,
    pub evicted: u64,
    pub cut: u64,
    pub reset_by_peer: u64,
}

impl Counters {
    pub const fn new() -> Counters {
        Counters {
            requests: 0,
            responses: [0; 5],
            bytes_sent: 0,
            connections_open: 0,
            connections_accepted: 0,
            turned_away: 0,
            evicted: 0,
            cut: 0,
            reset_by_peer: 0,
        }
    }

    /// A request was read (or refused) and is answered with `status`.
    pub fn request(&mut self, status: Status) {
        self.requests += 1;
        self.response(status);
    }

    /// An answer with `status` was chosen.
    pub fn response(&mut self, status: Status) {
        let class = usize::from(status.code() / 100).clamp(1, 5);
        self.responses[class - 1] += 1;
    }

    /// The status page: the counters, the time (`now`, if the system has
    /// a wall clock) and how long httpd has run.
    pub fn page(&self, now: Option<HttpDate>, uptime_ms: u64) -> String {
        let mut out = String::from("conflux-httpd status\n");
        if let Some(now) = now {
            let _ = writeln!(out, "date {now}");
        }
        let _ = writeln!(out, "uptime_secs {}", uptime_ms / 1000);
        let _ = writeln!(out, "requests {}", self.requests);
        for (i, n) in self.responses.iter().enumerate() {
            let _ = writeln!(out, "responses_{}xx {n}", i + 1);
        }
        let rows = [
            ("bytes_sent", self.bytes_sent),
            ("connections_open", self.connections_open),
            ("connections_accepted", self.connections_accepted),
            ("turned_away", self.turned_away),
            ("evicted", self.evicted),
            ("cut", self.cut),
            ("reset_by_peer", self.reset_by_peer),
        ];
        for (name, n) in rows {
            let _ = writeln!(out, "{name} {n}");
        }
        out
    }
}
