//! Milliseconds since boot, from the kernel's tick counter: `timer_set`
//! with 0 ticks cancels nothing and returns the tick count, for
//! deadlines; the wall clock (`wall_clock`), for HTTP dates; and sleep,
//! when httpd must pause before trying a failed call again
//! (`conflux_http::backoff`).

use conflux_abi::time::TICK_NS;
use conflux_http::date::HttpDate;
use conflux_userlib::ipc::Notification;

pub struct Clock(Notification);

impl Clock {
    /// `slot`: a notification this task holds with WRITE.
    pub fn new(slot: usize) -> Clock {
        Clock(Notification(slot))
    }

    pub fn now_ms(&self) -> u64 {
        self.0.timer(0).unwrap_or(0) * (TICK_NS / 1_000_000)
    }

    /// The wall-clock time, or `None` when the system has none (the
    /// kernel found no date in the real-time clock): answers then go
    /// without `Date`.
    pub fn wall(&self) -> Option<HttpDate> {
        conflux_userlib::sys::wall_clock_ms()
            .ok()
            .map(HttpDate::from_unix_ms)
    }

    /// Sleeps at least `ms` (a tick at least) on the task's timer.
    pub fn sleep_ms(&self, ms: u64) {
        let ticks = (ms * 1_000_000).div_ceil(TICK_NS).max(1);
        if self.0.timer(ticks).is_ok() {
            let _ = self.0.wait();
        }
    }
}
