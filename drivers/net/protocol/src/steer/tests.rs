//! Frames as bytes: a UDP datagram steered, and every near miss left to
//! the network server.

use super::*;

/// An Ethernet frame holding an IPv4/UDP datagram from 10.0.2.2:40000 to
/// 10.0.2.15:`port` with `payload`, checksums filled in.
fn frame(port: u16, payload: &[u8]) -> Vec<u8> {
    let udp_len = 8 + payload.len();
    let total = 20 + udp_len;
    let mut f = vec![0u8; 14 + total];
    f[0..6].copy_from_slice(&[0x52, 0x54, 0, 0x12, 0x34, 0x56]);
    f[6..12].copy_from_slice(&[0x52, 0x55, 10, 0, 2, 2]);
    f[12..14].copy_from_slice(&ETH_IPV4.to_be_bytes());
    let ip = &mut f[14..];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    ip[6] = 0x40; // don't fragment: allowed
    ip[8] = 64;
    ip[9] = UDP;
    ip[12..16].copy_from_slice(&[10, 0, 2, 2]);
    ip[16..20].copy_from_slice(&[10, 0, 2, 15]);
    let c = !fold(sum16(0, &ip[..20]));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let udp = &mut ip[20..];
    udp[0..2].copy_from_slice(&40000u16.to_be_bytes());
    udp[2..4].copy_from_slice(&port.to_be_bytes());
    udp[4..6].copy_from_slice(&(udp_len as u16).to_be_bytes());
    udp[8..].copy_from_slice(payload);
    let mut sum = sum16(0, &[10, 0, 2, 2, 10, 0, 2, 15]);
    sum += u32::from(UDP) + udp_len as u32;
    let c = !fold(sum16(sum, &f[34..]));
    f[40..42].copy_from_slice(&c.to_be_bytes());
    f
}

#[test]
fn a_udp_datagram_is_steered_with_its_payload() {
    let f = frame(5700, b"hello, flow");
    let d = udp(&f).unwrap();
    assert_eq!(d.dst_port, 5700);
    assert_eq!(&f[d.payload()], b"hello, flow");
    // An odd length, and an empty payload.
    let f = frame(9, b"abc");
    assert_eq!(&f[udp(&f).unwrap().payload()], b"abc");
    let f = frame(9, b"");
    assert_eq!(udp(&f).unwrap().payload(), 42..42);
}

#[test]
fn ethernet_padding_after_the_datagram_is_not_payload() {
    let mut f = frame(5700, b"x");
    f.resize(60, 0); // padded to the minimum frame
    assert_eq!(&f[udp(&f).unwrap().payload()], b"x");
}

#[test]
fn a_zero_udp_checksum_means_none_given() {
    let mut f = frame(5700, b"payload");
    f[40..42].copy_from_slice(&[0, 0]);
    assert!(udp(&f).is_some());
}

#[test]
fn everything_else_goes_to_the_network_server() {
    let good = frame(5700, b"payload!");
    let mutate = |at: usize, v: u8| {
        let mut f = good.clone();
        f[at] = v;
        f
    };
    // ARP
    assert_eq!(udp(&mutate(13, 0x06)), None);
    // TCP (protocol 6): the header checksum then fails too, so fix it.
    let mut tcp = good.clone();
    tcp[14 + 9] = 6;
    tcp[24..26].copy_from_slice(&[0, 0]);
    let c = !fold(sum16(0, &tcp[14..34]));
    tcp[24..26].copy_from_slice(&c.to_be_bytes());
    assert_eq!(udp(&tcp), None);
    // IPv6 in an IPv4 ethertype, options that do not fit, a bad header
    // checksum, a fragment, a damaged payload.
    assert_eq!(udp(&mutate(14, 0x65)), None);
    assert_eq!(udp(&mutate(14, 0x4f)), None);
    assert_eq!(udp(&mutate(14 + 8, 63)), None);
    assert_eq!(udp(&mutate(14 + 6, 0x20)), None, "more fragments");
    assert_eq!(udp(&mutate(14 + 7, 1)), None, "a fragment offset");
    assert_eq!(udp(&mutate(45, b'P')), None, "UDP checksum");
    // Lengths that do not fit.
    assert_eq!(
        udp(&good[..good.len() - 1]),
        None,
        "total length past the frame"
    );
    let mut long = good.clone();
    long[38..40].copy_from_slice(&100u16.to_be_bytes());
    assert_eq!(udp(&long), None, "UDP length past the IP payload");
    assert_eq!(udp(&good[..20]), None);
    assert_eq!(udp(&[]), None);
}
