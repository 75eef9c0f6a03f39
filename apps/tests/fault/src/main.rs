//! Faulting task: its manifest task name picks the fault.
//!
//! - `null`: reads address 0 (never mapped).
//! - `kernel-read`: reads the kernel image at 0xffffffff80000000.
//! - `direct-map-write`: writes the kernel's direct map of physical memory.
//! - `privileged`: executes `hlt`, a ring-0 instruction.
//!
//! Every one of these must stop this task with a report while the rest of
//! the system keeps running.
#![no_std]
#![no_main]

use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    println!("about to fault ({})", config::TASK_NAME);
    match config::TASK_NAME {
        // Safety (all arms): none — these accesses are deliberately invalid;
        // the test checks that the kernel contains them.
        "null" => {
            // Safety: deliberately invalid, see above.
            let v = unsafe { core::ptr::read_volatile(core::ptr::null::<u64>()) };
            println!("read {v} from null: the kernel did not stop this task");
        }
        "kernel-read" => {
            // Safety: deliberately invalid, see above.
            let v = unsafe { core::ptr::read_volatile(0xffff_ffff_8000_0000 as *const u64) };
            println!("read {v} from the kernel: the kernel did not stop this task");
        }
        "direct-map-write" => {
            // Safety: deliberately invalid, see above.
            unsafe { core::ptr::write_volatile(0xffff_8000_0010_0000 as *mut u64, 0) };
            println!("wrote kernel memory: the kernel did not stop this task");
        }
        "privileged" => {
            // Safety: deliberately invalid, see above.
            unsafe { core::arch::asm!("hlt") };
            println!("executed hlt in ring 3: the kernel did not stop this task");
        }
        other => println!("no fault is defined for task name `{other}`"),
    }
}
