//! The `net_info` record: the interface's addresses, how many sockets of
//! each kind and state the server holds, and the frames that crossed the
//! link. Counts are totals over all clients; no client learns another's
//! addresses or ports from them.
//!
//! Layout ([`NetInfo::SIZE`] bytes, little-endian): MAC at 0..6, prefix
//! length at 6, flags at 7 (bit 0: a gateway is set), IPv4 address at
//! 8..12 and gateway at 12..16 (network order), the server clock's
//! resolution in µs (`u32`) at 16, ten `u16` counts at 20..40 in the order
//! of [`SocketCounts`]' fields, and four `u64` traffic counters at 40..72
//! in the order of [`Traffic`]'s fields.

/// How many sockets of each kind and state the server holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SocketCounts {
    /// Clients with at least one socket open.
    pub clients: u16,
    /// Streams with an established connection (the peer may have closed).
    pub connected: u16,
    /// Streams whose `connect` is under way.
    pub connecting: u16,
    /// Streams neither connecting nor connected (fresh, reset, failed).
    pub idle: u16,
    /// Listeners.
    pub listeners: u16,
    /// Datagram sockets.
    pub datagrams: u16,
    /// Echo requests whose outcome no client has collected yet.
    pub pings: u16,
    /// smoltcp sockets held (handles, listener pools, closing streams).
    pub stack_sockets: u16,
    /// The most smoltcp sockets the server holds at once.
    pub stack_limit: u16,
    /// Streams closed by their clients, still finishing (FIN or reset).
    pub closing: u16,
}

/// What crossed the link since the server started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Frames received.
    pub rx_frames: u64,
    /// Bytes of the frames received.
    pub rx_bytes: u64,
    /// Frames sent.
    pub tx_frames: u64,
    /// Bytes of the frames sent.
    pub tx_bytes: u64,
}

/// The `net_info` record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetInfo {
    /// The link's MAC address.
    pub mac: [u8; 6],
    /// The interface's IPv4 address.
    pub ip: [u8; 4],
    /// Its prefix length (0..=32).
    pub prefix: u8,
    /// The default route, if any.
    pub gateway: Option<[u8; 4]>,
    /// The resolution of the server's clock in µs: `ping` times are
    /// multiples of it.
    pub clock_us: u32,
    /// Sockets.
    pub counts: SocketCounts,
    /// Frames.
    pub traffic: Traffic,
}

const COUNTS_AT: usize = 20;
const TRAFFIC_AT: usize = 40;
const HAS_GATEWAY: u8 = 1;

impl SocketCounts {
    fn fields(&self) -> [u16; 10] {
        [
            self.clients,
            self.connected,
            self.connecting,
            self.idle,
            self.listeners,
            self.datagrams,
            self.pings,
            self.stack_sockets,
            self.stack_limit,
            self.closing,
        ]
    }

    fn from_fields(f: [u16; 10]) -> SocketCounts {
        let [clients, connected, connecting, idle, listeners, datagrams, pings, stack_sockets, stack_limit, closing] =
            f;
        SocketCounts {
            clients,
            connected,
            connecting,
            idle,
            listeners,
            datagrams,
            pings,
            stack_sockets,
            stack_limit,
            closing,
        }
    }
}

impl Traffic {
    fn fields(&self) -> [u64; 4] {
        [self.rx_frames, self.rx_bytes, self.tx_frames, self.tx_bytes]
    }
}

impl NetInfo {
    /// Bytes on the wire.
    pub const SIZE: usize = 72;

    /// Writes the record into `out[..SIZE]`; false if `out` is shorter.
    pub fn encode(&self, out: &mut [u8]) -> bool {
        let Some(out) = out.get_mut(..Self::SIZE) else {
            return false;
        };
        out[0..6].copy_from_slice(&self.mac);
        out[6] = self.prefix;
        out[7] = if self.gateway.is_some() {
            HAS_GATEWAY
        } else {
            0
        };
        out[8..12].copy_from_slice(&self.ip);
        out[12..16].copy_from_slice(&self.gateway.unwrap_or([0; 4]));
        out[16..20].copy_from_slice(&self.clock_us.to_le_bytes());
        let counts = out[COUNTS_AT..TRAFFIC_AT].chunks_exact_mut(2);
        for (bytes, n) in counts.zip(self.counts.fields()) {
            bytes.copy_from_slice(&n.to_le_bytes());
        }
        let traffic = out[TRAFFIC_AT..Self::SIZE].chunks_exact_mut(8);
        for (bytes, n) in traffic.zip(self.traffic.fields()) {
            bytes.copy_from_slice(&n.to_le_bytes());
        }
        true
    }

    /// The record at the start of `bytes`; `None` if it is short, the
    /// prefix is longer than 32 or an unknown flag is set.
    pub fn decode(bytes: &[u8]) -> Option<NetInfo> {
        let b = bytes.get(..Self::SIZE)?;
        let (prefix, flags) = (b[6], b[7]);
        if prefix > 32 || flags & !HAS_GATEWAY != 0 {
            return None;
        }
        let quad = |at: usize| [b[at], b[at + 1], b[at + 2], b[at + 3]];
        let mut counts = [0u16; 10];
        for (n, c) in counts
            .iter_mut()
            .zip(b[COUNTS_AT..TRAFFIC_AT].chunks_exact(2))
        {
            *n = u16::from_le_bytes([c[0], c[1]]);
        }
        let mut t = [0u64; 4];
        for (n, c) in t.iter_mut().zip(b[TRAFFIC_AT..].chunks_exact(8)) {
            *n = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        }
        Some(NetInfo {
            mac: [b[0], b[1], b[2], b[3], b[4], b[5]],
            ip: quad(8),
            prefix,
            gateway: (flags & HAS_GATEWAY != 0).then(|| quad(12)),
            clock_us: u32::from_le_bytes(quad(16)),
            counts: SocketCounts::from_fields(counts),
            traffic: Traffic {
                rx_frames: t[0],
                rx_bytes: t[1],
                tx_frames: t[2],
                tx_bytes: t[3],
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> NetInfo {
        NetInfo {
            mac: [0x52, 0x54, 0, 0x12, 0x34, 0x56],
            ip: [10, 0, 2, 15],
            prefix: 24,
            gateway: Some([10, 0, 2, 2]),
            clock_us: 10_000,
            counts: SocketCounts::from_fields([1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A0B]),
            traffic: Traffic {
                rx_frames: 1,
                rx_bytes: 0x0102,
                tx_frames: 3,
                tx_bytes: 1 << 40,
            },
        }
    }

    #[test]
    fn record_bytes() {
        let mut out = [0xFFu8; NetInfo::SIZE + 1];
        assert!(sample().encode(&mut out));
        assert_eq!(
            out[..20],
            [0x52, 0x54, 0, 0x12, 0x34, 0x56, 24, 1, 10, 0, 2, 15, 10, 0, 2, 2, 0x10, 0x27, 0, 0]
        );
        assert_eq!(out[20..24], [1, 0, 2, 0]);
        assert_eq!(out[38..40], [0x0B, 0x0A]);
        assert_eq!(out[40..50], [1, 0, 0, 0, 0, 0, 0, 0, 2, 1]);
        assert_eq!(out[64..72], [0, 0, 0, 0, 0, 1, 0, 0]);
        assert_eq!(out[72], 0xFF, "nothing written past the record");
        assert_eq!(NetInfo::decode(&out), Some(sample()));
    }

    #[test]
    fn no_gateway_and_bad_records() {
        let info = NetInfo {
            gateway: None,
            ..sample()
        };
        let mut out = [0u8; NetInfo::SIZE];
        assert!(info.encode(&mut out));
        assert_eq!((out[7], &out[12..16]), (0, &[0u8; 4][..]));
        assert_eq!(NetInfo::decode(&out), Some(info));
        assert!(!info.encode(&mut [0u8; NetInfo::SIZE - 1]));
        assert_eq!(NetInfo::decode(&out[..NetInfo::SIZE - 1]), None);
        let mut bad = out;
        bad[6] = 33;
        assert_eq!(NetInfo::decode(&bad), None, "prefix past 32");
        let mut bad = out;
        bad[7] = 2;
        assert_eq!(NetInfo::decode(&bad), None, "unknown flag");
    }
}
