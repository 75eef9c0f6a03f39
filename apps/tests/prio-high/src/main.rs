//! Urgent task: waits for the signal, then marks the shared word.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Notification, Region};

conflux_userlib::entry!(main);

use config::caps;

fn main() {
    let _ = Notification(caps::WAKE).wait();
    let flag = Region(caps::FLAG).premapped(caps::FLAG_ADDR, caps::FLAG_SIZE);
    flag.write_u64(0, 1)
        .expect("the flag word is inside the region");
}
