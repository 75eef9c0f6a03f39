//! Block client test: through the virtio-blk driver and its shared rings,
//! writes pseudo-random data to random blocks (several requests in flight),
//! reads every block back and checks its CRC-32C, then sends requests a
//! hostile client would and checks each gets its specific error and the
//! driver keeps serving.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

mod link;

use conflux_blk_protocol::{Op, Status};
use conflux_userlib::hostile::Rng;
use conflux_userlib::sys::rdtsc;
use conflux_userlib::testing::Checks;
use link::Link;

conflux_userlib::entry!(main);

/// Blocks written and read back (4 KiB each).
const BLOCKS: u64 = 64;
/// Sectors per block.
const PER_BLOCK: u64 = 8;
/// Requests kept in flight at once.
const DEPTH: u32 = 8;

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

fn main() {
    let mut c = Checks::new();
    let mut link = Link::open();
    let capacity_blocks = 4 * 1024 * 1024 / 4096; // the test disk is 4 MiB
    let mut rng = Rng(rdtsc() | 1);
    let targets: [u64; BLOCKS as usize] =
        core::array::from_fn(|_| rng.next_u64() % capacity_blocks);
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
            crcs[next as usize] = link.fill(slot, rng.next_u64());
            block_of[slot as usize] = targets[next as usize] * PER_BLOCK;
            link.submit(slot, Op::Write, block_of[slot as usize], slot);
            next += 1;
        }
        let (id, status) = link.wait();
        let slot = id % DEPTH;
        if status == Status::Restarted {
            // The driver restarted with this write in flight: its buffer
            // still holds the data, so send it again.
            resent += 1;
            link.submit(slot, Op::Write, block_of[slot as usize], slot);
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
    // Read back one at a time (a block written twice keeps its last data).
    let mut last = [None; BLOCKS as usize];
    for i in 0..BLOCKS as usize {
        if let Some(j) = targets.iter().rposition(|&t| t == targets[i]) {
            last[i] = Some(j);
        }
    }
    let mut bad = 0;
    for i in 0..BLOCKS as usize {
        if last[i] != Some(i) {
            continue;
        }
        link.submit(0, Op::Read, targets[i] * PER_BLOCK, 0);
        let (_, status) = link.wait();
        if status != Status::Ok || CRC.checksum(link.bytes(0)) != crcs[i] {
            bad += 1;
        }
    }
    c.eq(
        "every block reads back with the CRC it was written with",
        bad,
        0,
    );
    hostile(&mut c, &mut link, capacity_blocks * PER_BLOCK);
    link.submit(0, Op::Detach, 0, 0);
    c.eq("detach", link.wait().1, Status::Ok);
    c.finish();
}

/// Requests a hostile client would send: each gets its own error, and a
/// good request afterwards still works.
fn hostile(c: &mut Checks, link: &mut Link, sectors: u64) {
    let cases = [
        (
            "a request past the end of the disk",
            link.raw(1, Op::Read as u32, sectors, 0, 4096),
            Status::OutOfRange,
        ),
        (
            "an unknown operation",
            link.raw(1, 99, 0, 0, 4096),
            Status::BadOp,
        ),
        (
            "a length that is not whole sectors",
            link.raw(1, Op::Read as u32, 0, 0, 100),
            Status::BadLength,
        ),
        (
            "data outside the shared region",
            link.raw(1, Op::Read as u32, 0, u64::MAX - 4096, 4096),
            Status::BadDescriptor,
        ),
        (
            "a request id past the table",
            link.raw(999, Op::Read as u32, 0, 0, 4096),
            Status::BadDescriptor,
        ),
    ];
    for (what, got, want) in cases {
        c.eq(what, got, want);
    }
    link.submit(0, Op::Flush, 0, 0);
    c.eq("a flush", link.wait().1, Status::Ok);
    link.submit(0, Op::Read, 0, 0);
    c.eq(
        "a good read after the hostile ones",
        link.wait().1,
        Status::Ok,
    );
}
