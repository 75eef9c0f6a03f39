//! Block benchmark, client side (task `bench`): 4 KiB random reads and
//! writes over the whole disk through the virtio-blk driver's shared
//! rings, at queue depth 1 and 32. For each it prints the latency of every
//! request (submit to answer: median, p99, mean) and the time per
//! operation over the whole run (`*_per_op`, the inverse of IOPS), as
//! record lines the runner reads (`cargo make bench blk`).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::bench::{BenchLine, Stat};
use conflux_blk_client::{Caps, Connection};
use conflux_blk_protocol::{Op, Status};
use conflux_userlib::bench::Samples;
use conflux_userlib::hostile::Rng;
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;

conflux_userlib::entry!(main);

use config::caps;

/// Requests per configuration (after warm-up).
const REQUESTS: u32 = 4000;
const WARMUP: u32 = 200;
/// The disk's size (`size_mib` of `qemu/systems/blkbench.toml`).
const DISK_MIB: u64 = 64;
/// Sectors per 4 KiB block.
const PER_BLOCK: u64 = 8;

fn main() {
    let mut conn = Connection::open(Caps {
        region: caps::DISK0,
        addr: caps::DISK0_ADDR,
        size: caps::DISK0_SIZE,
        done: caps::DISK0_DONE,
        doorbell: caps::DISK0_DOORBELL,
    })
    .expect("the manifest's shared region fits a block connection");
    let blocks = DISK_MIB * 1024 * 1024 / 4096;
    let mut rng = Rng(0x5eed_b10c | 1);
    for (name, op, depth) in [
        (("write_qd1", "write_qd1_per_op"), Op::Write, 1),
        (("read_qd1", "read_qd1_per_op"), Op::Read, 1),
        (("write_qd32", "write_qd32_per_op"), Op::Write, 32),
        (("read_qd32", "read_qd32_per_op"), Op::Read, 32),
    ] {
        run(&mut conn, &mut rng, blocks, name, op, depth);
    }
    conn.submit(0, Op::Detach, 0, 0).expect("rings intact");
    let _ = conn.wait();
}

/// `REQUESTS` requests of `op` with `depth` in flight; prints the records.
fn run(
    conn: &mut Connection,
    rng: &mut Rng,
    blocks: u64,
    names: (&'static str, &'static str),
    op: Op,
    depth: u32,
) {
    let (name, per_op_name) = names;
    let mut latency = Samples::new(name, REQUESTS as usize);
    let mut sent_at = [0u64; 32];
    // Request ids (and buffers) in flight: an id is reused only after its
    // answer came back, whatever order the device finishes in.
    let mut free: u32 = if depth >= 32 {
        u32::MAX
    } else {
        (1 << depth) - 1
    };
    let (mut sent, mut done) = (0u32, 0u32);
    let mut start = 0;
    let total = WARMUP + REQUESTS;
    while done < total {
        while sent < total && free != 0 {
            let id = free.trailing_zeros();
            free &= !(1 << id);
            sent_at[id as usize] = rdtsc();
            conn.submit(id, op, rng.next_u64() % blocks * PER_BLOCK, id)
                .expect("rings intact");
            sent += 1;
        }
        let (id, status) = conn.wait().expect("rings intact");
        if status != Status::Ok {
            println!("{name}: request {id} answered {status:?}; the benchmark stops");
            return;
        }
        free |= 1 << (id % 32);
        done += 1;
        if done == WARMUP {
            start = rdtsc();
        }
        if done > WARMUP {
            latency.push(rdtsc() - sent_at[(id % 32) as usize]);
        }
    }
    let per_op = (rdtsc() - start) / u64::from(REQUESTS);
    latency.report();
    let line = BenchLine::new(per_op_name, Stat::Mean, per_op).expect("a valid metric name");
    println!("{line}");
}
