//! Crypto benchmark (task `bench`, `cargo make bench crypto`): AES-128-CBC
//! encryption of 64 B, 1 KiB and 16 KiB buffers, three ways, in one run:
//!
//! - `device_N`: through the virtio-crypto driver's shared rings, one
//!   request at a time (submit, wait for the answer); the device reads
//!   and writes this task's data area in place;
//! - `device_qd32_N`: the same with 32 requests in flight;
//! - `software_N`: the software AES (RustCrypto's portable backend: tasks
//!   are built without SSE, so no AES-NI) on the same buffer in this task.
//!
//! For each it prints the latency of every operation (median, p99, mean)
//! and the time per operation over the whole run (`*_per_op`, from which
//! the runner derives operations and bytes per second under tcg), and
//! `device_pct_of_software_N`: the device's speed at queue depth 1 as a
//! percentage of the software's (the inverse ratio of their median
//! latencies, both measured in this run; medians, so that a moment of
//! host load does not decide it).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::bench::{BenchLine, Stat};
use conflux_crypto_client::{Algorithm, Caps, Connection, Direction, Session, Status, IV_LEN};
use conflux_userlib::bench::Samples;
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;

conflux_userlib::entry!(main);

use config::caps;

const KEY: [u8; 16] = *b"conflux-bench-16";
const IV: [u8; IV_LEN] = [7; IV_LEN];
/// Source and destinations in the data area; the key before them.
const SRC: u64 = 4096;
const DST: u64 = SRC + 0x1_0000;
const RINGS: &str = "the driver keeps the shared rings intact";

/// One buffer size: its metric names and how many operations to time.
struct Size {
    bytes: u32,
    rounds: u32,
    device: &'static str,
    device_per_op: &'static str,
    qd32_per_op: &'static str,
    software: &'static str,
    software_per_op: &'static str,
    pct: &'static str,
}

/// Fewer rounds for larger buffers: the software AES of 16 KiB takes
/// millions of guest instructions under TCG.
const SIZES: [Size; 3] = [
    Size {
        bytes: 64,
        rounds: 2000,
        device: "device_64",
        device_per_op: "device_64_per_op",
        qd32_per_op: "device_qd32_64_per_op",
        software: "software_64",
        software_per_op: "software_64_per_op",
        pct: "device_pct_of_software_64",
    },
    Size {
        bytes: 1024,
        rounds: 1000,
        device: "device_1024",
        device_per_op: "device_1024_per_op",
        qd32_per_op: "device_qd32_1024_per_op",
        software: "software_1024",
        software_per_op: "software_1024_per_op",
        pct: "device_pct_of_software_1024",
    },
    Size {
        bytes: 16384,
        rounds: 200,
        device: "device_16384",
        device_per_op: "device_16384_per_op",
        qd32_per_op: "device_qd32_16384_per_op",
        software: "software_16384",
        software_per_op: "software_16384_per_op",
        pct: "device_pct_of_software_16384",
    },
];
/// Operations before timing starts (queues, caches, the driver's turn).
const WARMUP: u32 = 50;

fn main() {
    let mut conn = Connection::open(Caps {
        region: caps::CRYPTO0,
        addr: caps::CRYPTO0_ADDR,
        size: caps::CRYPTO0_SIZE,
        done: caps::CRYPTO0_DONE,
        doorbell: caps::CRYPTO0_DOORBELL,
    })
    .expect(RINGS);
    conn.data()[..16].copy_from_slice(&KEY);
    let session = match conn.create_session(Algorithm::Cbc, Direction::Encrypt, 0, 16) {
        Ok(s) => s,
        Err(e) => {
            println!(
                "cannot create an AES-128-CBC session on the device: {e:?}; the benchmark stops"
            );
            return;
        }
    };
    for (i, b) in conn.data()[SRC as usize..][..0x1_0000]
        .iter_mut()
        .enumerate()
    {
        *b = i as u8;
    }
    for size in &SIZES {
        let device = device_qd1(&mut conn, session, size);
        device_qd32(&mut conn, session, size);
        let software = software(&mut conn, size);
        if let (Some(d), Some(s)) = (device, software) {
            // Speed ratio = latency ratio, inverted.
            print_line(size.pct, Stat::Mean, s * 100 / d.max(1));
        }
    }
    let _ = conn.destroy_session(session);
    let _ = conn.detach();
}

fn print_line(metric: &str, stat: Stat, value: u64) {
    let line = BenchLine::new(metric, stat, value).expect("a valid metric name");
    println!("{line}");
}

/// One request at a time; returns the median latency.
fn device_qd1(conn: &mut Connection, session: Session, size: &Size) -> Option<u64> {
    let mut latency = Samples::new(size.device, size.rounds as usize);
    let mut start = 0;
    for n in 0..WARMUP + size.rounds {
        if n == WARMUP {
            start = rdtsc();
        }
        let t = rdtsc();
        if let Err(e) = conn.encrypt(session, &IV, SRC, DST, size.bytes) {
            println!(
                "{}: request {n} failed: {e:?}; the benchmark stops",
                size.device
            );
            return None;
        }
        if n >= WARMUP {
            latency.push(rdtsc() - t);
        }
    }
    let per_op = (rdtsc() - start) / u64::from(size.rounds);
    let median = latency.report();
    print_line(size.device_per_op, Stat::Mean, per_op);
    median
}

/// 32 requests in flight, each into its own destination.
fn device_qd32(conn: &mut Connection, session: Session, size: &Size) {
    let total = WARMUP + size.rounds;
    let (mut sent, mut done, mut start) = (0u32, 0u32, 0u64);
    let mut free = u32::MAX;
    // 32 destinations of up to 16 KiB fit in the data area after DST.
    let dst = |id: u32| DST + u64::from(id) * u64::from(size.bytes);
    while done < total {
        while sent < total && free != 0 {
            let id = free.trailing_zeros();
            free &= !(1 << id);
            let r = Connection::cipher_request(
                Direction::Encrypt,
                session,
                &IV,
                SRC,
                dst(id),
                size.bytes,
            );
            conn.submit(id, &r).expect(RINGS);
            sent += 1;
        }
        let answer = conn.wait().expect(RINGS);
        if answer.status != Status::Ok {
            println!(
                "{}: request {} answered {:?}; the benchmark stops",
                size.qd32_per_op, answer.id, answer.status
            );
            return;
        }
        free |= 1 << (answer.id % 32);
        done += 1;
        if done == WARMUP {
            start = rdtsc();
        }
    }
    print_line(
        size.qd32_per_op,
        Stat::Mean,
        (rdtsc() - start) / u64::from(size.rounds),
    );
}

/// The software AES on the same source, into the same destination area;
/// returns the median latency.
fn software(conn: &mut Connection, size: &Size) -> Option<u64> {
    let n = size.bytes as usize;
    let mut latency = Samples::new(size.software, size.rounds as usize);
    let mut start = 0;
    let data = conn.data();
    for i in 0..WARMUP + size.rounds {
        if i == WARMUP {
            start = rdtsc();
        }
        let t = rdtsc();
        // CBC in place, as the device writes: copy the source, encrypt it.
        let (src, rest) = data[SRC as usize..].split_at_mut((DST - SRC) as usize);
        let out = &mut rest[..n];
        out.copy_from_slice(&src[..n]);
        let r = conflux_virtio_crypto::soft::apply(
            conflux_virtio_crypto::Algorithm::Cbc,
            conflux_virtio_crypto::Direction::Encrypt,
            &KEY,
            &IV,
            out,
        );
        if let Err(e) = r {
            println!("{}: {e:?}; the benchmark stops", size.software);
            return None;
        }
        if i >= WARMUP {
            latency.push(rdtsc() - t);
        }
    }
    let per_op = (rdtsc() - start) / u64::from(size.rounds);
    let median = latency.report();
    print_line(size.software_per_op, Stat::Mean, per_op);
    median
}
