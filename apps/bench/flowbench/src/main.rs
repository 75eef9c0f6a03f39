//! Flow benchmark task (`cargo make bench flow`, test `flowbench-smoke`):
//! the flow paper's experiment. The host sends UDP datagrams — each a
//! self-checking record (`conflux_flow_protocol::record`) encrypted on its
//! own with AES-128-CBC — and the guest decrypts them and stores them on
//! disk, packed, in arrival order:
//!
//! - **memory-centric** ([`memory`]): this task receives each datagram
//!   from the network server into its own buffer, has the crypto driver
//!   decrypt it in its shared region, copies the plaintext into a block
//!   buffer and writes full buffers through the block driver: the data
//!   passes through this task three times.
//! - **flow** ([`flow`]): one `flowmgr` flow, NIC → crypto device → disk;
//!   this task only creates it, watches its statistics and destroys it.
//! - **each stage alone** ([`alone`]): `stage-udp` (NIC → null) on the same
//!   offered loads, then `stage-crypto` (pattern → device decrypt → null)
//!   and `stage-disk` (pattern → disk), which need no host and run once per
//!   size: the flow's share of its slowest stage.
//!
//! Memory-centric, flow and stage-udp alternate, run by run, on the same
//! offered loads.
//! For each datagram size in [`SIZES`], [`plan::Plan::rounds`] times (the
//! runner offers each round at another rate), it prints `ready` with the port,
//! receives until [`plan::Plan::count`] datagrams came or the line has
//! been quiet for [`plan::QUIET_MS`] after the first, then reads back
//! what it stored and checks every record, and prints one `result` line:
//! datagrams stored, TSC cycles from the first datagram to the last
//! write, and the check's tally. The runner turns that into packets and
//! bytes per second (`qemu/runner/src/bench/flow.rs`).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod alone;
mod disk;
mod flow;
mod memory;
mod plan;

use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Datagram sizes, as in the paper's figure (64 B and 1 KiB).
pub const SIZES: [u32; 2] = [64, 1024];

/// The key and IV every datagram is encrypted with (the runner's sender
/// uses the same; see `qemu/runner/src/bench/flow.rs`).
pub const KEY: [u8; 16] = *b"conflux-flow-key";
pub const IV: [u8; 16] = *b"conflux-flow-iv!";
/// The records' seed.
pub const SEED: u64 = 0xf10e;
/// Sectors each run stores into (32 MiB: 20,000 records of 1 KiB and room;
/// the benchmark's 30 disk runs fill 960 MiB of its 1024 MiB disk).
pub const RUN_SECTORS: u64 = 32 << 11;

/// Stops the benchmark with a message (its figures would be wrong).
pub fn fail(what: &str) -> ! {
    println!("CHECK FAILED: {what}");
    conflux_userlib::sys::exit(1);
}

fn main() {
    let plan = plan::Plan::for_system(crate::config::SYSTEM_NAME);
    let mut mem = memory::Memory::open();
    let mut first = 0;
    for size in SIZES {
        for _ in 0..plan.rounds {
            mem.run(size, &plan, first).print("memory-centric", size);
            first += RUN_SECTORS;
            flow::run(mem.blk(), size, &plan, first, RUN_SECTORS).print("flow", size);
            first += RUN_SECTORS;
            alone::udp(size, &plan).print("stage-udp", size);
        }
        alone::crypto(size, &plan).print("stage-crypto", size);
        alone::disk(mem.blk(), size, &plan, first, RUN_SECTORS).print("stage-disk", size);
        first += RUN_SECTORS;
    }
    println!("done");
}
