//! Less urgent task: signals the urgent one, which must run (and mark the
//! shared word) before this task's `signal` call returns.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

fn main() {
    let flag = Region(caps::FLAG).premapped(caps::FLAG_ADDR, caps::FLAG_SIZE);
    let mut c = Checks::new();
    c.eq("flag clear before the signal", flag.read_u64(0), Ok(0));
    c.eq("signal", Notification(caps::WAKE).signal(), Ok(()));
    c.eq(
        "urgent task ran before signal returned",
        flag.read_u64(0),
        Ok(1),
    );
    c.finish();
}
