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
    let r = Region::mapped_at(caps::R_ADDR);
    for off in (0..caps::R_SIZE as u64).step_by(8) {
        r.write_u64(off, pattern(off));
    }
    println!("filled {} bytes of the shared region", caps::R_SIZE);
    let _ = Endpoint(caps::BYE).recv(REPLY, 0);
    if config::SYSTEM_NAME.ends_with("-fault") {
        println!("faulting while holding the region");
        // A read of address 0 through the safe region accessor: a page fault.
        let v = Region::mapped_at(0).read_u64(0);
        println!("read {v} from null: the kernel did not stop this task");
    }
    println!("exiting while holding the region");
}
