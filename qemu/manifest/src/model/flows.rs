//! `[flows]` as the validated manifest holds it: which task runs
//! `flowmgr`, which tasks run stages, and the objects made for both.

/// The flow manager, its stage tasks and its flow slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flows {
    /// The manager task's index in start order.
    pub manager: usize,
    /// The stage tasks, in the order `stages` lists them.
    pub stages: Vec<FlowStage>,
    /// The flow slots' regions.
    pub slots: Vec<FlowSlot>,
    /// Bytes of each slot's pool.
    pub pool_size: u64,
}

/// One task that runs flow stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowStage {
    /// The task's index in start order.
    pub task: usize,
    /// Object id of the endpoint `TASK.flow` the task serves.
    pub endpoint: usize,
    /// Object id of the notification its doorbell rings: the device's
    /// own (a driver) or `TASK.bell` (made for it).
    pub bell: usize,
    /// Whether `bell` was made for the task (it gets a capability to it;
    /// a driver already has its device's).
    pub own_bell: bool,
}

/// One flow slot: a pool and the edges between consecutive stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowSlot {
    pub pool: usize,
    pub edges: [usize; EDGES],
}

/// Edges per slot: a flow has at most this many stages plus one.
pub const EDGES: usize = 5;
/// Bytes of an edge region (one page: two rings and counters;
/// `conflux_flow_protocol::edge::EDGE_BYTES`, which a stage and `flowmgr`
/// check a region against).
pub const EDGE_SIZE: u64 = 4096;
/// The doorbell bit a neighbouring stage rings (bit 0 of a device's
/// notification is its interrupt, bits 1.. its clients' doorbells).
pub const BELL_BIT: u64 = 1 << 62;

impl Flows {
    /// Every object made for flows.
    pub fn all_objects(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self
            .stages
            .iter()
            .flat_map(|s| [Some(s.endpoint), s.own_bell.then_some(s.bell)])
            .flatten()
            .collect();
        all.extend(
            self.slots
                .iter()
                .flat_map(|s| std::iter::once(s.pool).chain(s.edges)),
        );
        all
    }
}
