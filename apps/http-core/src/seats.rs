//! Who gets one of httpd's connections when a new one arrives, so that
//! slow or stalled peers cannot lock everybody else out.
//!
//! httpd serves at most [`MAX_CONNS`] connections, at most
//! [`MAX_PER_PEER`] of them from one address, so one address always
//! leaves some for others. A new connection that finds its limit reached
//! does not simply wait or get refused: the connection that has been
//! *quiet* longest — idle between requests, dragging out a request head,
//! or not taking its answer — makes room for it, if it has been quiet for
//! at least [`EVICT_QUIET_MS`]. A connection moving bytes is never
//! quiet that long, so only peers that hold a connection without using it
//! are evicted. When the limit is the peer's own, only its own
//! connections are candidates: one address cannot push others out by
//! opening more. With no candidate the newcomer is answered 503 (with
//! `Retry-After`), never left in silence.
//!
//! QEMU's user network (slirp) makes every connection from the host
//! arrive from one address, 10.0.2.2, so there the per-address limit is
//! the whole limit for all host clients together, and eviction is what
//! protects a normal client from stalled ones.

/// Connections served at once.
pub const MAX_CONNS: usize = 48;
/// Connections served at once from one address: the rest of
/// [`MAX_CONNS`] stays for other addresses.
pub const MAX_PER_PEER: usize = 40;
/// How long a connection must have been quiet to be evicted: long enough
/// that a client between two requests of a burst keeps its connection.
pub const EVICT_QUIET_MS: u64 = 1_000;

/// A connection being served, as admission sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seat {
    /// The peer's IPv4 address.
    pub peer: [u8; 4],
    /// Since when it has been quiet (ms): the start of its idle time
    /// (`Conn::quiet_since`), or its answer's last progress
    /// (`Pace::moved_at`).
    pub quiet_since: u64,
}

/// Which limit a newcomer met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// All [`MAX_CONNS`] connections are taken.
    Server,
    /// Its address holds [`MAX_PER_PEER`].
    Peer,
}

/// What to do with a new connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Serve it: there is room.
    Serve,
    /// Close seat `index` (of the slice given), then serve it.
    Evict { index: usize, full: Full },
    /// Answer 503: the limit is reached and nobody has been quiet long
    /// enough to make room.
    Refuse(Full),
}

/// What to do at `now` with a new connection from `peer`, given the
/// connections being served.
pub fn admit(seats: &[Seat], peer: [u8; 4], now: u64) -> Admit {
    let own = seats.iter().filter(|s| s.peer == peer).count();
    let full = if own >= MAX_PER_PEER {
        Full::Peer
    } else if seats.len() >= MAX_CONNS {
        Full::Server
    } else {
        return Admit::Serve;
    };
    let quietest = seats
        .iter()
        .enumerate()
        .filter(|(_, s)| full == Full::Server || s.peer == peer)
        .filter(|(_, s)| now.saturating_sub(s.quiet_since) >= EVICT_QUIET_MS)
        .min_by_key(|(_, s)| s.quiet_since);
    match quietest {
        Some((index, _)) => Admit::Evict { index, full },
        None => Admit::Refuse(full),
    }
}
