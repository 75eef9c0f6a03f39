//! Test systems only: in the systems named `fs-restart`,
//! `flow-file-restart`, `fs-ring-restart` and `fs-ring-restart-2cpu`, the
//! server's first instance faults on purpose in the middle of a client's
//! workload: once files were fsynced, when an fsync arrives while writes
//! made since the previous one sit in the cache, it dies in that fsync's
//! write-back with writes on the device. The operations are counted the
//! same whether they come by IPC or through a session's rings (in the
//! `fs-ring-restart` systems, an fsync entry with more entries in flight
//! behind it). So the in-guest tests check what survives a file-server
//! restart, what its clients see, and that the block driver keeps the old
//! session's completions out of the new one. Every other system, and
//! every restarted instance, never takes this path.

use core::sync::atomic::{AtomicBool, Ordering};

use conflux_fs_protocol::{ipc, ops};

/// Set when the fsync being served is to die in its write-back.
static IN_WRITE_BACK: AtomicBool = AtomicBool::new(false);

/// Called by the disk once a batch of writes is on the device: faults if
/// this write-back was chosen.
pub fn after_submitting(writes: usize) {
    if IN_WRITE_BACK.load(Ordering::Relaxed) {
        conflux_userlib::println!(
            "test system '{}': faulting on purpose in an fsync's write-back, with {writes} \
             writes on the device",
            crate::config::SYSTEM_NAME
        );
        conflux_userlib::testing::fault_on_purpose();
    }
}

/// Fsyncs served before the fault may come.
const FSYNCS: u32 = 8;
/// Writes since the last fsync that must be waiting in the cache.
const UNSYNCED: u32 = 2;

/// Counts what the server was asked, to pick the moment.
pub struct Injection {
    armed: bool,
    fsyncs: u32,
    unsynced: u32,
}

impl Injection {
    /// Armed in the systems the module names, for an instance that was
    /// not restarted.
    pub fn new(restarted: bool) -> Self {
        Injection {
            armed: matches!(
                crate::config::SYSTEM_NAME,
                "fs-restart" | "flow-file-restart" | "fs-ring-restart" | "fs-ring-restart-2cpu"
            ) && !restarted,
            fsyncs: 0,
            unsynced: 0,
        }
    }

    /// Called with each request's label before it is served: chooses this
    /// fsync when enough fsyncs came before and enough writes wait unsynced.
    /// Inlined, so an unarmed server (every real one) pays one test per
    /// request, not a call.
    #[inline]
    pub fn before(&mut self, label: u32) {
        if self.armed {
            self.count(label.checked_sub(ipc::VAN_BASE).map(|op| op as u16));
        }
    }

    /// [`Injection::before`] for each call a ring entry makes (its one
    /// operation, or each of its compound's).
    #[inline]
    pub fn before_ring_op(&mut self, op: u16) {
        if self.armed {
            self.count(Some(op));
        }
    }

    /// [`Injection::before`] for an armed server.
    #[inline(never)]
    fn count(&mut self, op: Option<u16>) {
        match op {
            Some(ops::FSYNC | ops::SYNC) if self.fsyncs >= FSYNCS && self.unsynced >= UNSYNCED => {
                conflux_userlib::println!(
                    "test system '{}': after {} fsyncs, the next one (with {} writes unsynced \
                     in the cache) dies in its write-back",
                    crate::config::SYSTEM_NAME,
                    self.fsyncs,
                    self.unsynced
                );
                IN_WRITE_BACK.store(true, Ordering::Relaxed);
            }
            Some(ops::FSYNC | ops::SYNC) => {
                self.fsyncs += 1;
                self.unsynced = 0;
            }
            Some(ops::WRITE | ops::PWRITE) => self.unsynced += 1,
            _ => {}
        }
    }
}
