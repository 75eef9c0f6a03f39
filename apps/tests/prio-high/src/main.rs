//! Urgent task: waits for the signal, then marks the shared word.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Notification, Region};

conflux_userlib::entry!(main);

fn main() {
    let _ = Notification(config::caps::WAKE).wait();
    Region::mapped_at(config::caps::FLAG_ADDR).write_u64(0, 1);
}
