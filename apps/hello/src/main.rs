//! The default system's first task: greets, shows that its heap works, and
//! hands the CPU around with `yield` so the other tasks get their turn.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;
use conflux_userlib::{println, sys};

conflux_userlib::entry!(main);

fn main() {
    println!(
        "hello from task {} of {} in system '{}'",
        config::TASK_INDEX,
        config::TASK_COUNT,
        config::SYSTEM_NAME
    );
    let squares: Vec<u64> = (1..=5).map(|i| i * i).collect();
    println!("heap works: squares {:?}", squares);
    sys::yield_now();
    println!("goodbye");
}
