//! Which local ports are taken, per protocol, and the ephemeral ports
//! handed to sockets that connect or send without binding.
//!
//! The stack itself would let two listeners share a port (the first one
//! would get every connection); this table is what makes a second `bind`
//! fail with `AddressInUse` instead.

use alloc::collections::BTreeSet;

use conflux_socket_protocol::NetError;

/// A transport protocol's port space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Proto {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// The first ephemeral port (IANA's dynamic range).
const EPHEMERAL_FIRST: u16 = 49152;

/// Taken ports.
#[derive(Debug)]
pub struct Ports {
    taken: BTreeSet<(Proto, u16)>,
    next: u16,
}

impl Ports {
    /// No port taken; ephemeral ports start at an offset from `seed` so two
    /// boots do not reuse the same sequence.
    pub fn new(seed: u64) -> Ports {
        let span = u64::from(u16::MAX - EPHEMERAL_FIRST) + 1;
        Ports {
            taken: BTreeSet::new(),
            next: EPHEMERAL_FIRST + (seed % span) as u16,
        }
    }

    /// Takes `port` (0: any free ephemeral port) and returns it.
    pub fn take(&mut self, proto: Proto, port: u16) -> Result<u16, NetError> {
        if port == 0 {
            return self.take_ephemeral(proto);
        }
        if self.taken.insert((proto, port)) {
            Ok(port)
        } else {
            Err(NetError::AddressInUse)
        }
    }

    fn take_ephemeral(&mut self, proto: Proto) -> Result<u16, NetError> {
        let span = u16::MAX - EPHEMERAL_FIRST + 1;
        for _ in 0..span {
            let port = self.next;
            self.next = if port == u16::MAX {
                EPHEMERAL_FIRST
            } else {
                port + 1
            };
            if self.taken.insert((proto, port)) {
                return Ok(port);
            }
        }
        Err(NetError::AddressInUse)
    }

    /// Gives `port` back.
    pub fn release(&mut self, proto: Proto, port: u16) {
        self.taken.remove(&(proto, port));
    }

    /// Whether `port` is taken.
    #[cfg(test)]
    pub fn is_taken(&self, proto: Proto, port: u16) -> bool {
        self.taken.contains(&(proto, port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_is_taken_once_per_protocol() {
        let mut p = Ports::new(0);
        assert_eq!(p.take(Proto::Tcp, 80), Ok(80));
        assert_eq!(p.take(Proto::Tcp, 80), Err(NetError::AddressInUse));
        assert_eq!(p.take(Proto::Udp, 80), Ok(80));
        p.release(Proto::Tcp, 80);
        assert_eq!(p.take(Proto::Tcp, 80), Ok(80));
    }

    #[test]
    fn ephemeral_ports_skip_taken_ones_and_wrap() {
        let mut p = Ports::new(u64::from(u16::MAX - EPHEMERAL_FIRST));
        assert_eq!(p.take(Proto::Tcp, 0), Ok(u16::MAX));
        assert_eq!(
            p.take(Proto::Tcp, EPHEMERAL_FIRST + 1),
            Ok(EPHEMERAL_FIRST + 1)
        );
        assert_eq!(p.take(Proto::Tcp, 0), Ok(EPHEMERAL_FIRST));
        assert_eq!(p.take(Proto::Tcp, 0), Ok(EPHEMERAL_FIRST + 2));
        assert!(p.is_taken(Proto::Tcp, EPHEMERAL_FIRST + 2));
    }
}
