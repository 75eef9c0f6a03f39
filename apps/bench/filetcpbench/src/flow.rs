//! The flow path: this task only signals.
//!
//! It asks `flowmgr` for one flow — the file ([`FILE`]) read by flowfile
//! → AES-128-CBC encrypt on the crypto device → flownet's `tcp` sink to
//! the host — written in the shell's text syntax, watches it until it is
//! `Done` (every buffer reached the sink), and destroys it (the sink
//! closes the connection). The data never enters this task.
//!
//! The run's time is what the stages stamped on the edges (the file
//! stage's first hand-over, the network sink's last), so a watcher that
//! is slow to run does not change the figure.

use crate::plan::Result;
use crate::{fail, FILE, IV, KEY, SEED};
use alloc::format;
use alloc::string::String;
use conflux_flow_protocol::api::FlowState;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::{text, Flows};

use crate::config;

/// Ticks (10 ms) between looks, and looks before giving up (10 min).
const EVERY: u64 = 1;
const LOOKS: u32 = 60_000;

/// This task's side of flows.
pub struct Flow {
    flows: Flows,
    clock: Notification,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Flow {
    pub fn open() -> Self {
        Self {
            flows: Flows::new(config::caps::FLOWMGR),
            clock: Notification(config::caps::CLOCK),
        }
    }

    /// One run: the whole file in `chunk`-byte buffers to the host's
    /// guest-forwarded `port`.
    pub fn run(&self, chunk: u32, port: u16) -> Result {
        let words = [
            format!("file:{FILE}"),
            format!("encrypt:cbc:{}:{}:device", hex(&KEY), hex(&IV)),
            format!("tcp:10.0.2.100:{port}"),
            format!("buffer={chunk}"),
        ];
        self.flow("flow", chunk, port, &words)
    }

    /// The `tcp` sink alone: `records` pattern records of `chunk` bytes
    /// to `port`.
    pub fn alone(&self, chunk: u32, records: u64, port: u16) -> Result {
        let words = [
            format!("pattern:{records}:{SEED}"),
            format!("tcp:10.0.2.100:{port}"),
            format!("buffer={chunk}"),
        ];
        self.flow("stage-tcp", chunk, port, &words)
    }

    /// Runs the flow `words` to its end as configuration `config`.
    fn flow(&self, config: &str, chunk: u32, port: u16, words: &[String]) -> Result {
        let request = text::request(words)
            .unwrap_or_else(|e| fail(&format!("the flow's text is refused: {e}")));
        // The sink connects at create: the first bytes may leave at once.
        println!("ready config={config} chunk={chunk} port={port}");
        let id = self
            .flows
            .create(&request)
            .unwrap_or_else(|e| fail(&format!("flowmgr refused the flow: {e}")));
        let sleep = || {
            let _ = self.clock.timer(EVERY);
            let _ = self.clock.wait();
        };
        let over = self
            .flows
            .wait_finished(id, LOOKS, sleep)
            .unwrap_or_else(|e| fail(&format!("flowmgr refused the statistics: {e}")));
        let Some(s) = over else {
            fail("the flow did not end within 10 minutes");
        };
        if s.state != FlowState::Done || s.edge_count == 0 {
            fail(&format!("the flow ended {:?}, not Done", s.state));
        }
        let (first, last) = (s.edges[0], s.edges[s.edge_count - 1]);
        if let Err(e) = self.flows.destroy(id) {
            fail(&format!("flowmgr refused to destroy the flow: {e}"));
        }
        Result {
            bytes: s.sink[1],
            buffers: s.sink[0],
            cycles: last.last.saturating_sub(first.first),
        }
    }
}
