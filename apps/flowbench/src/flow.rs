//! The flow path: this task only signals.
//!
//! It asks `flowmgr` for one flow — UDP port [`PORT`] (the NIC driver
//! steers those datagrams into the flow's buffers) → AES-128-CBC decrypt
//! on the crypto device → the disk, packed from the run's first sector —
//! then watches the flow's statistics until every datagram reached the
//! sink or the line went quiet, destroys the flow (the block stage writes
//! what it still holds) and reads back what was stored to check it. The
//! data never enters this task while the flow runs.
//!
//! The watch polls every kernel tick (10 ms), so the run's start and end
//! are known to a tick: at the benchmark's counts, runs of seconds, that
//! is well under 1 %.

use crate::disk;
use crate::plan::{Plan, Result, FIRST_MS, QUIET_MS};
use crate::{fail, IV, KEY};
use conflux_blk_client::Connection as Blk;
use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use flow_client::{FlowId, Flows};

use crate::config;

/// The guest UDP port the flow runs take.
pub const PORT: u16 = 5711;
const TICK_MS: u64 = 10;

/// The flow request for one run: datagrams of `size` bytes, stored from
/// sector `first`.
fn request(size: u32, first: u64, sectors: u64) -> FlowRequest {
    let decrypt = StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction: Direction::Decrypt,
        engine: Engine::Device,
        key: Key::new(&KEY).unwrap_or_else(|| fail("the benchmark key is not 16 bytes")),
        iv: IV,
    });
    FlowRequest::new(
        StageSpec::Udp { port: PORT },
        &[decrypt],
        StageSpec::Blocks {
            first,
            count: sectors,
        },
        4,
        0,
        size,
    )
    .unwrap_or_else(|e| {
        fail(&alloc::format!(
            "the flow request is refused before sending: {e}"
        ))
    })
}

/// Records that reached the sink so far: what the last edge carried less
/// what still waits in it.
fn at_sink(flows: &Flows, id: FlowId) -> u64 {
    match flows.stats(id) {
        Ok(s) if s.edge_count > 0 => {
            let last = s.edges[s.edge_count - 1];
            last.buffers.saturating_sub(last.queued)
        }
        Ok(_) => 0,
        Err(e) => fail(&alloc::format!(
            "flowmgr refused the flow's statistics: {e}"
        )),
    }
}

/// One run of the flow configuration.
pub fn run(blk: &mut Blk, size: u32, plan: &Plan, first: u64, sectors: u64) -> Result {
    let flows = Flows::new(config::caps::FLOWMGR);
    let clock = Notification(config::caps::CLOCK);
    let id = flows
        .create(&request(size, first, sectors))
        .unwrap_or_else(|e| fail(&alloc::format!("flowmgr refused the flow: {e}")));
    println!("ready config=flow size={size} port={PORT}");
    let (mut seen, mut start, mut last, mut quiet_since) = (0u64, None, 0u64, 0u64);
    let mut waited = 0u64;
    while seen < u64::from(plan.count) {
        let _ = clock.timer(1);
        let _ = clock.wait();
        waited += TICK_MS;
        let now = at_sink(&flows, id);
        if now > seen {
            let t = rdtsc();
            // The first tick that sees data: the flow started within the
            // tick before it.
            start.get_or_insert(t);
            seen = now;
            last = t;
            quiet_since = waited;
        } else {
            // Quiet after the first data, or no data at all for too long.
            let (since, limit) = match start {
                Some(_) => (quiet_since, QUIET_MS),
                None => (0, FIRST_MS),
            };
            if waited - since > limit {
                break;
            }
        }
    }
    // The block stage writes what it holds when it stops.
    if let Err(e) = flows.destroy(id) {
        fail(&alloc::format!("flowmgr refused to destroy the flow: {e}"));
    }
    let end = first + sectors;
    let tally = disk::check(blk, first, end, size as usize, seen);
    Result {
        stored: seen,
        cycles: start.map_or(0, |s| last - s),
        tally,
    }
}
