//! Test systems only: in the system named `flow-manager-restart`, the
//! first instance faults on purpose while serving the first `LIST` after a
//! `RESUME` (the test app resumes its running flow, then lists), so the
//! in-guest test sees what a `flowmgr` restart does to flows, stages and
//! applications. Every other system, and any instance that found a
//! predecessor's flows to take back, never takes this path.

use conflux_flow_protocol::api::label;

/// Watches the requests served, to pick the moment.
pub struct Injection {
    armed: bool,
    resumed: bool,
}

impl Injection {
    /// Armed in `flow-manager-restart` for an instance with no predecessor.
    pub fn new(restarted: bool) -> Self {
        Self {
            armed: crate::config::SYSTEM_NAME == "flow-manager-restart" && !restarted,
            resumed: false,
        }
    }

    /// Called with each request's label before it is served.
    pub fn before(&mut self, l: u32) {
        if !self.armed {
            return;
        }
        if l == label::RESUME {
            self.resumed = true;
        } else if l == label::LIST && self.resumed {
            conflux_userlib::println!(
                "test system '{}': faulting on purpose in the LIST after a RESUME, with a flow running",
                crate::config::SYSTEM_NAME
            );
            conflux_userlib::testing::fault_on_purpose();
        }
    }
}
