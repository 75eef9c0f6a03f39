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

/// Answers of one ring while the driver restarted, by status: sent or a
/// frame received (`ok`), `restarted`, and anything no restart explains.
#[derive(Debug, Default)]
struct Tally {
    ok: u32,
    restarted: u32,
    other: u32,
}

impl Tally {
    fn add(&mut self, status: Status) {
        match status {
            Status::Ok => self.ok += 1,
            Status::Restarted => self.restarted += 1,
            _ => self.other += 1,
        }
    }

    fn total(&self) -> u32 {
        self.ok + self.restarted + self.other
    }
}

pub fn run(c: &mut Checks, link: &mut Link) {
    // Let the driver go idle, so the burst waits for it on the ring.
    let calm = rdtsc() + WAIT / 4;
    while rdtsc() < calm {
        yield_now();
    }
    link.send_burst(1..BURST + 1, &crate::frames::arp_request(MAC));
    let (tx, rx) = collect(link);
    c.eq(
        "the two tx frames on the device when the driver died came back Restarted",
        tx.restarted,
        2,
    );
    c.eq(
        "the tx frames still on the ring were sent by the new instance",
        (tx.ok, tx.other),
        (BURST - 2, 0),
    );
    c.that(
        "every rx buffer the driver held came back, unused ones Restarted",
        rx.total() == RX && rx.restarted > 0 && rx.other == 0,
        &rx,
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
fn collect(link: &mut Link) -> (Tally, Tally) {
    let (mut tx, mut rx) = (Tally::default(), Tally::default());
    let end = rdtsc() + 30 * WAIT;
    while (tx.total() < BURST || rx.total() < RX) && rdtsc() < end {
        let sent = link.client.sent().expect("the rings are intact");
        let received = link.client.received().expect("the rings are intact");
        if let Some((_, status)) = sent {
            tx.add(status);
        }
        if let Some((_, status)) = received {
            rx.add(status);
        }
        if sent.is_none() && received.is_none() {
            yield_now();
        }
    }
    (tx, rx)
}
