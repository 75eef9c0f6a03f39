//! Witness: prints `step 1..=STEPS` with a yield after each, then `done`.
//! In a test system its output proves the system kept scheduling it while
//! another task faulted or misbehaved.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::{println, sys};

conflux_userlib::entry!(main);

const STEPS: u32 = 3;

fn main() {
    for i in 1..=STEPS {
        println!("step {i} of {STEPS}");
        sys::yield_now();
    }
    println!("done");
}
