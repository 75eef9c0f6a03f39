//! Network client test: through the virtio-net driver and its shared
//! rings, reads the MAC and link state, asks QEMU's user-network gateway
//! (10.0.2.2) for its MAC with ARP and checks the reply, gets a DHCP offer
//! from 10.0.2.2's DHCP server, then sends descriptors a hostile client
//! would (a frame too long, buffers outside the data area or without
//! headroom, an id past the status table, an rx buffer too small) and
//! checks each comes back with its error while the driver keeps serving
//! (ARP again afterwards).
//!
//! In the system `net-restart` the driver faults on purpose partway, and
//! the test checks instead what comes back across its restart
//! (`restart.rs`).
#![no_std]
#![no_main]
#![deny(unsafe_code)]

mod frames;
mod link;
mod restart;

use conflux_net_protocol::{Link as LinkState, Status, HEADROOM, MAX_FRAME};
use conflux_userlib::testing::Checks;
use link::{Link, RX};

conflux_userlib::entry!(main);

/// The MAC the manifest gives the device.
pub const MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
/// How long one attempt waits for an answer (TSC ticks: ~1 s under tcg).
pub const WAIT: u64 = 1_000_000_000;
const ATTEMPTS: u32 = 4;

fn main() {
    let mut c = Checks::new();
    let mut link = Link::open();
    c.eq(
        "the driver published the device's MAC",
        link.client.mac(),
        Some(MAC),
    );
    c.eq("the link is up", link.client.link(), LinkState::Up);
    for id in 0..RX {
        link.offer_slot(id);
    }
    arp(
        &mut c,
        &mut link,
        "an ARP request to 10.0.2.2 is answered with its MAC",
    );
    if config::SYSTEM_NAME == "net-restart" {
        restart::run(&mut c, &mut link);
    } else {
        dhcp(
            &mut c,
            &mut link,
            "DHCP DISCOVER is answered with an OFFER of 10.0.2.15",
            0x0c0f_1e77,
        );
        hostile(&mut c, &mut link);
        arp(
            &mut c,
            &mut link,
            "ARP still answered after the hostile descriptors",
        );
    }
    c.that("detach", link.detach(10 * WAIT), "no confirmation");
    c.finish();
}

/// Sends `frame` and waits until a received frame satisfies `accept`,
/// re-offering every buffer; tries `ATTEMPTS` times.
fn exchange(
    link: &mut Link,
    frame: &[u8],
    accept: impl Fn(&[u8]) -> bool,
) -> Result<u32, &'static str> {
    for attempt in 1..=ATTEMPTS {
        link.send(0, frame);
        match link.wait_sent(WAIT) {
            Some((0, Status::Ok)) => {}
            Some(_) => return Err("the frame was not sent"),
            None => return Err("the sent frame never came back"),
        }
        while let Some((d, status)) = link.wait_received(WAIT) {
            let ok = status == Status::Ok && accept(link.frame(&d));
            if d.id < RX {
                link.offer_slot(d.id);
            }
            if ok {
                return Ok(attempt);
            }
        }
    }
    Err("no answer")
}

pub fn arp(c: &mut Checks, link: &mut Link, what: &str) {
    let request = frames::arp_request(MAC);
    let got = exchange(link, &request, |f| {
        frames::is_arp_reply_from_gateway(f, MAC)
    });
    c.that(what, got.is_ok(), got);
}

/// A DISCOVER with transaction id `xid` gets an OFFER of 10.0.2.15.
pub fn dhcp(c: &mut Checks, link: &mut Link, what: &str, xid: u32) {
    let discover = frames::dhcp_discover(MAC, xid);
    let got = exchange(link, &discover, |f| {
        frames::dhcp_offer(f, xid) == Some([10, 0, 2, 15])
    });
    c.that(what, got.is_ok(), got);
}

/// Descriptors a hostile client would send: each comes back with its own
/// status.
fn hostile(c: &mut Checks, link: &mut Link) {
    let data = link.client.data_len();
    let good = Link::tx_offset(1);
    let tx_cases = [
        (
            "a frame longer than 1514 bytes",
            1,
            good,
            MAX_FRAME + 1,
            Status::BadLength,
        ),
        (
            "a frame shorter than an Ethernet header",
            2,
            good,
            13,
            Status::BadLength,
        ),
        (
            "a frame outside the data area",
            3,
            data - 100,
            200,
            Status::BadDescriptor,
        ),
        (
            "a frame without room for the device header",
            4,
            HEADROOM - 1,
            60,
            Status::BadDescriptor,
        ),
        (
            "a tx id past the status table",
            99,
            good,
            60,
            Status::BadDescriptor,
        ),
    ];
    for (what, id, offset, len, want) in tx_cases {
        link.send_raw(id, offset, len);
        c.eq(what, link.wait_sent(10 * WAIT), Some((id, want)));
    }
    let rx_cases = [
        (
            "an rx buffer too small for 1514 bytes",
            20,
            Link::rx_offset(20),
            MAX_FRAME - 1,
            Status::TooSmall,
        ),
        (
            "an rx buffer outside the data area",
            21,
            data - 1000,
            MAX_FRAME,
            Status::BadDescriptor,
        ),
    ];
    for (what, id, offset, len, want) in rx_cases {
        link.offer(id, offset, len);
        // Frames may arrive meanwhile in the good buffers: give those back.
        let got = loop {
            match link.wait_received(10 * WAIT) {
                Some((d, Status::Ok)) if d.id < RX => link.offer_slot(d.id),
                Some((d, status)) => break Some((d.id, status)),
                None => break None,
            }
        };
        c.eq(what, got, Some((id, want)));
    }
}
