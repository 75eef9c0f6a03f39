//! How much each run takes: a smoke test sends a few hundred datagrams,
//! the benchmark many thousands (the paper sent a million; under TCG the
//! memory-centric path takes about a millisecond per datagram, so the
//! count is the figure's `param` note in `docs/PERFORMANCE.md`).

/// How long the line may be quiet, after the first datagram, before a run
/// ends with what came.
pub const QUIET_MS: u64 = 3000;
/// How long to wait for the first datagram.
pub const FIRST_MS: u64 = 120_000;

/// One system's counts.
pub struct Plan {
    /// Datagrams the runner sends per run.
    pub count: u32,
    /// Runs per configuration and size (the runner offers each at another
    /// rate, and keeps the best: a path's capacity, not its collapse under
    /// a load it cannot take).
    pub rounds: u32,
}

impl Plan {
    /// The plan for the system this task was built into.
    pub fn for_system(system: &str) -> Self {
        if system == "flowbench" {
            Self {
                count: 20_000,
                rounds: 4,
            }
        } else {
            Self {
                count: 300,
                rounds: 1,
            }
        }
    }
}

/// What one run measured.
pub struct Result {
    pub stored: u64,
    pub cycles: u64,
    pub tally: conflux_flow_protocol::record::Tally,
}

impl Result {
    /// The line the runner reads.
    pub fn print(&self, config: &str, size: u32) {
        let t = &self.tally;
        conflux_userlib::println!(
            "result config={config} size={size} stored={} good={} missing={} repeated={} damaged={} cycles={}",
            self.stored,
            t.good,
            t.missing,
            t.repeated,
            t.damaged,
            self.cycles
        );
    }
}
