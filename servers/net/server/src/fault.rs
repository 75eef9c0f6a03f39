//! Test systems only: in the systems named in [`SYSTEMS`], the server's
//! first instance faults on purpose once it has sent
//! [`BYTES_BEFORE_FAULT`] bytes of frames, in the middle of a transfer
//! (an HTTP answer, by IPC or through httpd's rings; a flow's `tcp`
//! sink), so the in-guest test checks what host clients and the server's
//! own clients see when init restarts it. Every other system, and every
//! restarted instance, never takes this path.

/// The test systems whose server faults on purpose.
const SYSTEMS: [&str; 3] = [
    "net-server-restart",
    "flow-tcp-restart",
    "httpd-ring-restart-2cpu",
];

/// Frame bytes the first instance sends before it faults: about a third
/// of the test's 2 MiB answer.
const BYTES_BEFORE_FAULT: u64 = 640 * 1024;

/// Counts what the link sends, to pick the moment.
pub struct Injection {
    armed: bool,
    sent: u64,
}

impl Injection {
    /// Armed in the [`SYSTEMS`] for an instance that was not restarted.
    pub fn new(restarted: bool) -> Self {
        Injection {
            armed: SYSTEMS.contains(&crate::config::SYSTEM_NAME) && !restarted,
            sent: 0,
        }
    }

    /// Called with each frame handed to the driver.
    pub fn sent(&mut self, len: usize) {
        if !self.armed {
            return;
        }
        self.sent += len as u64;
        if self.sent >= BYTES_BEFORE_FAULT {
            conflux_userlib::println!(
                "test system '{}': faulting on purpose after sending {} bytes of frames",
                crate::config::SYSTEM_NAME,
                self.sent
            );
            conflux_userlib::testing::fault_on_purpose();
        }
    }
}
