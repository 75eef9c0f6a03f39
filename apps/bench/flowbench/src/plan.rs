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
                rounds: 7,
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
    /// Records at the sink.
    pub stored: u64,
    pub cycles: u64,
    /// The check of what was read back from the disk; `None` for a `null`
    /// sink, which only counts.
    pub tally: Option<conflux_flow_protocol::record::Tally>,
}

impl Result {
    /// The line the runner reads (without the check's fields when there
    /// was nothing to check).
    pub fn print(&self, config: &str, size: u32) {
        let stored = self.stored;
        let cycles = self.cycles;
        match &self.tally {
            Some(t) => conflux_userlib::println!(
                "result config={config} size={size} stored={stored} good={} missing={} repeated={} damaged={} cycles={cycles}",
                t.good,
                t.missing,
                t.repeated,
                t.damaged,
            ),
            None => conflux_userlib::println!(
                "result config={config} size={size} stored={stored} cycles={cycles}"
            ),
        }
    }
}
