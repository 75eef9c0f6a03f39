//! The HTTP peer: the runner's client for servers in the guest, reached
//! through QEMU's port forwards on 127.0.0.1 (never any other address:
//! [`Target`] holds only a port).
//!
//! Two kinds of exchange, each bounded by its own deadline:
//!
//! - [`fetch`]: well-formed GET or HEAD requests from concurrent clients,
//!   each keeping its connection alive (and connecting again when the
//!   server closes it between requests), checking the status line,
//!   `Content-Length` and every body byte; it measures requests/s and
//!   bytes/s ([`Stats`]), so a benchmark can use it as it is. A plan may
//!   allow answers cut short (`may_cut`: a server restarted on purpose
//!   mid-transfer): a reset, a close or a stall then ends that client
//!   without failing, but a wrong byte still fails.
//! - [`raw`]: bytes written as they are (malformed requests, header
//!   floods, truncated or idle requests) and the answer judged by the
//!   rule of [`RawThen`].
//! - [`hold`]: peers that take a connection and stop reading (stalled or
//!   idle), a normal client beside them that must still be served, and
//!   whether the server cut the held answers.
//! - [`conditional`]: ranges, conditional requests, `Date`, and the
//!   server's status page, on one file (and through `curl` if present).
//!
//! - [`crowd`]: many clients connecting at once, each with one GET, and
//!   a normal client afterwards (needs passt: see [`connect_concurrently`]).
//!
//! Under slirp, connections are opened one at a time, each once QEMU has
//! accepted the one before ([`gate`]): its forward listens with a backlog
//! of 1. Under passt they are opened as the clients come.
//!
//! Failures are messages for people: what was expected and what came,
//! with the answer's first bytes escaped.

mod conditional;
mod conn;
mod crowd;
mod fetch;
mod gate;
mod hold;
mod raw;

use std::net::{Ipv4Addr, SocketAddr};

pub use conditional::{conditional, ConditionalPlan};
pub use crowd::{crowd, gather, CrowdPlan, CrowdReport};
pub use fetch::{fetch, Expected, FetchPlan, Stats};

/// Whether the peer may open connections at once (the network backend
/// takes them: passt) or must open them one at a time (slirp).
pub fn connect_concurrently(concurrent: bool) {
    gate::set_concurrent(concurrent);
}
pub use hold::{hold, HoldPlan, Probe};
pub use raw::{flood_head, raw, RawPlan, RawReport, RawThen};

/// A TCP port on this machine's loopback address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    port: u16,
}

impl Target {
    /// The server at 127.0.0.1:`port`.
    pub fn loopback(port: u16) -> Self {
        Self { port }
    }

    pub fn port(self) -> u16 {
        self.port
    }

    fn addr(self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }
}

/// Most bytes of an answer quoted in a message.
const QUOTED: usize = 120;

/// The first bytes of `bytes`, escaped and quoted for a message.
pub fn escape(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(QUOTED)];
    let more = bytes.len() - shown.len();
    let tail = if more > 0 {
        format!(" (and {more} more bytes)")
    } else {
        String::new()
    };
    format!("\"{}\"{tail}", shown.escape_ascii())
}

/// The status code of an answer that starts with a whole status line
/// (`HTTP/1.x NNN ...\r\n`), if it does.
pub fn status_of(answer: &[u8]) -> Option<u16> {
    let end = answer.windows(2).position(|w| w == b"\r\n")?;
    let line = std::str::from_utf8(&answer[..end]).ok()?;
    let rest = line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| line.strip_prefix("HTTP/1.0 "))?;
    let code = rest.get(..3)?;
    let after = rest.get(3..)?;
    let valid =
        code.bytes().all(|b| b.is_ascii_digit()) && (after.is_empty() || after.starts_with(' '));
    valid.then(|| code.parse().ok()).flatten()
}

#[cfg(test)]
pub(crate) mod tests;
