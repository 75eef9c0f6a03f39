//! How much each task may write to the console: a byte budget per task
//! slot, refilled by the timer tick.
//!
//! The console is shared by every task and by the kernel, and it is what
//! the operator reads when something goes wrong; a task printing in a
//! tight loop (a server retrying a failing call, say) must not bury
//! everyone else's lines. Each task slot has a token bucket of bytes:
//! [`BURST`] to start with, [`PER_TICK`] more every tick, never above
//! `BURST`. A write costs what it puts on the console: its bytes, and the
//! writer's prefix when it starts a line (so a shell echoing typed
//! characters one at a time pays one byte each). A write the budget cannot
//! pay for is dropped whole (a line is never cut). The first dropped write
//! of a spell makes the kernel say so once. While the spell lasts the
//! task's writes still get through as the rate allows; the spell ends when
//! the task has been quiet long enough for the whole burst to come back,
//! and its next write is preceded by a line saying how much was lost. Two
//! kernel lines per spell, however long it lasts.
//!
//! The budget belongs to the task slot, not to the instance: a task that
//! crashes and is restarted does not start with a fresh burst, so a crash
//! loop cannot flood either.

/// Bytes a task may write at once after a quiet spell (about 600 lines of
/// 50 bytes: a test's or benchmark's whole report fits).
pub const BURST: u32 = conflux_abi::syscall::CONSOLE_BURST_BYTES;
/// Bytes added each 10 ms tick: 25.6 KiB/s, about 500 lines a second,
/// far more than a person can read and far less than a loop can print.
pub const PER_TICK: u32 = conflux_abi::syscall::CONSOLE_BYTES_PER_TICK;

/// One task slot's console budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Bytes that may be written now.
    bytes: u32,
    /// The tick at which `bytes` was last brought up to date.
    at: u64,
    /// Bytes dropped in the current spell.
    dropped: u64,
    /// In a spell: some write was dropped and the budget has not been
    /// full since. The spell is reported when it starts and when it ends,
    /// never in between, so the kernel's own lines cannot flood either.
    spell: bool,
}

/// What to do with one write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Write it. `after_spell` is how many bytes were dropped in the
    /// spell that this write ends (0 when none ended), which the kernel
    /// reports first.
    Write { after_spell: u64 },
    /// Drop it. `first` is true for the first drop of a spell, which the
    /// kernel reports.
    Drop { first: bool },
}

impl Budget {
    /// A full budget at tick `now`.
    pub const fn full(now: u64) -> Self {
        Self {
            bytes: BURST,
            at: now,
            dropped: 0,
            spell: false,
        }
    }

    /// Charges a write that puts `cost` bytes on the console (its own and
    /// any prefix) at tick `now`.
    pub fn charge(&mut self, now: u64, cost: usize) -> Verdict {
        let elapsed = now.saturating_sub(self.at);
        let refill = elapsed.saturating_mul(u64::from(PER_TICK));
        self.bytes = u64::from(self.bytes)
            .saturating_add(refill)
            .min(u64::from(BURST)) as u32;
        self.at = now.max(self.at);
        // A spell ends once the task has been quiet long enough for the
        // whole burst to come back.
        let after_spell = if self.spell && self.bytes == BURST {
            self.spell = false;
            core::mem::take(&mut self.dropped)
        } else {
            0
        };
        let price = u32::try_from(cost).unwrap_or(u32::MAX);
        if price <= self.bytes {
            self.bytes -= price;
            Verdict::Write { after_spell }
        } else {
            let first = !self.spell;
            self.spell = true;
            self.dropped = self.dropped.saturating_add(cost as u64);
            Verdict::Drop { first }
        }
    }
}

impl Budget {
    /// Gives back the price of a write that printed nothing after all (its
    /// pointer was bad), never above the burst.
    pub fn refund(&mut self, cost: usize) {
        let price = u32::try_from(cost).unwrap_or(u32::MAX);
        self.bytes = self.bytes.saturating_add(price).min(BURST);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_rate_then_the_end_of_the_spell() {
        let mut b = Budget::full(0);
        for _ in 0..BURST / 64 {
            assert_eq!(b.charge(0, 64), Verdict::Write { after_spell: 0 });
        }
        assert_eq!(b.charge(0, 64), Verdict::Drop { first: true });
        assert_eq!(b.charge(0, 64), Verdict::Drop { first: false });
        // One tick pays for four 64-byte lines, still inside the spell.
        for _ in 0..PER_TICK / 64 {
            assert_eq!(b.charge(1, 64), Verdict::Write { after_spell: 0 });
        }
        assert_eq!(b.charge(1, 64), Verdict::Drop { first: false });
        // Quiet until the burst is back: the spell ends with its tally.
        let full = 1 + u64::from(BURST / PER_TICK);
        assert_eq!(b.charge(full - 1, 1), Verdict::Write { after_spell: 0 });
        assert_eq!(b.charge(full + 1, 1), Verdict::Write { after_spell: 192 });
        assert_eq!(b.charge(full + 1, 1), Verdict::Write { after_spell: 0 });
    }

    #[test]
    fn one_byte_writes_cost_one_byte() {
        let mut b = Budget::full(0);
        for _ in 0..BURST {
            assert_eq!(b.charge(0, 1), Verdict::Write { after_spell: 0 });
        }
        assert_eq!(b.charge(0, 1), Verdict::Drop { first: true });
        assert_eq!(b.charge(0, 7), Verdict::Drop { first: false });
        assert_eq!(b.charge(1000, 1), Verdict::Write { after_spell: 8 });
    }

    #[test]
    fn a_quiet_spell_refills_only_up_to_the_burst() {
        let mut b = Budget::full(0);
        assert!(matches!(b.charge(0, BURST as usize), Verdict::Write { .. }));
        assert_eq!(
            b.charge(u64::MAX, BURST as usize + 1),
            Verdict::Drop { first: true }
        );
        assert!(matches!(
            b.charge(u64::MAX, BURST as usize),
            Verdict::Write { .. }
        ));
    }

    #[test]
    fn a_clock_that_seems_to_go_back_gives_nothing() {
        let mut b = Budget::full(10);
        assert!(matches!(
            b.charge(10, BURST as usize),
            Verdict::Write { .. }
        ));
        assert_eq!(b.charge(5, 64), Verdict::Drop { first: true });
        assert_eq!(b.charge(10, 64), Verdict::Drop { first: false });
        assert_eq!(b.charge(11, 64), Verdict::Write { after_spell: 0 });
    }
}
