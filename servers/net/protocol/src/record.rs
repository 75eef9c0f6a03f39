//! Socket addresses, kinds, readiness bits and `wait` entries: the values
//! and fixed little-endian records that cross the client boundary.
//!
//! Each record has `SIZE`, `encode` (into a buffer at least `SIZE` long)
//! and `decode` (from one; `None` if it is too short or a field holds a
//! value no client may send). Words a client passes (`SockAddr::from_word`,
//! `SockKind::from_word`, `Events::from_word`) are untrusted and decoded
//! here, once.

/// An IPv4 socket address.
///
/// As an operand word: port in bits 0..16, the IPv4 address in bits 16..48
/// (`a.b.c.d` is `a << 24 | b << 16 | c << 8 | d`), bits 48..64 zero. As a
/// record ([`SockAddr::SIZE`] bytes): family `u16` ([`SockAddr::FAMILY_INET`])
/// at 0, port `u16` at 2, the address bytes in network order at 4..8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SockAddr {
    /// The address, `a.b.c.d` as `[a, b, c, d]`.
    pub ip: [u8; 4],
    /// The port.
    pub port: u16,
}

impl SockAddr {
    /// Bytes on the wire.
    pub const SIZE: usize = 8;
    /// The record's family: IPv4 (Linux's `AF_INET`).
    pub const FAMILY_INET: u16 = 2;
    /// 0.0.0.0 port 0: "any address, any port".
    pub const ANY: SockAddr = SockAddr::new([0; 4], 0);

    /// The address `ip` port `port`.
    pub const fn new(ip: [u8; 4], port: u16) -> SockAddr {
        SockAddr { ip, port }
    }

    /// The operand word.
    pub fn to_word(self) -> u64 {
        u64::from(u32::from_be_bytes(self.ip)) << 16 | u64::from(self.port)
    }

    /// The address in an operand word; `None` if bits 48..64 are set.
    pub fn from_word(word: u64) -> Option<SockAddr> {
        if word >> 48 != 0 {
            return None;
        }
        let ip = ((word >> 16) as u32).to_be_bytes();
        Some(SockAddr::new(ip, word as u16))
    }

    /// Whether the IP is 0.0.0.0.
    pub fn is_unspecified(&self) -> bool {
        self.ip == [0; 4]
    }

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        let Some(out) = out.get_mut(..Self::SIZE) else {
            return false;
        };
        out[0..2].copy_from_slice(&Self::FAMILY_INET.to_le_bytes());
        out[2..4].copy_from_slice(&self.port.to_le_bytes());
        out[4..8].copy_from_slice(&self.ip);
        true
    }

    /// The record at the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Option<SockAddr> {
        let b = bytes.get(..Self::SIZE)?;
        if u16::from_le_bytes([b[0], b[1]]) != Self::FAMILY_INET {
            return None;
        }
        Some(SockAddr::new(
            [b[4], b[5], b[6], b[7]],
            u16::from_le_bytes([b[2], b[3]]),
        ))
    }
}

impl core::fmt::Display for SockAddr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [a, b, c, d] = self.ip;
        write!(f, "{a}.{b}.{c}.{d}:{}", self.port)
    }
}

/// What a socket carries, `socket`'s operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SockKind {
    /// A TCP byte stream.
    Stream = 1,
    /// UDP datagrams.
    Datagram = 2,
}

impl SockKind {
    /// The kind a client named; `None` for any other number.
    pub fn from_word(word: u64) -> Option<SockKind> {
        match word {
            1 => Some(SockKind::Stream),
            2 => Some(SockKind::Datagram),
            _ => None,
        }
    }
}

/// Readiness bits of one socket (`poll`'s events, Linux's numbering).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events(pub u16);

impl Events {
    /// Data (or the end of the stream) to receive, or a connection to accept.
    pub const READABLE: Events = Events(0x1);
    /// Room to send; a connection attempt has ended.
    pub const WRITABLE: Events = Events(0x4);
    /// The connection failed or was reset.
    pub const ERROR: Events = Events(0x8);
    /// The peer has closed its side (or the connection is gone).
    pub const HANGUP: Events = Events(0x10);
    /// `wait` only: the handle names no socket of this client.
    pub const INVALID: Events = Events(0x20);
    /// Every bit a client may ask for.
    pub const KNOWN: Events = Events(0x1 | 0x4 | 0x8 | 0x10);
    /// None.
    pub const NONE: Events = Events(0);

    /// The bits a client asked for; `None` if it set an unknown one.
    pub fn from_word(word: u64) -> Option<Events> {
        let bits = u16::try_from(word).ok()?;
        (bits & !Self::KNOWN.0 == 0).then_some(Events(bits))
    }

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no bit is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Both sets.
    pub fn union(self, other: Events) -> Events {
        Events(self.0 | other.0)
    }

    /// The bits in both.
    pub fn intersect(self, other: Events) -> Events {
        Events(self.0 & other.0)
    }
}

/// One socket in a `wait` list ([`PollEntry::SIZE`] bytes): handle `u32` at
/// 0, requested events `u16` at 4, returned events `u16` at 6 (written by
/// the server: the requested ones that hold, plus `ERROR` and `HANGUP`
/// always, as `poll` does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PollEntry {
    /// The socket.
    pub handle: u32,
    /// What the client waits for.
    pub events: Events,
    /// What holds.
    pub revents: Events,
}

impl PollEntry {
    /// Bytes on the wire.
    pub const SIZE: usize = 8;
    /// Offset of `revents`, for compounds that test it.
    pub const REVENTS_OFFSET: usize = 6;

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        let Some(out) = out.get_mut(..Self::SIZE) else {
            return false;
        };
        out[0..4].copy_from_slice(&self.handle.to_le_bytes());
        out[4..6].copy_from_slice(&self.events.0.to_le_bytes());
        out[6..8].copy_from_slice(&self.revents.0.to_le_bytes());
        true
    }

    /// The record at the start of `bytes`; `None` if short or it asks for
    /// an unknown event bit (`revents` is output and ignored).
    pub fn decode(bytes: &[u8]) -> Option<PollEntry> {
        let b = bytes.get(..Self::SIZE)?;
        let events = Events::from_word(u64::from(u16::from_le_bytes([b[4], b[5]])))?;
        Some(PollEntry {
            handle: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            events,
            revents: Events(u16::from_le_bytes([b[6], b[7]])),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_word_layout() {
        let a = SockAddr::new([10, 0, 2, 15], 8080);
        assert_eq!(a.to_word(), 0x0A00_020F_1F90);
        assert_eq!(SockAddr::from_word(a.to_word()), Some(a));
        assert_eq!(SockAddr::from_word(1 << 48), None);
        assert_eq!(SockAddr::from_word(0), Some(SockAddr::ANY));
        assert_eq!(format!("{a}"), "10.0.2.15:8080");
    }

    #[test]
    fn address_record_bytes() {
        let mut out = [0xFFu8; 9];
        assert!(SockAddr::new([192, 168, 1, 2], 0x1234).encode(&mut out));
        assert_eq!(out, [2, 0, 0x34, 0x12, 192, 168, 1, 2, 0xFF]);
        assert_eq!(
            SockAddr::decode(&out),
            Some(SockAddr::new([192, 168, 1, 2], 0x1234))
        );
        assert!(!SockAddr::ANY.encode(&mut [0u8; 7]));
        assert_eq!(SockAddr::decode(&out[..7]), None);
        assert_eq!(SockAddr::decode(&[3, 0, 0, 0, 0, 0, 0, 0]), None);
    }

    #[test]
    fn kinds_and_events_are_checked() {
        assert_eq!(SockKind::from_word(1), Some(SockKind::Stream));
        assert_eq!(SockKind::from_word(2), Some(SockKind::Datagram));
        assert_eq!(SockKind::from_word(0), None);
        assert_eq!(SockKind::from_word(1 << 40 | 1), None);
        assert_eq!(Events::from_word(0x5), Some(Events(0x5)));
        assert_eq!(Events::from_word(0x2), None);
        assert_eq!(Events::from_word(0x1_0001), None);
    }

    #[test]
    fn poll_entry_bytes() {
        let e = PollEntry {
            handle: 0x0102_0304,
            events: Events::READABLE,
            revents: Events::HANGUP,
        };
        let mut out = [0u8; 8];
        assert!(e.encode(&mut out));
        assert_eq!(out, [4, 3, 2, 1, 1, 0, 0x10, 0]);
        assert_eq!(PollEntry::decode(&out), Some(e));
        assert_eq!(PollEntry::decode(&[0, 0, 0, 0, 2, 0, 0, 0]), None);
        assert_eq!(PollEntry::decode(&out[..7]), None);
    }
}
