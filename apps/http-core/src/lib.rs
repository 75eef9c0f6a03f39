//! HTTP/1.1 as `httpd` speaks it, kept apart from the task so it runs
//! (and is tested and fuzzed) on the host.
//!
//! Requests are untrusted bytes from the network. [`request::parse`]
//! turns them into a [`request::Request`] once, with every limit checked
//! there (header size, method, version, a path that cannot leave the
//! served tree, no body), and says why it refuses them as an error status.
//! Everything after works with the validated type: [`response`] writes
//! response heads, the pages for errors, and directory listings.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod conn;
pub mod path;
pub mod request;
pub mod response;
pub mod status;

pub use request::{parse, Method, Parsed, Request};
pub use status::Status;
