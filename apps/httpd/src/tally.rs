//! What httpd's socket operations cost in trips to the network server,
//! counted cheaply and shown on the status page (`/?status`), so a
//! benchmark run can be explained without a profiler: rounds of the
//! event loop, IPC calls (the IPC mode: one per operation), and for the
//! ring mode the entries posted, the submissions that posted them (each
//! followed by one doorbell at most), the doorbells actually rung (the
//! network server slept) and the sleeps on an answer (httpd polled its
//! budget out). Divided by the page's `requests`, they say where a
//! request's time goes (`docs/PERFORMANCE.md`, "httpd against N").

use alloc::string::String;
use core::fmt::Write;

/// The counts since httpd started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Rounds of the event loop (one `wait` each).
    pub rounds: u64,
    /// Socket operations made as one IPC each.
    pub calls: u64,
    /// Ring entries posted.
    pub entries: u64,
    /// Submissions: a batch of entries, or one alone.
    pub submissions: u64,
    /// Doorbells rung (one RING_ENTER each).
    pub doorbells: u64,
    /// Sleeps on an answer (one RING_ENTER with RING_WAIT each).
    pub sleeps: u64,
}

impl Tally {
    /// Appends its lines (`sockio_NAME count`) to a status page.
    pub fn write(&self, out: &mut String) {
        let rows = [
            ("rounds", self.rounds),
            ("calls", self.calls),
            ("ring_entries", self.entries),
            ("ring_submissions", self.submissions),
            ("ring_doorbells", self.doorbells),
            ("ring_sleeps", self.sleeps),
        ];
        for (name, n) in rows {
            let _ = writeln!(out, "sockio_{name} {n}");
        }
    }
}
