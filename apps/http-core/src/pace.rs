//! One answer on its way out, and the deadlines that keep a peer that
//! reads slowly, or not at all, from holding a connection (and the open
//! file behind it) for ever.
//!
//! Two rules, both about the bytes the network server has taken from
//! httpd (what the peer has not acknowledged stays in the server's
//! buffer, so httpd's sends stop when the peer stops reading):
//!
//! - **Stall**: an answer that makes no progress for [`STALL_MS`] is cut.
//!   This is the deadline on every send: a peer that stops reading is let
//!   go 10 s after its buffers filled, however large the file.
//! - **Rate floor**: byte `n` of an answer must have gone by
//!   `start + GRACE_MS + n / MIN_RATE`, so the whole answer must be out
//!   [`GRACE_MS`] plus one second per [`MIN_RATE`] bytes after it began
//!   ([`Pace::deadline`]). A peer that reads a trickle — enough to never
//!   stall — falls behind this schedule and is cut; one that reads at
//!   [`MIN_RATE`] or faster never is, whatever the size (a 16 MiB file
//!   may take 522 s; the guest sends it in a few). Checking every byte
//!   rather than only the last catches the trickle early instead of at
//!   the end of a long file.
//!
//! Time is passed in, in milliseconds, as for [`crate::conn::Conn`].

/// How long an answer may make no progress at all.
pub const STALL_MS: u64 = 10_000;
/// Time every answer gets on top of its size's share.
pub const GRACE_MS: u64 = 10_000;
/// The slowest reader served to the end, bytes per second (256 kbit/s).
pub const MIN_RATE: u64 = 32 * 1024;

/// The progress of one answer of a known length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    started: u64,
    total: u64,
    sent: u64,
    /// When bytes last went (or the answer started).
    moved_at: u64,
}

/// Whether an answer keeps its deadlines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// On time; look again at this time (ms) if nothing happens before.
    OnTime { check_at: u64 },
    /// Nothing went for [`STALL_MS`].
    Stalled,
    /// Behind the [`MIN_RATE`] schedule.
    TooSlow,
}

impl Pace {
    /// An answer of `total` bytes whose first byte is offered at `now`.
    pub fn new(total: u64, now: u64) -> Pace {
        Pace {
            started: now,
            total,
            sent: 0,
            moved_at: now,
        }
    }

    /// `n` more bytes went at `now`.
    pub fn sent(&mut self, n: u64, now: u64) {
        if n > 0 {
            self.sent = self.sent.saturating_add(n).min(self.total);
            self.moved_at = now;
        }
    }

    /// Bytes gone so far, and the answer's length.
    pub fn progress(&self) -> (u64, u64) {
        (self.sent, self.total)
    }

    /// When the answer last made progress: how long it has been quiet is
    /// what decides whom to evict when httpd is full ([`crate::seats`]).
    pub fn moved_at(&self) -> u64 {
        self.moved_at
    }

    /// When the whole answer must be out.
    pub fn deadline(&self) -> u64 {
        self.due(self.total)
    }

    /// When byte `n` must be out. Saturates: a length near `u64::MAX`
    /// (no file is) means no deadline rather than an overflow.
    fn due(&self, n: u64) -> u64 {
        let share = n.saturating_mul(1000) / MIN_RATE;
        self.started.saturating_add(GRACE_MS).saturating_add(share)
    }

    /// The answer's standing at `now` (an answer all sent is on time).
    pub fn check(&self, now: u64) -> Verdict {
        if self.sent >= self.total {
            return Verdict::OnTime { check_at: u64::MAX };
        }
        let stall_at = self.moved_at.saturating_add(STALL_MS);
        // The next byte (number `sent + 1`) is late once its time came.
        let next_due = self.due(self.sent + 1);
        if now >= stall_at {
            Verdict::Stalled
        } else if now >= next_due {
            Verdict::TooSlow
        } else {
            Verdict::OnTime {
                check_at: stall_at.min(next_due),
            }
        }
    }
}
