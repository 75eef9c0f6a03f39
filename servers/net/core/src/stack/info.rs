//! `net_info`: the interface's addresses and what the stack holds,
//! counted over every client.

use conflux_socket_protocol::{NetInfo, SocketCounts};

use super::Stack;
use crate::client::Sock;
use crate::stream::Phase;

/// `n` as a record's count (a count past `u16::MAX` reads as the maximum).
fn count(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

impl Stack {
    /// The `net_info` record now.
    pub fn info(&self) -> NetInfo {
        let mut c = SocketCounts::default();
        let mut clients = 0;
        for table in self.clients.values().filter(|t| t.len() > 0) {
            clients += 1;
            for entry in table.iter() {
                let n = match &entry.sock {
                    Sock::Stream(s) => match s.phase {
                        Phase::Connected { .. } => &mut c.connected,
                        Phase::Connecting { .. } => &mut c.connecting,
                        Phase::Fresh | Phase::Reset | Phase::Failed(_) => &mut c.idle,
                    },
                    Sock::Listener(_) => &mut c.listeners,
                    Sock::Datagram(_) => &mut c.datagrams,
                };
                *n = n.saturating_add(1);
            }
        }
        c.clients = count(clients);
        c.pings = count(self.pings.list.len());
        c.stack_sockets = count(self.sockets.live());
        c.stack_limit = count(self.config.limits.total);
        c.closing = count(self.sockets.closing());
        let cfg = &self.config;
        NetInfo {
            mac: cfg.mac.0,
            ip: cfg.ip.address().octets(),
            prefix: cfg.ip.prefix_len(),
            gateway: cfg.gateway.map(|g| g.octets()),
            clock_us: cfg.clock_us,
            counts: c,
            traffic: self.traffic,
        }
    }
}
