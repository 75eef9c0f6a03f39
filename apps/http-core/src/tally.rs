//! Log lines about what hostile peers cause, without letting them flood
//! the console.
//!
//! An attacker decides how often httpd cuts or turns away a connection,
//! so a line for each would let it fill the console (and the log reader's
//! night). A [`Tally`] lets the first event of a kind through as a whole
//! line, then counts the next ones quietly for [`PERIOD_MS`]; once the
//! period is over, the next event's line (or [`Tally::flush`]) says how
//! many were held back. So there is at most one line per kind per period,
//! and nothing is lost from the count.

/// The shortest time between two lines of one kind.
pub const PERIOD_MS: u64 = 60_000;

/// One kind of event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// When the last line was let through.
    last_line: Option<u64>,
    /// Events since then without a line of their own.
    held: u64,
}

impl Tally {
    pub const fn new() -> Tally {
        Tally {
            last_line: None,
            held: 0,
        }
    }

    fn period_over(&self, now: u64) -> bool {
        self.last_line
            .is_none_or(|t| now.saturating_sub(t) >= PERIOD_MS)
    }

    /// An event at `now`: `Some(held)` to log it now, mentioning the
    /// `held` events counted since the last line; `None` to count it.
    pub fn event(&mut self, now: u64) -> Option<u64> {
        if self.period_over(now) {
            self.last_line = Some(now);
            Some(core::mem::take(&mut self.held))
        } else {
            self.held += 1;
            None
        }
    }

    /// At `now`: `Some(n)` for a line saying `n` events were held back
    /// during a period now over; `None` when there is nothing to say yet.
    pub fn flush(&mut self, now: u64) -> Option<u64> {
        if self.held > 0 && self.period_over(now) {
            self.last_line = Some(now);
            Some(core::mem::take(&mut self.held))
        } else {
            None
        }
    }
}
