//! Block client test: through the virtio-blk driver and its shared rings,
//! writes pseudo-random data to random blocks (several requests in flight),
//! reads every block back and checks its CRC-32C, then sends requests a
//! hostile client would and checks each gets its specific error and the
//! driver keeps serving.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_blk_client::{Caps, Connection};
use conflux_blk_protocol::{Op, Status, CAPACITY};
use conflux_userlib::hostile::Rng;
use conflux_userlib::sys::rdtsc;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Blocks written and read back (4 KiB each).
const BLOCKS: u64 = 64;
/// Sectors per block.
const PER_BLOCK: u64 = 8;
/// Requests kept in flight at once.
const DEPTH: u32 = 8;

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
/// The driver keeps the rings intact; a test client that finds them
/// damaged has nothing to test.
const INTACT: &str = "the shared rings are intact";

/// Fills buffer `slot` from `seed`; returns its CRC-32C.
fn fill(link: &mut Connection, slot: u32, seed: u64) -> u32 {
    let mut rng = Rng(seed | 1);
    let buf = link.buffer(slot);
    for chunk in buf.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    CRC.checksum(buf)
}

/// Sends a hand-made request and returns its status.
fn raw(link: &mut Connection, id: u32, op: u32, block: u64, offset: u64, len: u32) -> Status {
    link.send(id, op, block, offset, len).expect(INTACT);
    link.wait().expect(INTACT).1
}

fn main() {
    let mut c = Checks::new();
    let mut link = Connection::open(Caps {
        region: config::caps::DISK0,
        addr: config::caps::DISK0_ADDR,
        size: config::caps::DISK0_SIZE,
        done: config::caps::DISK0_DONE,
        doorbell: config::caps::DISK0_DOORBELL,
    })
    .expect(INTACT);
    let capacity_blocks = 4 * 1024 * 1024 / 4096; // the test disk is 4 MiB
    let mut rng = Rng(rdtsc() | 1);
    // Distinct blocks: two writes of one block in flight together (or one
    // sent again after a driver restart) may reach the disk in either
    // order, as on any disk, so "the last one wins" would not be defined.
    let mut targets = [0u64; BLOCKS as usize];
    for i in 0..BLOCKS as usize {
        targets[i] = loop {
            let t = rng.next_u64() % capacity_blocks;
            if !targets[..i].contains(&t) {
                break t;
            }
        };
    }
    let mut crcs = [0u32; BLOCKS as usize];
    // Write: fill a free buffer slot per request (a slot, and its request
    // id, is reused only after its answer came), DEPTH in flight.
    let mut free: u32 = (1 << DEPTH) - 1;
    let mut block_of = [0u64; DEPTH as usize];
    let (mut next, mut done, mut resent) = (0u64, 0u64, 0u32);
    let mut statuses = [0u32; 8];
    while done < BLOCKS {
        while next < BLOCKS && free != 0 {
            let slot = free.trailing_zeros();
            free &= !(1 << slot);
            crcs[next as usize] = fill(&mut link, slot, rng.next_u64());
            block_of[slot as usize] = targets[next as usize] * PER_BLOCK;
            link.submit(slot, Op::Write, block_of[slot as usize], slot)
                .expect(INTACT);
            next += 1;
        }
        let (id, status) = link.wait().expect(INTACT);
        let slot = id % DEPTH;
        if status == Status::Restarted {
            // The driver restarted with this write in flight: its buffer
            // still holds the data, so send it again.
            resent += 1;
            link.submit(slot, Op::Write, block_of[slot as usize], slot)
                .expect(INTACT);
            continue;
        }
        free |= 1 << slot;
        statuses[(status as usize).min(7)] += 1;
        done += 1;
    }
    c.eq(
        "64 writes of 4 KiB, 8 in flight, all answered Ok (count per status)",
        statuses,
        [BLOCKS as u32, 0, 0, 0, 0, 0, 0, 0],
    );
    if config::SYSTEM_NAME == "blk-restart" {
        c.that(
            "writes in flight when the driver died came back Restarted and were sent again",
            resent > 0,
            resent,
        );
    }
    // Read back one at a time.
    let mut bad = 0;
    for i in 0..BLOCKS as usize {
        link.submit(0, Op::Read, targets[i] * PER_BLOCK, 0)
            .expect(INTACT);
        let (_, status) = link.wait().expect(INTACT);
        if status != Status::Ok || CRC.checksum(link.buffer(0)) != crcs[i] {
            bad += 1;
        }
    }
    c.eq(
        "every block reads back with the CRC it was written with",
        bad,
        0,
    );
    burst(&mut c, &mut link, &targets, &crcs);
    hostile(&mut c, &mut link, capacity_blocks * PER_BLOCK);
    revoke_under_the_driver(&mut c, &mut link, targets[0], crcs[0]);
    link.submit(0, Op::Detach, 0, 0).expect(INTACT);
    c.eq("detach", link.wait().expect(INTACT).1, Status::Ok);
    c.finish();
}

/// A full ring at once: as many reads as the ring holds ([`CAPACITY`])
/// and the data area has buffers for, submitted before any answer is
/// taken. That is past what the driver hands the device at once (its
/// `MAX_IN_FLIGHT`, 16): the rest wait in the ring, and every read is
/// answered Ok with its block's bytes.
fn burst(c: &mut Checks, link: &mut Connection, targets: &[u64], crcs: &[u32]) {
    let n = CAPACITY.min(link.buffers()).min(targets.len() as u32);
    for id in 0..n {
        link.submit(id, Op::Read, targets[id as usize] * PER_BLOCK, id)
            .expect(INTACT);
    }
    let mut good = 0;
    for _ in 0..n {
        let (id, status) = link.wait().expect(INTACT);
        let i = (id % n) as usize;
        good += u32::from(status == Status::Ok && CRC.checksum(link.buffer(id % n)) == crcs[i]);
    }
    c.eq(
        "a full ring of reads at once, past the driver's 16 in flight, all read back",
        (n, good),
        (CAPACITY, CAPACITY),
    );
}

/// Memory shared with the driver cannot be pulled from under it: the
/// manifest gives the driver its own capability to the shared region (a
/// root, like this task's), so revoking everything derived from this
/// task's reaches nothing of the driver's, which goes on serving.
fn revoke_under_the_driver(c: &mut Checks, link: &mut Connection, block: u64, crc: u32) {
    c.eq(
        "revoking the shared region reaches nothing of the driver's",
        conflux_userlib::ipc::Slot(config::caps::DISK0).revoke(),
        Ok(0),
    );
    link.submit(0, Op::Read, block * PER_BLOCK, 0)
        .expect(INTACT);
    let (_, status) = link.wait().expect(INTACT);
    c.eq(
        "after it the driver still reads a block with its CRC",
        (status, CRC.checksum(link.buffer(0)) == crc),
        (Status::Ok, true),
    );
}

/// Requests a hostile client would send: each gets its own error, and a
/// good request afterwards still works.
fn hostile(c: &mut Checks, link: &mut Connection, sectors: u64) {
    let cases = [
        (
            "a request past the end of the disk",
            raw(link, 1, Op::Read as u32, sectors, 0, 4096),
            Status::OutOfRange,
        ),
        (
            "an unknown operation",
            raw(link, 1, 99, 0, 0, 4096),
            Status::BadOp,
        ),
        (
            "a length that is not whole sectors",
            raw(link, 1, Op::Read as u32, 0, 0, 100),
            Status::BadLength,
        ),
        (
            "data outside the shared region",
            raw(link, 1, Op::Read as u32, 0, u64::MAX - 4096, 4096),
            Status::BadDescriptor,
        ),
        (
            "a request id past the table",
            raw(link, 999, Op::Read as u32, 0, 0, 4096),
            Status::BadDescriptor,
        ),
    ];
    for (what, got, want) in cases {
        c.eq(what, got, want);
    }
    link.submit(0, Op::Flush, 0, 0).expect(INTACT);
    c.eq("a flush", link.wait().expect(INTACT).1, Status::Ok);
    link.submit(0, Op::Read, 0, 0).expect(INTACT);
    c.eq(
        "a good read after the hostile ones",
        link.wait().expect(INTACT).1,
        Status::Ok,
    );
}
