//! The TSC's rate, measured against the kernel's ticks, for the stages'
//! rate limits (a source counts its credit in TSC cycles).
//!
//! The kernel tells the tick count (`timer_set` answers it, and 0 ticks
//! cancels, so reading it arms nothing); the TSC is read around it. At
//! boot `flowmgr` waits from one tick edge to [`BOOT_TICKS`] later, yielding
//! meanwhile, for a first figure within a few per cent; each later reading
//! (whenever it arms its watch timer) measures from that first edge, so
//! the error shrinks as the system runs. Under `tcg` the guest's TSC runs
//! at the host's rate and the ticks at the host's clock, so the figure is
//! the host's TSC rate.

use conflux_abi::time::TICK_NS;
use conflux_userlib::ipc::Notification;
use conflux_userlib::sys::{rdtsc, yield_now};

/// Ticks of the first measurement.
const BOOT_TICKS: u64 = 20;

/// A reference point: a tick count and the TSC when it began.
pub struct Clock {
    ticks: u64,
    tsc: u64,
}

fn ticks(n: &Notification) -> Option<u64> {
    n.timer(0).ok()
}

/// Waits, yielding, until the tick count passes `after`: the new count
/// and the TSC at the edge, taken as the middle between the last reading
/// that still saw the old count and the first that saw the new one (a
/// yield may keep this task away for a while; the middle halves the
/// error and does not lean late).
fn edge(n: &Notification, after: u64) -> Option<(u64, u64)> {
    let mut seen_old = rdtsc();
    loop {
        yield_now();
        let before = rdtsc();
        let t = ticks(n)?;
        if t > after {
            return Some((t, seen_old + (before - seen_old) / 2));
        }
        seen_old = rdtsc();
    }
}

impl Clock {
    /// Waits for a tick edge and notes it; `None` if the kernel would not
    /// tell the ticks (no timer notification).
    pub fn start(n: &Notification) -> Option<Self> {
        let t0 = ticks(n)?;
        let (ticks, tsc) = edge(n, t0)?;
        Some(Self { ticks, tsc })
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

    /// The first figure: [`BOOT_TICKS`] from the reference edge to
    /// another.
    pub fn first_rate(&self, n: &Notification) -> u64 {
        match edge(n, self.ticks + BOOT_TICKS - 1) {
            Some((t, tsc)) => self.rate(t, tsc),
            None => 0,
        }
    }
}
