//! A hostile client of the network server's rings (tests net-ring and
//! net-ring-2cpu). It names regions that cannot be rings (`BadRing`) and
//! rings the doorbell before it has rings (`NoRing`); then it sets its
//! rings up and writes them by hand: each malformed entry (and a
//! descriptor outside the data area) must come back with its own code;
//! 32 `wait`s that never end must all be taken and parked, and one more
//! entry past them left on its ring, untaken, with no answer (the
//! completion ring's room belongs to the parked ones); then a submission
//! index 1000 past the server's, after which the server must drop its
//! rings with the parked entries (`NoRing` at the doorbell) and still
//! serve it by IPC. Meanwhile a well-behaved client is served; it is told
//! (`done`) when this one is finished.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec;
use alloc::vec::Vec;

use conflux_net_client::{Error, Events, Net, NetError, Operand, PollEntry, SockAddr, SockKind};
use conflux_queue::{DataRegion, Descriptor, PopError};
use conflux_socket_protocol::ops::{self, WAIT_FOREVER};
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::testing::Checks;
use cosy_abi::code;
use cosy_abi::ring::{entry, Parts, DEPTH};

conflux_userlib::entry!(main);

/// Where the hand-written entries go in the data area, one per 256 bytes.
const STRIDE: u64 = 256;
/// The poll list of the parked waits, in the control region.
const POLL: u64 = 0;

/// Writes `entries` (bytes at their descriptor's place, if it is inside
/// the data area) and pushes their descriptors, as a client without the
/// library would.
fn push(net: &mut Net, region: u8, entries: &[(Descriptor, Vec<u8>)]) -> Result<(), Error> {
    let bytes = net.data(region).ok_or(Error::NoRing)?;
    let parts = Parts::attach(bytes)?;
    for (d, b) in entries {
        let at = d.offset as usize;
        if let Some(place) = parts.data.get_mut(at..at + b.len()) {
            place.copy_from_slice(b);
        }
    }
    let mut submissions = parts.submissions.into_producer();
    for (d, _) in entries {
        submissions.push(*d).map_err(|_| Error::TooLarge)?;
    }
    Ok(())
}

/// Takes every completion waiting: (tag, status).
fn take(net: &mut Net, region: u8) -> Result<Vec<(u32, u16)>, Error> {
    let bytes = net.data(region).ok_or(Error::NoRing)?;
    let parts = Parts::attach(bytes)?;
    let mut completions = parts.completions.into_consumer(DataRegion::new(usize::MAX));
    let mut got = Vec::new();
    loop {
        let slot = match completions.pop() {
            Ok(Some(v)) => v.get(),
            Ok(None) => return Ok(got),
            Err(PopError::OutOfBounds(d)) => d,
            Err(PopError::Corrupt(_)) => return Err(Error::NoRing),
        };
        got.push((slot.id, slot.len as u16));
    }
}

/// Entries not yet taken by the server.
fn untaken(net: &mut Net, region: u8) -> Result<u32, Error> {
    let bytes = net.data(region).ok_or(Error::NoRing)?;
    let parts = Parts::attach(bytes)?;
    let submissions = parts.submissions.into_producer();
    let free = submissions.free().map_err(|_| Error::NoRing)?;
    Ok(DEPTH - free)
}

/// An operation entry's bytes.
fn op(op: u16, words: &[u64]) -> Vec<u8> {
    let mut e = vec![0u8; 64];
    let n = entry::write_op(&mut e, op, words).unwrap_or(0);
    e.truncate(n);
    e
}

fn malformed(net: &mut Net, region: u8, c: &mut Checks) -> Result<(), Error> {
    let data_len = net.data(region).map_or(0, |d| d.len()) - cosy_abi::ring::DATA;
    let shapes: [(Vec<u8>, u16); 8] = [
        (vec![1, 0], code::ENTRY_TRUNCATED),
        (vec![7, 0, 0, 0, 0, 0, 0, 0], code::ENTRY_KIND),
        (vec![1, 0, 0, 0, 0, 0, 9, 0], code::ENTRY_RESERVED),
        (vec![1, 0, 0, 0, 0x40, 0, 0, 0], code::ENTRY_WORDS),
        (op(500, &[]), code::UNKNOWN_SERVICE_OP),
        (op(ops::SOCKET, &[]), code::ARG_COUNT),
        // Room to receive into in region 3, which the session lacks.
        (
            op(ops::RECV, &[1, 3 << 56 | 16 << 32, 16]),
            code::REF_OUT_OF_BOUNDS,
        ),
        (vec![2, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3], code::TRUNCATED),
    ];
    let mut entries = Vec::new();
    let mut want = Vec::new();
    for (i, (bytes, status)) in shapes.into_iter().enumerate() {
        let d = Descriptor {
            offset: i as u64 * STRIDE,
            len: bytes.len() as u32,
            id: 100 + i as u32,
        };
        entries.push((d, bytes));
        want.push((d.id, status));
    }
    let outside = Descriptor {
        offset: data_len as u64 - 8,
        len: 64,
        id: 199,
    };
    entries.push((outside, Vec::new()));
    want.push((outside.id, code::ENTRY_OUT_OF_BOUNDS));
    push(net, region, &entries)?;
    let mut got = Vec::new();
    // Every one is answered at once (none can park): a bounded wait.
    for _ in 0..entries.len() {
        if got.len() == entries.len() {
            break;
        }
        net.ring_doorbell(true)?;
        got.extend(take(net, region)?);
    }
    c.eq("each malformed entry answered with its own code", got, want);
    Ok(())
}

/// Pushes `count` waits that never end (on a UDP socket nothing is sent
/// to) and rings the doorbell twice: the server has made a whole pass
/// after the first before it takes the second. (untaken, answered).
fn endless_waits(net: &mut Net, region: u8, count: u32) -> Result<(u32, usize), Error> {
    let list = (PollEntry::SIZE as u64) << 32 | POLL;
    let wait = op(ops::WAIT, &[list, 1, WAIT_FOREVER]);
    let waits: Vec<(Descriptor, Vec<u8>)> = (0..count)
        .map(|i| {
            let d = Descriptor {
                offset: u64::from(i) * STRIDE,
                len: wait.len() as u32,
                id: 300 + i,
            };
            (d, wait.clone())
        })
        .collect();
    push(net, region, &waits)?;
    net.ring_doorbell(false)?;
    net.ring_doorbell(false)?;
    Ok((untaken(net, region)?, take(net, region)?.len()))
}

/// 32 endless waits parked, then one entry more: left untaken.
fn past_the_depth(net: &mut Net, region: u8, c: &mut Checks) -> Result<(), Error> {
    let idle = net.socket(SockKind::Datagram)?;
    net.bind(idle, SockAddr::new([0; 4], 11))?;
    let entry = PollEntry {
        handle: idle.0 as u32,
        events: Events::READABLE,
        revents: Events(0),
    };
    entry.encode(&mut net.control()[POLL as usize..]);
    let into_the_ring = Operand::Buf {
        region,
        offset: 0,
        len: 16,
    };
    c.eq(
        "a per-call recv into the ring region is refused: it reads as empty",
        net.call(
            ops::RECV,
            &[Operand::Value(idle.0), into_the_ring, Operand::Value(16)],
        ),
        Err(Error::Request(code::REF_OUT_OF_BOUNDS)),
    );
    c.eq(
        "32 endless waits are all taken, none answered (parked)",
        endless_waits(net, region, DEPTH)?,
        (0, 0),
    );
    let nop = op(ops::NOP, &[]);
    let one_more = Descriptor {
        offset: 0,
        len: nop.len() as u32,
        id: 400,
    };
    push(net, region, &[(one_more, nop)])?;
    net.ring_doorbell(false)?;
    net.ring_doorbell(false)?;
    c.eq(
        "one entry past 32 parked is left on the ring, unanswered",
        (untaken(net, region)?, take(net, region)?.len()),
        (1, 0),
    );
    Ok(())
}

/// RING naming `region` by hand: the reply's label.
fn name_ring(region: u64) -> Result<u32, conflux_userlib::SysError> {
    let msg = Message::new(conflux_net_client::ipc::RING, &[region]);
    Endpoint(config::caps::NET).call(&msg).map(|r| r.label)
}

fn run(net: &mut Net, c: &mut Checks) -> Result<(), Error> {
    let bad_ring = u32::from(cosy_abi::CallError::from(NetError::BadRing).code());
    c.eq(
        "RING naming no region is refused: BadRing",
        name_ring(0),
        Ok(bad_ring),
    );
    c.eq(
        "RING naming a region never attached is refused: BadRing",
        name_ring(3),
        Ok(bad_ring),
    );
    c.eq(
        "the doorbell before RING is refused: NoRing",
        net.ring_doorbell(false),
        Err(Error::Net(NetError::NoRing)),
    );
    let region = net.ring_open(config::caps::RING, config::caps::RING_ADDR)?;
    malformed(net, region, c)?;
    past_the_depth(net, region, c)?;
    // An index 1000 entries past the server's: the rings are dropped.
    if let Some(bytes) = net.data(region) {
        let tail = u32::from_le_bytes([bytes[64], bytes[65], bytes[66], bytes[67]]);
        bytes[64..68].copy_from_slice(&tail.wrapping_add(1000).to_le_bytes());
    }
    let waited = net.ring_doorbell(true);
    let again = net.ring_doorbell(false);
    c.eq(
        "impossible indices: the server dropped the rings (the held wait told NoRing)",
        (waited, again),
        (
            Err(Error::Net(NetError::NoRing)),
            Err(Error::Net(NetError::NoRing)),
        ),
    );
    c.eq(
        "and still serves the session by IPC",
        net.call(ops::NOP, &[]),
        Ok(0),
    );
    // Rings again, entries parked on them, and the task ends: the
    // supervisor's CLIENT_GONE must take everything back (the
    // well-behaved client checks the sockets are gone).
    if let Some(bytes) = net.data(region) {
        Parts::format(bytes)?;
    }
    c.eq(
        "RING again, over the region formatted anew",
        name_ring(u64::from(region)),
        Ok(conflux_net_client::ipc::OK),
    );
    c.eq(
        "4 endless waits parked as the task ends",
        endless_waits(net, region, 4)?,
        (0, 0),
    );
    Ok(())
}

fn main() {
    let mut c = Checks::new();
    match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(mut net) => {
            if let Err(e) = run(&mut net, &mut c) {
                c.that("the hostile ring client's steps", false, e);
            }
        }
        Err(e) => c.that("connect to the network server", false, e),
    }
    let _ = Notification(config::caps::DONE).signal();
    c.finish()
}
