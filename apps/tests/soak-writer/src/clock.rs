//! Time for the writer's pacing and its give-up rule: the kernel's ticks
//! through the task's own timer notification.

use conflux_abi::time::TICK_NS;
use conflux_userlib::ipc::Notification;

pub struct Clock(Notification);

impl Clock {
    /// `slot`: a notification this task holds with READ and WRITE.
    pub fn new(slot: usize) -> Clock {
        Clock(Notification(slot))
    }

    pub fn now_ms(&self) -> u64 {
        self.0.timer(0).unwrap_or(0) * (TICK_NS / 1_000_000)
    }

    /// Sleeps `ms` milliseconds (at least one tick).
    pub fn sleep_ms(&self, ms: u64) {
        let ticks = (ms * 1_000_000 / TICK_NS).max(1);
        if self.0.timer(ticks).is_ok() {
            let _ = self.0.wait();
        }
    }
}
