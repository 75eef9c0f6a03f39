//! What httpd does when a call it cannot serve without fails for a reason
//! that may pass (its `wait` on the network server): it sleeps before
//! trying again, twice as long after each failure in a row up to
//! [`MAX_MS`], and says so once per run of failures (and once when the
//! call works again), so a lasting failure costs neither the CPU nor the
//! console. Before this, httpd retried at once and printed a line each
//! time (49,538 lines in 3 s, issue 26).

/// The first pause after a failure (ms).
pub const FIRST_MS: u64 = 10;
/// The longest pause (ms): a lasting failure is tried once a second.
pub const MAX_MS: u64 = 1000;

/// A run of failures of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backoff {
    failures: u32,
}

/// What to do after a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pause {
    /// How long to sleep before trying again (ms).
    pub ms: u64,
    /// Whether this failure starts a run (report it); later ones do not.
    pub report: bool,
}

impl Backoff {
    pub const fn new() -> Backoff {
        Backoff { failures: 0 }
    }

    /// The call failed: how long to pause, and whether to say so.
    pub fn failed(&mut self) -> Pause {
        let doublings = self.failures.min(16);
        self.failures = self.failures.saturating_add(1);
        Pause {
            ms: (FIRST_MS << doublings).min(MAX_MS),
            report: self.failures == 1,
        }
    }

    /// The call worked: `Some(n)` if it ends a run of `n` failures (say
    /// that service resumed), `None` if nothing had failed.
    pub fn succeeded(&mut self) -> Option<u32> {
        let n = core::mem::take(&mut self.failures);
        (n > 0).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_cap_and_only_the_first_is_reported() {
        let mut b = Backoff::new();
        let pauses: alloc::vec::Vec<_> = (0..10).map(|_| b.failed()).collect();
        let ms: alloc::vec::Vec<_> = pauses.iter().map(|p| p.ms).collect();
        assert_eq!(ms, [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000]);
        assert!(pauses[0].report);
        assert!(pauses[1..].iter().all(|p| !p.report), "one line per run");
    }

    #[test]
    fn a_success_ends_the_run_and_the_next_failure_starts_afresh() {
        let mut b = Backoff::new();
        assert_eq!(b.succeeded(), None, "nothing to report");
        b.failed();
        b.failed();
        assert_eq!(b.succeeded(), Some(2));
        assert_eq!(b.succeeded(), None);
        assert_eq!(
            b.failed(),
            Pause {
                ms: FIRST_MS,
                report: true
            }
        );
    }

    #[test]
    fn a_failure_that_never_ends_stays_at_the_cap() {
        let mut b = Backoff {
            failures: u32::MAX - 1,
        };
        assert_eq!(b.failed().ms, MAX_MS);
        assert_eq!(
            b.failed(),
            Pause {
                ms: MAX_MS,
                report: false
            }
        );
    }
}
