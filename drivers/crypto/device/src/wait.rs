//! Waiting for the device's answer: by sleeping until its interrupt, or
//! (with no way to sleep, as in the host tests) by polling.
//!
//! Under QEMU the cipher is done by a bottom half on the emulator's main
//! loop, a host thread apart from the one running the guest. A driver
//! that polls keeps that guest thread busy for the whole wait, so on a
//! host with few cores it competes for a core with the very thread it is
//! waiting for, and with every other device's work (the network's
//! datagrams, the disk's writes): each wait grows longer, which keeps the
//! guest busier still. Measured in `bench flow`, waits for the disk and
//! this device grew from about 0.1 ms to 3.6 ms, and the flow fell to a
//! seventh of its speed. Sleeping halts the guest's CPU when nothing else
//! is ready, and gives it to the other tasks when something is.

use core::hint::spin_loop;
use core::sync::atomic::{fence, Ordering};

use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::{DeviceStatus, Transport};
use virtio_drivers::Hal;

/// How the driver sleeps until the device interrupts: the system calls
/// are the driver's, so this crate (which runs on the host too) takes
/// them as functions.
#[derive(Clone, Copy, Debug)]
pub struct Sleep {
    /// Blocks until the device's interrupt line fired (`true`) or the
    /// task was woken for something else (`false`).
    pub wait: fn() -> bool,
    /// Re-arms the interrupt line, once the device has been told the
    /// interrupt was seen.
    pub rearm: fn(),
}

/// How often a poll looks at the device's status. The status is a
/// register, and under QEMU a register access takes the lock the main
/// loop needs to run the cipher; the used ring is memory and costs
/// nothing to watch. A device that gave up is still noticed within
/// microseconds.
const STATUS_EVERY: u32 = 1024;

/// One wait for a queue's next used element.
pub(crate) struct Wait {
    sleep: Option<Sleep>,
    spins: u32,
}

impl Wait {
    pub(crate) fn new(sleep: Option<Sleep>) -> Self {
        Self { sleep, spins: 0 }
    }

    /// Called while `queue` has nothing used: waits a while (sleeps
    /// until an interrupt, or spins once) and says whether the device
    /// set DEVICE_NEEDS_RESET, in which case it will never answer.
    pub(crate) fn gave_up<H: Hal, T: Transport, const N: usize>(
        &mut self,
        queue: &mut VirtQueue<H, N>,
        transport: &mut T,
    ) -> bool {
        let Some(sleep) = self.sleep else {
            self.spins = self.spins.wrapping_add(1);
            if self.spins.is_multiple_of(STATUS_EVERY) {
                return needs_reset(transport);
            }
            spin_loop();
            return false;
        };
        // Ask for an interrupt, then look again: the device reads the
        // flag after publishing what it used (virtio 1.2 §2.7.10), so
        // with a full fence between our write and our look, either we
        // see what it used or it sees the flag and interrupts.
        queue.set_dev_notify(true);
        fence(Ordering::SeqCst);
        if !queue.can_pop() && (sleep.wait)() {
            // Reading the ISR lowers the line before it is re-armed.
            transport.ack_interrupt();
            (sleep.rearm)();
        }
        queue.set_dev_notify(false);
        // A device that gave up says so with a configuration interrupt,
        // which wakes the sleep above.
        needs_reset(transport)
    }
}

fn needs_reset<T: Transport>(transport: &mut T) -> bool {
    transport
        .get_status()
        .contains(DeviceStatus::DEVICE_NEEDS_RESET)
}
