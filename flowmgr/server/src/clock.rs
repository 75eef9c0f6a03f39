//! The TSC's rate, measured against the kernel's ticks, for the stages'
//! rate limits (a source counts its credit in TSC cycles).
//!
//! The kernel tells the tick count (`timer_set` answers it, and 0 ticks
//! cancels, so reading it arms nothing); the TSC is read right after. At
//! boot `flowmgr` waits from one tick edge to [`BOOT_TICKS`] later, yielding
//! meanwhile, for a first figure within a tick or so; each later reading
//! (whenever it arms its watch timer) measures from that first edge, so
//! the error shrinks as the system runs. Under `tcg` the guest's TSC runs
//! at the host's rate and the ticks at the host's clock, so the figure is
//! the host's TSC rate.

use conflux_abi::time::TICK_NS;
use conflux_userlib::ipc::Notification;
use conflux_userlib::sys::{rdtsc, yield_now};

/// Ticks of the first measurement.
const BOOT_TICKS: u64 = 10;

/// A reference point: a tick count and the TSC read just after it.
pub struct Clock {
    ticks: u64,
    tsc: u64,
}

fn ticks(n: &Notification) -> Option<u64> {
    n.timer(0).ok()
}

impl Clock {
    /// Waits for a tick edge and notes it; `None` if the kernel would not
    /// tell the ticks (no timer notification).
    pub fn start(n: &Notification) -> Option<Self> {
        let t0 = ticks(n)?;
        loop {
            yield_now();
            let t = ticks(n)?;
            if t != t0 {
                return Some(Self {
                    ticks: t,
                    tsc: rdtsc(),
                });
            }
        }
    }

    /// TSC cycles per second from the reference to `(now_ticks, tsc)`
    /// (0 if no tick has passed).
    pub fn rate(&self, now_ticks: u64, tsc: u64) -> u64 {
        let dt = now_ticks.saturating_sub(self.ticks);
        if dt == 0 {
            return 0;
        }
        let ns = u128::from(dt) * u128::from(TICK_NS);
        let cycles = u128::from(tsc.saturating_sub(self.tsc));
        u64::try_from(cycles * 1_000_000_000 / ns).unwrap_or(u64::MAX)
    }

    /// The first figure: waits [`BOOT_TICKS`] from the reference edge.
    pub fn first_rate(&self, n: &Notification) -> u64 {
        loop {
            yield_now();
            match ticks(n) {
                Some(t) if t >= self.ticks + BOOT_TICKS => return self.rate(t, rdtsc()),
                Some(_) => {}
                None => return 0,
            }
        }
    }
}
