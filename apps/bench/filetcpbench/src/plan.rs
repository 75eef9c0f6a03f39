//! How much each run takes: the smoke test sends a small file at two
//! chunk sizes once, the benchmark a larger one at three sizes, twice.

/// One system's plan.
pub struct Plan {
    /// Bytes per read, encryption and send (and the flow's buffer size).
    pub chunks: &'static [u32],
    /// Runs per configuration and chunk size.
    pub rounds: u32,
}

impl Plan {
    /// The plan for the system this task was built into.
    pub fn for_system(system: &str) -> Self {
        if system == "filetcpbench" {
            Self {
                chunks: &[1024, 16384, 65536],
                rounds: 2,
            }
        } else {
            Self {
                chunks: &[1024, 16384],
                rounds: 1,
            }
        }
    }
}

/// What one run did.
pub struct Result {
    /// Bytes sent, and in how many chunks.
    pub bytes: u64,
    pub buffers: u64,
    /// TSC cycles from the first read to the last send.
    pub cycles: u64,
}

impl Result {
    /// The line the runner reads.
    pub fn print(&self, config: &str, chunk: u32, port: u16) {
        conflux_userlib::println!(
            "result config={config} chunk={chunk} port={port} bytes={} buffers={} cycles={}",
            self.bytes,
            self.buffers,
            self.cycles
        );
    }
}
