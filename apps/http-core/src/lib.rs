//! HTTP/1.1 as `httpd` speaks it, kept apart from the task so it runs
//! (and is tested and fuzzed) on the host.
//!
//! Requests are untrusted bytes from the network. [`request::parse`]
//! turns them into a [`request::Request`] once, with every limit checked
//! there (header size, method, version, a path that cannot leave the
//! served tree, no body), and says why it refuses them as an error status.
//! Everything after works with the validated type: [`response`] writes
//! response heads, the pages for errors, and directory listings.
//!
//! What clients expect beyond a plain GET: [`date`] (HTTP-dates written
//! and read in the three forms), [`range`] (the `Range` header and the
//! part it selects) and [`cond`] (conditional requests: 304, 206, 416),
//! and [`stats`], the counters and the status page at `/?status`.
//!
//! The rules for peers that are slow or hostile rather than malformed
//! live here too, with the time passed in: [`conn`] (a head's and an idle
//! connection's deadlines), [`pace`] (an answer's: a stall and a rate
//! floor), [`seats`] (per-address limits and whom to evict when full),
//! [`tally`] (log lines an attacker cannot multiply) and [`backoff`] (how
//! long to pause after a failed call before trying it again).
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod backoff;
pub mod cond;
pub mod conn;
pub mod date;
pub mod pace;
pub mod path;
pub mod range;
pub mod request;
pub mod response;
pub mod seats;
pub mod spin;
pub mod stats;
pub mod status;
pub mod tally;

pub use request::{parse, Method, Parsed, Request};
pub use status::Status;
