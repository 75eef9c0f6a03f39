//! The `net-restart` system's part: the driver faults on purpose the
//! moment the device holds two of our tx frames at once (a burst of four;
//! see `fault_injection_due` in the driver) and init restarts it. Every
//! buffer the driver held must come back `Restarted` — the two tx frames on
//! the device and every rx buffer — the two frames still on the ring must
//! be sent by the new instance, and ARP and DHCP must work again.

use crate::link::{Link, RX};
use crate::{arp, dhcp, MAC, WAIT};
use conflux_net_protocol::Status;
use conflux_userlib::sys::{rdtsc, yield_now};
use conflux_userlib::testing::Checks;

/// Frames in the burst (tx ids 1..=BURST; id 0 is the exchanges').
const BURST: u32 = 4;

/// What came back while the driver restarted.
#[derive(Debug, Default)]
struct Back {
    tx_ok: u32,
    tx_restarted: u32,
    /// Rx buffers back, by status: a frame (Ok), unused (Restarted).
    rx_ok: u32,
    rx_restarted: u32,
    /// Anything else: an answer no restart explains.
    other: u32,
}

pub fn run(c: &mut Checks, link: &mut Link) {
    // Let the driver go idle, so the burst waits for it on the ring.
    let calm = rdtsc() + WAIT / 4;
    while rdtsc() < calm {
        yield_now();
    }
    link.send_burst(1..BURST + 1, &crate::frames::arp_request(MAC));
    let back = collect(link);
    c.eq(
        "the two tx frames on the device when the driver died came back Restarted",
        back.tx_restarted,
        2,
    );
    c.eq(
        "the tx frames still on the ring were sent by the new instance",
        back.tx_ok,
        BURST - 2,
    );
    c.that(
        "every rx buffer the driver held came back, unused ones Restarted",
        back.rx_ok + back.rx_restarted == RX && back.rx_restarted > 0 && back.other == 0,
        &back,
    );
    for id in 0..RX {
        link.offer_slot(id);
    }
    arp(
        c,
        link,
        "after the restart, an ARP request to 10.0.2.2 is answered with its MAC",
    );
    dhcp(
        c,
        link,
        "after the restart, DHCP DISCOVER is answered with an OFFER of 10.0.2.15",
        0x0c0f_1e78,
    );
}

/// Waits (up to ~30 s under tcg: a restart reloads the driver and
/// re-initialises the device) until every burst frame and every rx buffer
/// is back, without offering any buffer again meanwhile.
fn collect(link: &mut Link) -> Back {
    let mut back = Back::default();
    let end = rdtsc() + 30 * WAIT;
    while back.tx_ok + back.tx_restarted + back.other < BURST || back.rx_ok + back.rx_restarted < RX
    {
        if rdtsc() > end {
            break;
        }
        let mut idle = true;
        if let Some((_, status)) = link.client.sent().expect("the rings are intact") {
            idle = false;
            match status {
                Status::Ok => back.tx_ok += 1,
                Status::Restarted => back.tx_restarted += 1,
                _ => back.other += 1,
            }
        }
        if let Some((_, status)) = link.client.received().expect("the rings are intact") {
            idle = false;
            match status {
                Status::Ok => back.rx_ok += 1,
                Status::Restarted => back.rx_restarted += 1,
                _ => back.other += 1,
            }
        }
        if idle {
            yield_now();
        }
    }
    back
}
