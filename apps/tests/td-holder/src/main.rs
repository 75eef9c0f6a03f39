//! Holder: fills shared region `r` with a pattern, then ends while the
//! survivor still holds `r`. Its endpoint `bye` tells others when it is
//! gone: it takes one call and ends without answering, so every caller
//! gets `DeadPeer` once the kernel has torn this task down.
//!
//! In a system whose name ends in `-fault` it ends by a page fault, else
//! by `exit`: teardown must free only what the task owns either way.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Region};
use conflux_userlib::println;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;

/// The word the survivor expects at byte offset `off` of the region.
fn pattern(off: u64) -> u64 {
    0xc0ff_ee00_0000_0000 | off
}

fn main() {
    let r = Region(caps::R).premapped(caps::R_ADDR, caps::R_SIZE);
    for off in (0..caps::R_SIZE as u64).step_by(8) {
        r.write_u64(off, pattern(off))
            .expect("word inside the mapped region");
    }
    println!("filled {} bytes of the shared region", caps::R_SIZE);
    let _ = Endpoint(caps::BYE).recv(REPLY, 0);
    if config::SYSTEM_NAME.ends_with("-fault") {
        println!("faulting while holding the region");
        conflux_userlib::testing::fault_on_purpose();
    }
    println!("exiting while holding the region");
}
