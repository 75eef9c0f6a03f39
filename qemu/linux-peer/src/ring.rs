//! A thin layer over the `io-uring` crate: submit a batch of prepared
//! entries with one `io_uring_enter` and wait for all their completions,
//! the way an application that batches its I/O uses io_uring.

use io_uring::{squeue, IoUring};
use std::io;

/// Entries one batch may hold (the ring is twice that, so completions
/// never overflow).
pub const BATCH: usize = 32;

/// One io_uring instance.
pub struct Ring {
    ring: IoUring,
}

impl Ring {
    /// A ring of `2 * BATCH` entries with `slots` direct-descriptor slots
    /// registered (0: none).
    pub fn new(slots: u32) -> io::Result<Ring> {
        let ring = IoUring::new(2 * BATCH as u32)?;
        if slots > 0 {
            ring.submitter().register_files_sparse(slots)?;
        }
        Ok(Ring { ring })
    }

    /// Submits `entries` (at most [`BATCH`]; `user_data` is set to each
    /// one's index) and waits for all of them; `results[i]` is entry i's
    /// result (a negative errno on failure).
    ///
    /// # Safety
    ///
    /// Every buffer and path an entry points at must stay valid until this
    /// returns (it returns only after every completion has arrived).
    pub unsafe fn run(&mut self, entries: &[squeue::Entry], results: &mut [i32]) -> io::Result<()> {
        assert!(entries.len() <= BATCH && results.len() >= entries.len());
        {
            let mut sq = self.ring.submission();
            for (i, e) in entries.iter().enumerate() {
                let e = e.clone().user_data(i as u64);
                // Safety: the caller keeps what the entry points at alive
                // until every completion is in, which this function waits for.
                unsafe { sq.push(&e) }
                    .map_err(|_| io::Error::other("io_uring submission queue full"))?;
            }
        }
        let mut left = entries.len();
        while left > 0 {
            self.ring.submit_and_wait(left)?;
            for cqe in self.ring.completion() {
                let i = cqe.user_data() as usize;
                if let Some(r) = results.get_mut(i) {
                    *r = cqe.result();
                }
                left = left.saturating_sub(1);
            }
        }
        Ok(())
    }
}
