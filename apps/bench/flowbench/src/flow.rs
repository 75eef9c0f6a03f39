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
//! The watch polls every kernel tick (10 ms) only to know when the run is
//! over: the run's time is what the stages stamped on the edges (the NIC
//! driver's first hand-over to the flow, the block driver's last), so a
//! watcher that the flood keeps from running (it is the least urgent task)
//! does not change the figure.

use crate::disk;
use crate::plan::{Plan, Result, FIRST_MS, QUIET_MS};
use crate::{fail, IV, KEY};
use conflux_blk_client::Connection as Blk;
use conflux_flow_protocol::api::FlowRequest;
use conflux_flow_protocol::stage::{Cipher, Direction, Engine, Key, Mode, StageSpec};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::{FlowId, Flows};

use crate::config;

/// The guest UDP port the flow runs take.
pub const PORT: u16 = 5711;
const TICK_MS: u64 = 10;

/// The benchmark's decryption on the crypto device (AES-128-CBC, the
/// runner's key and IV).
pub fn decrypt() -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction: Direction::Decrypt,
        engine: Engine::Device,
        key: Key::new(&KEY).unwrap_or_else(|| fail("the benchmark key is not 16 bytes")),
        iv: IV,
    })
}

/// A flow request of `size`-byte buffers, or the benchmark stops.
pub fn request(
    source: StageSpec,
    transformers: &[StageSpec],
    sink: StageSpec,
    size: u32,
) -> FlowRequest {
    FlowRequest::new(source, transformers, sink, 4, 0, size).unwrap_or_else(|e| {
        fail(&alloc::format!(
            "the flow request is refused before sending: {e}"
        ))
    })
}

/// Records that reached the sink so far (what the last edge carried less
/// what still waits in it), and the flow's time as its stages stamped it:
/// the source's first hand-over to the last stage's last.
fn at_sink(flows: &Flows, id: FlowId) -> (u64, u64) {
    match flows.stats(id) {
        Ok(s) if s.edge_count > 0 => {
            let (first, last) = (s.edges[0], s.edges[s.edge_count - 1]);
            let took = last.last.saturating_sub(first.first);
            (last.buffers.saturating_sub(last.queued), took)
        }
        Ok(_) => (0, 0),
        Err(e) => fail(&alloc::format!(
            "flowmgr refused the flow's statistics: {e}"
        )),
    }
}

/// Creates the flow for `request`, or the benchmark stops.
pub fn create(flows: &Flows, request: &FlowRequest) -> FlowId {
    flows
        .create(request)
        .unwrap_or_else(|e| fail(&alloc::format!("flowmgr refused the flow: {e}")))
}

/// Watches flow `id` until `count` records reached its sink or it went
/// quiet, then destroys it (a block sink writes what it holds when it
/// stops). Returns the records at the sink and the flow's time in TSC
/// cycles as its stages stamped it.
pub fn watch(flows: &Flows, id: FlowId, count: u64) -> (u64, u64) {
    let clock = Notification(config::caps::CLOCK);
    let (mut seen, mut cycles, mut started, mut quiet_since) = (0u64, 0u64, false, 0u64);
    let mut waited = 0u64;
    while seen < count {
        let _ = clock.timer(1);
        let _ = clock.wait();
        waited += TICK_MS;
        let (now, took) = at_sink(flows, id);
        if now > seen {
            started = true;
            seen = now;
            cycles = took;
            quiet_since = waited;
        } else {
            // Quiet after the first data, or no data at all for too long.
            let (since, limit) = if started {
                (quiet_since, QUIET_MS)
            } else {
                (0, FIRST_MS)
            };
            if waited - since > limit {
                break;
            }
        }
    }
    if let Err(e) = flows.destroy(id) {
        fail(&alloc::format!("flowmgr refused to destroy the flow: {e}"));
    }
    (seen, cycles)
}

/// One run of the flow configuration.
pub fn run(blk: &mut Blk, size: u32, plan: &Plan, first: u64, sectors: u64) -> Result {
    let flows = Flows::new(config::caps::FLOWMGR);
    let sink = StageSpec::Blocks {
        first,
        count: sectors,
    };
    let id = create(
        &flows,
        &request(StageSpec::Udp { port: PORT }, &[decrypt()], sink, size),
    );
    println!("ready config=flow size={size} port={PORT}");
    let (seen, cycles) = watch(&flows, id, u64::from(plan.count));
    let tally = disk::check(blk, first, first + sectors, size as usize, seen);
    Result {
        stored: seen,
        cycles,
        tally: Some(tally),
    }
}
