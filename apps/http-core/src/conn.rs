//! One HTTP connection's request side: bytes in, requests out, with the
//! deadlines that keep a slow or silent client from holding a connection.
//!
//! The bytes of a request head are collected until the head is complete
//! (then parsed once, [`crate::request::parse`]), refused (too long, bad),
//! or too slow: a head must be complete [`HEAD_DEADLINE_MS`] after its
//! first byte, however the client spaces its bytes out (slowloris), and
//! is answered 408 otherwise. A kept-alive connection on which nothing
//! arrives for [`IDLE_MS`] is closed without an answer. Pipelined bytes
//! after a head stay for the next request. Time is passed in, in
//! milliseconds, so the rules are tested without a clock.

use alloc::string::String;
use alloc::vec::Vec;

use crate::request::{parse, Parsed, Request, HEAD_MAX};
use crate::status::Status;

/// How long a request head may take from its first byte.
pub const HEAD_DEADLINE_MS: u64 = 3_000;
/// How long a kept-alive connection may stay silent between requests.
pub const IDLE_MS: u64 = 15_000;

/// What to do next on a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Answer this request (then ask again: more may be buffered).
    Serve(Request),
    /// Answer `status` with `why`, then close.
    Refuse { status: Status, why: String },
    /// Close without an answer (idle between requests).
    Close,
    /// Wait for bytes, until the time given (ms), then ask again.
    WaitUntil(u64),
}

/// The request side of one connection.
pub struct Conn {
    buf: Vec<u8>,
    /// When the first byte of the head being collected came.
    head_started: Option<u64>,
    /// When the last request was answered (or the connection opened).
    idle_since: u64,
}

impl Conn {
    /// A connection accepted at `now`.
    pub fn new(now: u64) -> Conn {
        Conn {
            buf: Vec::new(),
            head_started: None,
            idle_since: now,
        }
    }

    /// Bytes that arrived at `now`. Past [`HEAD_MAX`] + 1 bytes of an
    /// unfinished head the rest is dropped: the head is refused anyway.
    pub fn received(&mut self, bytes: &[u8], now: u64) {
        if bytes.is_empty() {
            return;
        }
        if self.buf.is_empty() {
            self.head_started = Some(now);
        }
        let room = (HEAD_MAX + 1).saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Since when the connection has been quiet, as eviction sees it
    /// ([`crate::seats`]): the first byte of a head still incomplete (a
    /// head that drags on is a slowloris, whatever its pace), else the
    /// end of the last answer (idle between requests).
    pub fn quiet_since(&self) -> u64 {
        self.head_started.unwrap_or(self.idle_since)
    }

    /// Room for more bytes before the limit (what to ask the socket for).
    pub fn room(&self) -> usize {
        (HEAD_MAX + 1).saturating_sub(self.buf.len())
    }

    /// What to do at `now`.
    pub fn next(&mut self, now: u64) -> Step {
        match parse(&self.buf) {
            Parsed::Complete { request, consumed } => {
                self.buf.drain(..consumed);
                self.head_started = (!self.buf.is_empty()).then_some(now);
                self.idle_since = now;
                Step::Serve(request)
            }
            Parsed::Refused { status, why } => Step::Refuse { status, why },
            Parsed::Partial => match self.head_started {
                Some(start) if now.saturating_sub(start) >= HEAD_DEADLINE_MS => Step::Refuse {
                    status: Status::RequestTimeout,
                    why: String::from("the request head did not arrive within 3 seconds"),
                },
                Some(start) => Step::WaitUntil(start + HEAD_DEADLINE_MS),
                None if now.saturating_sub(self.idle_since) >= IDLE_MS => Step::Close,
                None => Step::WaitUntil(self.idle_since + IDLE_MS),
            },
        }
    }

    /// The peer closed its side: a head cut short is answered 400; nothing
    /// pending means a clean close.
    pub fn peer_closed(&self) -> Step {
        if self.buf.is_empty() {
            Step::Close
        } else {
            Step::Refuse {
                status: Status::BadRequest,
                why: String::from("the connection closed in the middle of a request head"),
            }
        }
    }
}
