//! A source's rate limit: a token bucket on the stage's clock (the TSC).
//!
//! The bucket holds *credit* in bytes, counted exactly as bytes × TSC
//! cycles per second so that no rounding builds up: every cycle adds
//! `rate` units, every byte sent costs `tsc_hz`. A source may send its
//! next buffer while the credit is positive, and the buffer's bytes
//! are taken after it was filled (a source learns a buffer's length only
//! then), so the credit may dip below zero by at most one buffer and the
//! source then waits until it is paid back. The credit is capped at
//! [`Sched::burst`] bytes, so a source that waited long (paused, backed
//! up) cannot then flood its flow.
//!
//! Hence the bound a test may check: after `bytes` bytes, the last buffer
//! of `last` bytes was sent no sooner than `(bytes - last - burst) / rate`
//! seconds after the first.

use conflux_flow_protocol::stage::Sched;

/// One source's bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    rate: u64,
    hz: u64,
    /// Bytes × hz; negative while a sent buffer is still being paid for.
    credit: i128,
    cap: i128,
    last: u64,
}

impl Bucket {
    /// The bucket for `sched` at time `now`, full; `None` when the flow
    /// has no limit.
    pub fn new(sched: &Sched, now: u64) -> Option<Self> {
        if sched.rate == 0 || sched.tsc_hz == 0 {
            return None;
        }
        let cap = i128::from(sched.burst()) * i128::from(sched.tsc_hz);
        Some(Self {
            rate: sched.rate,
            hz: sched.tsc_hz,
            credit: cap,
            cap,
            last: now,
        })
    }

    fn refill(&mut self, now: u64) {
        // A clock that went back (another core's TSC) adds nothing.
        let elapsed = now.saturating_sub(self.last);
        self.last = self.last.max(now);
        let gained = i128::from(elapsed) * i128::from(self.rate);
        self.credit = self.credit.saturating_add(gained).min(self.cap);
    }

    /// Whether the source may send a buffer at `now`.
    pub fn admits(&mut self, now: u64) -> bool {
        self.refill(now);
        self.credit > 0
    }

    /// Takes `bytes` just sent from the credit.
    pub fn spend(&mut self, bytes: u64) {
        self.credit -= i128::from(bytes) * i128::from(self.hz);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched(rate: u64, hz: u64) -> Sched {
        Sched {
            priority: 0,
            rate,
            tsc_hz: hz,
        }
    }

    #[test]
    fn no_limit_no_bucket() {
        assert_eq!(Bucket::new(&sched(0, 1000), 0), None);
        assert_eq!(Bucket::new(&sched(10, 0), 0), None);
    }

    #[test]
    fn a_full_burst_then_exactly_the_rate() {
        // 8000 bytes/s on a 1000 Hz clock: a burst of 1000 bytes, then
        // 8 bytes a tick.
        let s = sched(8000, 1000);
        assert_eq!(s.burst(), 1000);
        let mut b = Bucket::new(&s, 0).unwrap();
        let mut sent = 0u64;
        for _ in 0..10 {
            assert!(b.admits(0));
            b.spend(100);
            sent += 100;
        }
        assert!(!b.admits(0), "the burst is spent");
        assert_eq!(sent, 1000);
        for t in 1..=1000u64 {
            if b.admits(t) {
                b.spend(100);
                sent += 100;
            }
        }
        // One second later: the burst plus 8000 bytes, within a buffer.
        assert!((9000..=9100).contains(&sent), "{sent}");
    }

    #[test]
    fn waiting_long_earns_no_more_than_the_burst() {
        let s = sched(8000, 1000);
        let mut b = Bucket::new(&s, 0).unwrap();
        b.spend(999);
        assert!(b.admits(0));
        b.spend(1);
        assert!(!b.admits(0));
        assert!(b.admits(1_000_000));
        let mut sent = 0;
        while b.admits(1_000_000) {
            b.spend(10);
            sent += 10;
        }
        assert_eq!(sent, 1000);
        // A clock going backwards neither adds nor panics.
        assert!(!b.admits(5));
    }
}
