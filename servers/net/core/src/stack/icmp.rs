//! `ping`: one echo request per call, its outcome asked for by calling
//! again with the same target and sequence number (see `crate::ping`).

use conflux_socket_protocol::NetError;
use smoltcp::time::{Duration, Instant};
use smoltcp::wire::Ipv4Address;

use super::Stack;
use crate::client::Badge;
use crate::ping::{Ping, KEEP};

impl Stack {
    /// `ping`: sends a request to `target` (`InProgress`), or reports the
    /// one in flight: its round trip, `Already` while it waits, or
    /// `TimedOut` once `timeout` has passed since it was asked for.
    pub fn ping(
        &mut self,
        badge: Badge,
        target: Ipv4Address,
        seq: u16,
        timeout: Duration,
    ) -> Result<u64, NetError> {
        if let Some(i) = self.pings.find(badge, target, seq) {
            let p = &self.pings.list[i];
            let outcome = match p.rtt {
                Some(rtt) => Ok(rtt.total_micros()),
                None if self.now >= p.deadline => Err(NetError::TimedOut),
                None => return Err(NetError::Already),
            };
            let p = self.pings.list.swap_remove(i);
            self.sockets.remove(p.handle);
            return outcome;
        }
        self.check_target(target)?;
        self.pings.has_room(badge)?;
        let ident = self.pings.take_ident();
        let handle = self.sockets.add_icmp(badge, ident)?;
        let ping = Ping {
            badge,
            target,
            seq,
            handle,
            ident,
            sent: None,
            deadline: self.now + timeout,
            rtt: None,
        };
        if let Err(e) = ping.send(self.sockets.icmp_mut(handle)) {
            self.sockets.remove(handle);
            return Err(e);
        }
        self.pings.list.push(ping);
        Err(NetError::InProgress)
    }

    /// A target a request can go to: one host (not this interface's
    /// subnet broadcast), reachable directly or through the gateway.
    fn check_target(&self, target: Ipv4Address) -> Result<(), NetError> {
        let cidr = self.config.ip;
        if target.is_unspecified()
            || target.is_broadcast()
            || target.is_multicast()
            || cidr.broadcast() == Some(target)
        {
            return Err(NetError::Invalid);
        }
        // The stack's only route is the default one from its `Config`.
        if cidr.contains_addr(&target) || self.config.gateway.is_some() {
            Ok(())
        } else {
            Err(NetError::NetworkUnreachable)
        }
    }

    /// After a poll at `now`: each ping notes what its socket did;
    /// outcomes nobody collected within [`KEEP`] of their deadline are
    /// dropped with their sockets.
    pub(crate) fn observe_pings(&mut self, now: Instant) {
        let sockets = &mut self.sockets;
        self.pings.list.retain_mut(|p| {
            if now < p.deadline + KEEP {
                p.observe(sockets.icmp_mut(p.handle), now);
                return true;
            }
            sockets.remove(p.handle);
            false
        });
    }

    /// Drops every ping of client `badge` (its session ended).
    pub(crate) fn drop_pings(&mut self, badge: Badge) {
        let sockets = &mut self.sockets;
        self.pings.list.retain(|p| {
            if p.badge == badge {
                sockets.remove(p.handle);
            }
            p.badge != badge
        });
    }
}
