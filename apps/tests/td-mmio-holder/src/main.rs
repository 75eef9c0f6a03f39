//! MMIO holder: maps the HPET's register page (a device page: neither RAM
//! nor kernel memory), reads its capabilities register to show the mapping
//! is the device, then exits while holding it. Its endpoint `bye` takes
//! one call and is never answered, so callers get `DeadPeer` once this
//! task is torn down. Teardown must not hand the device page to the frame
//! allocator as if it were RAM.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Region};
use conflux_userlib::println;

conflux_userlib::entry!(main);

use config::caps;

const REPLY: usize = caps::FIRST_FREE;
/// HPET general capabilities register: vendor id in bits 16..32.
const VENDOR_SHIFT: u64 = 16;
/// QEMU's HPET reports Intel's vendor id.
const INTEL: u64 = 0x8086;

fn main() {
    let id = Region(caps::HPET)
        .premapped(caps::HPET_ADDR, caps::HPET_SIZE)
        .read_u64(0)
        .unwrap_or(0);
    if id >> VENDOR_SHIFT & 0xffff == INTEL {
        println!("ok: the mapped page is the HPET: capabilities {id:#x}");
    } else {
        println!(
            "CHECK FAILED: HPET capabilities register: got {id:#x}, expected vendor {INTEL:#x}"
        );
    }
    let _ = Endpoint(caps::BYE).recv(REPLY, 0);
    println!("exiting while holding the device page");
}
