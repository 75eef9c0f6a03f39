//! The few frames the test builds and parses: ARP with QEMU's user-network
//! gateway, and DHCP DISCOVER/OFFER with its DHCP server.

const BROADCAST: [u8; 6] = [0xff; 6];
const GUEST_IP: [u8; 4] = [10, 0, 2, 15];
const GATEWAY_IP: [u8; 4] = [10, 0, 2, 2];
const ETH_ARP: u16 = 0x0806;
const ETH_IPV4: u16 = 0x0800;

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn ethernet(f: &mut [u8], dst: [u8; 6], src: [u8; 6], kind: u16) {
    f[0..6].copy_from_slice(&dst);
    f[6..12].copy_from_slice(&src);
    f[12..14].copy_from_slice(&kind.to_be_bytes());
}

/// "Who has 10.0.2.2? Tell 10.0.2.15", padded to the 60-byte minimum.
pub fn arp_request(mac: [u8; 6]) -> [u8; 60] {
    let mut f = [0u8; 60];
    ethernet(&mut f, BROADCAST, mac, ETH_ARP);
    let a = &mut f[14..];
    a[0..8].copy_from_slice(&[0, 1, 0x08, 0x00, 6, 4, 0, 1]); // Ethernet/IPv4, request
    a[8..14].copy_from_slice(&mac);
    a[14..18].copy_from_slice(&GUEST_IP);
    a[18..24].copy_from_slice(&[0; 6]);
    a[24..28].copy_from_slice(&GATEWAY_IP);
    f
}

/// An ARP reply from 10.0.2.2 addressed to us (opcode 2, sender IP the
/// gateway, target MAC and IP ours).
pub fn is_arp_reply_from_gateway(f: &[u8], mac: [u8; 6]) -> bool {
    f.len() >= 42
        && f[0..6] == mac
        && be16(f, 12) == ETH_ARP
        && be16(f, 14 + 6) == 2
        && f[14 + 14..14 + 18] == GATEWAY_IP
        && f[14 + 18..14 + 24] == mac
        && f[14 + 24..14 + 28] == GUEST_IP
}

const IP: usize = 14;
const UDP: usize = IP + 20;
const BOOTP: usize = UDP + 8;
const BOOTP_LEN: usize = 300;
const DHCP_FRAME: usize = BOOTP + BOOTP_LEN;

fn ip_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h.chunks(2).map(|w| u32::from(be16(w, 0))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A broadcast DHCP DISCOVER with transaction id `xid`.
pub fn dhcp_discover(mac: [u8; 6], xid: u32) -> [u8; DHCP_FRAME] {
    let mut f = [0u8; DHCP_FRAME];
    ethernet(&mut f, BROADCAST, mac, ETH_IPV4);
    let total = (DHCP_FRAME - IP) as u16;
    let ip = &mut f[IP..UDP];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[8] = 64; // TTL
    ip[9] = 17; // UDP
    ip[16..20].copy_from_slice(&[255; 4]);
    let sum = ip_checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    let udp = &mut f[UDP..BOOTP];
    udp[0..2].copy_from_slice(&68u16.to_be_bytes());
    udp[2..4].copy_from_slice(&67u16.to_be_bytes());
    udp[4..6].copy_from_slice(&((8 + BOOTP_LEN) as u16).to_be_bytes());
    // UDP checksum 0: none (allowed over IPv4).
    let b = &mut f[BOOTP..];
    b[0..4].copy_from_slice(&[1, 1, 6, 0]); // BOOTREQUEST, Ethernet
    b[4..8].copy_from_slice(&xid.to_be_bytes());
    b[10..12].copy_from_slice(&0x8000u16.to_be_bytes()); // broadcast reply
    b[28..34].copy_from_slice(&mac);
    b[236..240].copy_from_slice(&[99, 130, 83, 99]); // magic cookie
    b[240..244].copy_from_slice(&[53, 1, 1, 255]); // DHCPDISCOVER, end
    f
}

/// The address a DHCP OFFER with transaction id `xid` offers, if `f` is one.
pub fn dhcp_offer(f: &[u8], xid: u32) -> Option<[u8; 4]> {
    if f.len() < BOOTP + 244 || be16(f, 12) != ETH_IPV4 || f[IP] != 0x45 || f[IP + 9] != 17 {
        return None;
    }
    if be16(f, UDP + 2) != 68 {
        return None;
    }
    let b = &f[BOOTP..];
    if b[0] != 2 || b[4..8] != xid.to_be_bytes() || b[236..240] != [99, 130, 83, 99] {
        return None;
    }
    // Walk the options for the message type.
    let mut i = 240;
    while i + 1 < b.len() && b[i] != 255 {
        if b[i] == 0 {
            i += 1;
            continue;
        }
        let len = usize::from(b[i + 1]);
        if b[i] == 53 && len == 1 && i + 2 < b.len() {
            return (b[i + 2] == 2).then(|| [b[16], b[17], b[18], b[19]]);
        }
        i += 2 + len;
    }
    None
}
