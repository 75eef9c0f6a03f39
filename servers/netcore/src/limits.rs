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
//! A request is granted while the client is under its quota and what is
//! left after it still covers every other named client's share
//! ([`Limits::share`] less what that client already holds). So a client
//! below its share always gets a socket, and a client at its quota gets
//! `QuotaExceeded` while the others are served. `docs/ARCHITECTURE.md`
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
    /// The most one client may hold (`QuotaExceeded` past it).
    pub quota: usize,
    /// Kept for each named client until it holds that many.
    pub share: usize,
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
        let others = share * clients.saturating_sub(1);
        let left = total - others;
        Limits {
            total,
            quota: if left < CLIENT_QUOTA {
                left
            } else {
                CLIENT_QUOTA
            },
            share,
        }
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
        assert_eq!(
            l,
            Limits {
                total: 240,
                quota: 160,
                share: 16
            }
        );
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
        assert_eq!(
            Limits::new(100, 0),
            Limits {
                total: 100,
                quota: 100,
                share: 0
            }
        );
    }

    #[test]
    fn the_heap_bounds_the_total() {
        assert_eq!(sockets_in(8 << 20, 1 << 20, 132 << 10), 54);
        assert_eq!(sockets_in(1 << 20, 2 << 20, 132 << 10), 0);
    }
}
