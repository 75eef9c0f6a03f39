//! A flow's request to the disk, waited for by sleeping until the
//! device's interrupt rather than by polling the used ring.
//!
//! Under QEMU the disk's completions come from the emulator's main loop,
//! a host thread apart from the guest's. Polling keeps the guest's thread
//! busy for the whole wait, so on a host with few cores it competes with
//! the thread it waits for: in `bench flow` the waits grew from about
//! 0.1 ms to 3.6 ms and the flow fell to a seventh of its speed (see
//! `conflux_virtio_crypto`'s `wait` module, where the device's cipher is
//! waited for the same way). Sleeping gives the CPU to the other stages
//! meanwhile, or halts it.
//!
//! Doorbells that ring while the request is out are taken with the
//! interrupt; that loses nothing, since the loop steps every flow after
//! the request and a flow only waits after looking at its edges again.

use crate::config::device as dev;
use crate::device::Blk;
use conflux_userlib::ipc::{Irq, Notification};
use virtio_drivers::device::blk::{BlkReq, BlkResp};
use virtio_drivers::Error;

/// Writes `buf` (whole sectors) at sector `sector`.
pub fn write(blk: &mut Blk, sector: u64, buf: &[u8]) -> Result<(), Error> {
    let mut req = BlkReq::default();
    let mut resp = BlkResp::default();
    #[allow(unsafe_code)]
    // Safety: `req`, `buf` and `resp` are borrowed until this function
    // returns, which is only after `complete_write_blocks` took the
    // request back (or it was never added).
    let token = unsafe {
        blk.blk
            .write_blocks_nb(sector as usize, &mut req, buf, &mut resp)?
    };
    sleep_until_used(blk);
    #[allow(unsafe_code)]
    // Safety: the same buffers as given to `write_blocks_nb`.
    unsafe {
        blk.blk.complete_write_blocks(token, &req, buf, &mut resp)
    }
}

/// Reads whole sectors from sector `sector` into `buf`.
pub fn read(blk: &mut Blk, sector: u64, buf: &mut [u8]) -> Result<(), Error> {
    let mut req = BlkReq::default();
    let mut resp = BlkResp::default();
    #[allow(unsafe_code)]
    // Safety: as in `write`.
    let token = unsafe {
        blk.blk
            .read_blocks_nb(sector as usize, &mut req, buf, &mut resp)?
    };
    sleep_until_used(blk);
    #[allow(unsafe_code)]
    // Safety: the same buffers as given to `read_blocks_nb`.
    unsafe {
        blk.blk.complete_read_blocks(token, &req, buf, &mut resp)
    }
}

/// Sleeps until the device has used a request: flows run only while no
/// client request is on the device, so the next used element is the
/// flow's own (completing checks that it is). Interrupts are always on
/// for this device (the clients' requests complete by them), so one
/// comes for it.
fn sleep_until_used(blk: &mut Blk) {
    while blk.blk.peek_used().is_none() {
        let fired = Notification(dev::IRQ_NOTIFY)
            .wait()
            .is_ok_and(|bits| bits & 1 != 0);
        if fired {
            // Reading the ISR lowers the line before it is re-armed.
            blk.blk.ack_interrupt();
            let _ = Irq(dev::IRQ).ack();
        }
    }
}
