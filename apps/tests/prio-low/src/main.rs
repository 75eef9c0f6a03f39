//! Less urgent task: signals the urgent one, which must run (and mark the
//! shared word) before this task's `signal` call returns.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

fn main() {
    let flag = Region::mapped_at(config::caps::FLAG_ADDR);
    let mut c = Checks::new();
    c.eq("flag clear before the signal", flag.read_u64(0), 0);
    c.eq("signal", Notification(config::caps::WAKE).signal(), Ok(()));
    c.eq(
        "urgent task ran before signal returned",
        flag.read_u64(0),
        1,
    );
    c.finish();
}
