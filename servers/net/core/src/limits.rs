//! The socket limits, in one place: how many smoltcp sockets the stack may
//! hold in all, how many one client may hold (its quota), and how many are
//! kept for each client the manifest names, so that no client, however
//! hostile, can take the sockets another needs.
//!
//! Everything a client causes the stack to hold counts against it: its
//! open sockets, every socket of its listeners' pools (a backlog of *n*
//! holds *n* sockets), its connections still closing after `close` or the
//! end of its session, and its pings in flight (`sockets::Sockets` keeps
//! the ledger). The total is bounded by the heap, since each socket's
//! buffers come from it; the server derives it with [`sockets_in`].
//!
//! A client's quota is the `quota` its manifest capability gives (the
//! server's `NET_CLIENT_QUOTAS`), or [`CLIENT_QUOTA`]; either is cut to
//! what the other named clients' shares leave. A request is granted while
//! the client is under its quota and what is left after it still covers
//! every other named client's share ([`Limits::share`], or its quota if
//! smaller, less what that client already holds). So a client
//! below its share always gets a socket, and a client at its quota gets
//! `QuotaExceeded` while the others are served. `docs/net.md`
//! quotes these numbers; a host test checks that it does.

/// The most stack sockets one client may hold (less what the other named
/// clients are guaranteed, if the total is smaller). A web server's
/// listener pool (64), its connections (48) and those it turns away (16)
/// fit, with room for connections still closing.
pub const CLIENT_QUOTA: usize = 160;
/// Sockets kept for each client the manifest names until it holds that
/// many (less if the total cannot keep that many for every client).
pub const CLIENT_SHARE: usize = 16;
/// The total when the server states none (host tests).
pub const DEFAULT_TOTAL: usize = 128;

/// The limits the stack applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// smoltcp sockets of all clients together (`NoBuffers` past it).
    pub total: usize,
    /// The most a client may hold unless the manifest gives it a quota
    /// (`QuotaExceeded` past it).
    pub quota: usize,
    /// Kept for each named client until it holds that many (or its quota,
    /// if smaller).
    pub share: usize,
    /// The most any one client may hold: the total less the others'
    /// shares. A quota the manifest gives is cut to this.
    pub room: usize,
}

impl Limits {
    /// The limits for `total` sockets among `clients` named clients: each
    /// is kept `min(CLIENT_SHARE, total / clients)`, and one client's quota
    /// is `CLIENT_QUOTA` or what the others' shares leave, if less.
    pub const fn new(total: usize, clients: usize) -> Limits {
        let share = if clients == 0 {
            0
        } else if total / clients < CLIENT_SHARE {
            total / clients
        } else {
            CLIENT_SHARE
        };
        let room = total - share * clients.saturating_sub(1);
        Limits {
            total,
            quota: if room < CLIENT_QUOTA {
                room
            } else {
                CLIENT_QUOTA
            },
            share,
            room,
        }
    }

    /// The quota of a client the manifest gives `given` (`None`: the
    /// default), cut to what the other clients' shares leave.
    pub fn quota_for(&self, given: Option<u32>) -> usize {
        given.map_or(self.quota, |q| (q as usize).min(self.room))
    }
}

/// How many sockets of `socket_bytes` each fit in a heap of `heap` bytes
/// after `reserve` bytes kept for everything else the server allocates.
pub const fn sockets_in(heap: usize, reserve: usize, socket_bytes: usize) -> usize {
    heap.saturating_sub(reserve) / socket_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_room_for_all_each_client_gets_the_full_quota() {
        let l = Limits::new(240, 2);
        assert_eq!((l.total, l.quota, l.share, l.room), (240, 160, 16, 224));
    }

    #[test]
    fn a_small_total_keeps_the_others_share_out_of_one_clients_quota() {
        let l = Limits::new(54, 3);
        assert_eq!((l.share, l.quota), (16, 54 - 2 * 16));
        let l = Limits::new(20, 4);
        assert_eq!((l.share, l.quota), (5, 5), "shares shrink to fit");
        assert!(l.share * 4 <= l.total);
    }

    #[test]
    fn without_named_clients_no_socket_is_kept() {
        let l = Limits::new(100, 0);
        assert_eq!((l.quota, l.share, l.room), (100, 0, 100));
    }

    #[test]
    fn a_quota_the_manifest_gives_is_cut_to_what_the_others_leave() {
        let l = Limits::new(240, 2);
        assert_eq!(l.quota_for(None), 160);
        assert_eq!(l.quota_for(Some(8)), 8);
        assert_eq!(l.quota_for(Some(200)), 200, "above the default");
        assert_eq!(l.quota_for(Some(1000)), 224, "the other's share stays");
    }

    #[test]
    fn the_heap_bounds_the_total() {
        assert_eq!(sockets_in(8 << 20, 1 << 20, 132 << 10), 54);
        assert_eq!(sockets_in(1 << 20, 2 << 20, 132 << 10), 0);
    }
}
